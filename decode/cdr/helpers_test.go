package cdr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// treeSink renders decoded events in the JSON convention of the golden
// fixtures (see testdata/golden/cdr/gen/gen.mjs): 64-bit integers as decimal
// strings, blobs as base64, NaN/±Inf/-0 as strings, other numbers as float64.
type treeSink struct {
	stack []frame
	root  map[string]any
	// blobArrays renders blobs as arrays of numbers instead of base64 (the
	// convention of the rosbag2 .foxglove-npm.json files).
	blobArrays bool
}

type frame struct {
	f   *msgdef.Field
	obj map[string]any
	arr []any
	isA bool
}

func (s *treeSink) BeginMessage(*msgdef.Type) {
	s.root = map[string]any{}
	s.stack = []frame{{obj: s.root}}
}
func (s *treeSink) EndMessage() {}
func (s *treeSink) BeginStruct(f *msgdef.Field) {
	s.stack = append(s.stack, frame{f: f, obj: map[string]any{}})
}
func (s *treeSink) BeginArray(f *msgdef.Field, _ int) {
	s.stack = append(s.stack, frame{f: f, arr: []any{}, isA: true})
}
func (s *treeSink) EndStruct() { s.pop() }
func (s *treeSink) EndArray()  { s.pop() }
func (s *treeSink) pop() {
	top := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if top.isA {
		s.put(top.f, top.arr)
	} else {
		s.put(top.f, top.obj)
	}
}
func (s *treeSink) put(f *msgdef.Field, v any) {
	top := &s.stack[len(s.stack)-1]
	if top.isA {
		top.arr = append(top.arr, v)
	} else {
		top.obj[f.Name] = v
	}
}
func (s *treeSink) Bool(f *msgdef.Field, v bool)     { s.put(f, v) }
func (s *treeSink) Int(f *msgdef.Field, v int64)     { s.put(f, jsonInt(f.Kind, v)) }
func (s *treeSink) Uint(f *msgdef.Field, v uint64)   { s.put(f, jsonUint(f.Kind, v)) }
func (s *treeSink) Float(f *msgdef.Field, v float64) { s.put(f, jsonFloat(v)) }
func (s *treeSink) String(f *msgdef.Field, v []byte) { s.put(f, string(v)) }
func (s *treeSink) Bytes(f *msgdef.Field, v []byte) {
	if s.blobArrays {
		a := []any{}
		for _, b := range v {
			a = append(a, float64(b))
		}
		s.put(f, a)
		return
	}
	s.put(f, base64.StdEncoding.EncodeToString(v))
}
func (s *treeSink) Time(f *msgdef.Field, sec, nsec int64) {
	s.put(f, map[string]any{"sec": float64(sec), "nsec": float64(nsec)})
}

func jsonInt(k msgdef.Kind, v int64) any {
	if k == msgdef.Int64 {
		return strconv.FormatInt(v, 10)
	}
	return float64(v)
}

func jsonUint(k msgdef.Kind, v uint64) any {
	if k == msgdef.Uint64 {
		return strconv.FormatUint(v, 10)
	}
	return float64(v)
}

func jsonFloat(v float64) any {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0 && math.Signbit(v):
		return "-0"
	}
	return v
}

// valueJSON renders a value tree in the same convention as treeSink.
func valueJSON(v *value.Struct) map[string]any {
	m := map[string]any{}
	for i := range v.Type.Fields {
		f := &v.Type.Fields[i]
		x := v.Fields[i]
		switch {
		case f.IsBlob():
			m[f.Name] = base64.StdEncoding.EncodeToString(x.([]byte))
		case f.Array != msgdef.Scalar:
			out := []any{}
			for _, e := range x.([]any) {
				out = append(out, elemJSON(f, e))
			}
			m[f.Name] = out
		default:
			m[f.Name] = elemJSON(f, x)
		}
	}
	return m
}

func elemJSON(f *msgdef.Field, x any) any {
	switch x := x.(type) {
	case int64:
		return jsonInt(f.Kind, x)
	case uint64:
		return jsonUint(f.Kind, x)
	case float64:
		return jsonFloat(x)
	case *value.Struct:
		return valueJSON(x)
	case value.Time:
		return map[string]any{"sec": float64(x.Sec), "nsec": float64(x.Nsec)}
	case value.Duration:
		return map[string]any{"sec": float64(x.Sec), "nsec": float64(x.Nsec)}
	}
	return x
}

// normJSON turns json.Number into float64 so both sides compare equal.
func normJSON(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			panic(err)
		}
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = normJSON(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normJSON(x)
		}
	}
	return v
}

// golden is one fixture of testdata/golden/cdr.
type golden struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	BigEndian bool   `json:"big_endian"`
	BytesFrom string `json:"bytes_from"`

	t    *msgdef.Type
	data []byte
	want any
}

const goldenDir = "../../testdata/golden/cdr"

func loadGolden(t testing.TB) []*golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []*golden
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		read := func(ext string) []byte {
			b, err := os.ReadFile(filepath.Join(goldenDir, c.Name+ext))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		c.data = read(".cdr")
		c.t, err = msgdef.ParseBundle(c.Type, string(read(".msg")), msgdef.ROS2, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(read(".json"))))
		dec.UseNumber()
		if err := dec.Decode(&c.want); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		c.want = normJSON(c.want)
	}
	return cases
}

// randomValue builds a random value of type t that Encode accepts.
func randomValue(t *msgdef.Type, r *rand.Rand, depth int) *value.Struct {
	v := &value.Struct{Type: t, Fields: make([]any, len(t.Fields))}
	for i := range t.Fields {
		f := &t.Fields[i]
		switch f.Array {
		case msgdef.Scalar:
			v.Fields[i] = randomElem(f, r, depth)
		default:
			n := f.Len
			if f.Array == msgdef.Sequence {
				n = r.IntN(4)
				if depth > 3 {
					n = 0
				}
				if f.Len > 0 {
					n = r.IntN(f.Len + 1)
				}
			}
			if f.IsBlob() {
				b := make([]byte, n)
				for j := range b {
					b[j] = byte(r.IntN(256))
				}
				v.Fields[i] = b
				continue
			}
			a := make([]any, n)
			for j := range a {
				a[j] = randomElem(f, r, depth)
			}
			v.Fields[i] = a
		}
	}
	return v
}

var sampleStrings = []string{"", "a", "hello", "héllo wörld", "日本語", "🤖", "x y z 0123456789", "tab\tnl\n"}

func randomElem(f *msgdef.Field, r *rand.Rand, depth int) any {
	bits := uint(f.Kind.Size() * 8)
	switch f.Kind {
	case msgdef.Bool:
		return r.IntN(2) == 1
	case msgdef.Int8, msgdef.Int16, msgdef.Int32, msgdef.Int64:
		return int64(r.Uint64()<<(64-bits)) >> (64 - bits)
	case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
		return r.Uint64() >> (64 - bits)
	case msgdef.Float32:
		return float64(float32(r.NormFloat64() * 1e3))
	case msgdef.Float64:
		return r.NormFloat64() * 1e6
	case msgdef.String, msgdef.WString:
		s := sampleStrings[r.IntN(len(sampleStrings))]
		if f.StringBound > 0 && len(s) > f.StringBound {
			s = s[:0]
		}
		return s
	case msgdef.Time:
		return value.Time{Sec: int64(r.Uint32()), Nsec: int64(r.IntN(1e9))}
	case msgdef.Duration:
		return value.Duration{Sec: int64(int32(r.Uint32())), Nsec: int64(r.IntN(1e9))}
	case msgdef.Struct:
		return randomValue(f.Msg, r, depth+1)
	}
	panic(fmt.Sprintf("kind %s", f.Kind))
}

// equalValue compares two value trees, floats by bits (NaN equal to NaN).
func equalValue(a, b any) bool {
	switch a := a.(type) {
	case *value.Struct:
		b, ok := b.(*value.Struct)
		if !ok || a.Type != b.Type || len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			if !equalValue(a.Fields[i], b.Fields[i]) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case []byte:
		b, ok := b.([]byte)
		return ok && string(a) == string(b)
	case float64:
		b, ok := b.(float64)
		return ok && (math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b))
	}
	return a == b
}
