package ros1_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// goldenDir holds the corpus made by Debian's genpy (see its PROVENANCE.md;
// regenerate with /usr/bin/python3 testdata/golden/ros1/gen/gen_ros1_golden.py).
const goldenDir = "../../testdata/golden/ros1"

// goldenIndex is testdata/golden/ros1/index.json.
type goldenIndex struct {
	Seed  string       `json:"seed"`
	Types []goldenType `json:"types"`
}

type goldenType struct {
	Type       string           `json:"type"`
	MD5        string           `json:"md5"`
	Origin     string           `json:"origin"` // msg, action or srv
	Definition string           `json:"definition"`
	Instances  []goldenInstance `json:"instances"`
}

type goldenInstance struct {
	Bin  string `json:"bin"`
	JSON string `json:"json"`
	Seed string `json:"seed"`
}

// wantTypes is how many types of each origin the corpus must cover: every
// ROS1 .msg baglab ships, the 7 types of each of its 9 .action files, the
// two halves of each of its 49 .srv files, and the 6 test-only types of
// baglab_golden_msgs (every primitive as scalar, sequence and fixed array;
// empty messages; Python-keyword field names).
var wantTypes = map[string]int{"msg": 145, "action": 63, "srv": 98, "extra": 6}

func loadGolden(t testing.TB) []goldenType {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(goldenDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx goldenIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	return idx.Types
}

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenCoverage checks that the corpus covers every type it should, so
// that a lost fixture cannot make TestGolden pass vacuously.
func TestGoldenCoverage(t *testing.T) {
	got := map[string]int{}
	for _, gt := range loadGolden(t) {
		got[gt.Origin]++
		if len(gt.Instances) < 2 {
			t.Errorf("%s: %d instances", gt.Type, len(gt.Instances))
		}
	}
	for origin, n := range wantTypes {
		if got[origin] != n {
			t.Errorf("%s types: got %d, want %d", origin, got[origin], n)
		}
	}
}

// TestGolden checks the codec against genpy for every fixture: the bundle
// parses, hashes to genpy's md5 and prints back as genpy's full text, the bytes decode to the peer's JSON,
// decoding to a value tree and encoding again gives genpy's bytes, and every
// truncation of the bytes (and one extra byte) is an error, not a panic.
func TestGolden(t *testing.T) {
	for _, gt := range loadGolden(t) {
		t.Run(strings.TrimSuffix(gt.Definition, ".msg"), func(t *testing.T) {
			t.Parallel()
			def := readGolden(t, gt.Definition)
			mt, err := msgdef.ParseBundle(gt.Type, string(def), msgdef.ROS1, nil)
			if err != nil {
				t.Fatalf("ParseBundle: %v", err)
			}
			if got := msgdef.MD5(mt); got != gt.MD5 {
				t.Errorf("MD5 = %s, genpy %s", got, gt.MD5)
			}
			if got := msgdef.FullText(mt); got != string(def) {
				t.Errorf("FullText differs from genpy's _full_text:\n got: %q\nwant: %q", got, def)
			}
			dec, err := ros1.Compile(mt)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			for i, in := range gt.Instances {
				t.Run(strconv.Itoa(i), func(t *testing.T) {
					data := readGolden(t, in.Bin)
					checkInstance(t, dec, data, readGolden(t, in.JSON))
					checkCuts(t, dec, data)
				})
			}
		})
	}
}

func checkInstance(t *testing.T, dec *ros1.Decoder, data, want []byte) {
	w := sink.NewJSONWriter()
	w.Reset()
	if err := dec.Decode(data, w); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if diff := diffJSON(w.JSON(), want); diff != "" {
		t.Errorf("JSON differs from genpy's: %s\n got: %s\nwant: %s", diff, w.JSON(), want)
	}

	v, err := dec.DecodeValue(data)
	if err != nil {
		t.Fatalf("DecodeValue: %v", err)
	}
	enc, err := ros1.Encode(v)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !bytes.Equal(enc, data) {
		at := 0
		for at < len(enc) && at < len(data) && enc[at] == data[at] {
			at++
		}
		t.Errorf("Encode(DecodeValue) differs from genpy's %d bytes at offset %d (got %d bytes)",
			len(data), at, len(enc))
	}

	extra := append(bytes.Clone(data), 0)
	err = dec.Decode(extra, sink.NewJSONWriter())
	var re *record.Error
	if !errors.Is(err, record.ErrTrailing) || !errors.As(err, &re) || re.Offset != int64(len(data)) {
		t.Errorf("Decode with one trailing byte: %v, want ErrTrailing at offset %d", err, len(data))
	}
}

// checkCuts decodes every prefix of data (a sample for long messages): each
// must fail with a *record.Error for a missing or over-long part.
func checkCuts(t *testing.T, dec *ros1.Decoder, data []byte) {
	w := sink.NewJSONWriter()
	step := 1
	if len(data) > 512 {
		step = len(data) / 256
	}
	for k := 0; k < len(data); k++ {
		if k > 256 && k < len(data)-64 && k%step != 0 {
			continue
		}
		cut := data[:k:k] // no capacity beyond the cut: reading past it must fail
		w.Reset()
		err := dec.Decode(cut, w)
		var re *record.Error
		switch {
		case err == nil:
			t.Fatalf("Decode of the first %d of %d bytes: no error", k, len(data))
		case !errors.As(err, &re):
			t.Fatalf("Decode of the first %d bytes: %T %v, want *record.Error", k, err, err)
		case !errors.Is(err, record.ErrTruncated) && !errors.Is(err, record.ErrLength):
			t.Fatalf("Decode of the first %d bytes: %v, want ErrTruncated or ErrLength", k, err)
		case re.Offset < 0 || re.Offset > int64(k):
			t.Fatalf("Decode of the first %d bytes: offset %d outside the input", k, re.Offset)
		case re.Field == "":
			t.Fatalf("Decode of the first %d bytes: %v names no field", k, err)
		}
		if _, err := dec.DecodeValue(cut); err == nil {
			t.Fatalf("DecodeValue of the first %d of %d bytes: no error", k, len(data))
		}
	}
}

func TestDiffJSON(t *testing.T) {
	for _, c := range []struct {
		got, want string
		same      bool
	}{
		{`{"a":1,"b":[1.5,"NaN"]}`, `{"a":1,"b":[1.5,"NaN"]}`, true},
		{`{"x":1}`, `{"x":1.0}`, true},
		{`{"x":1e-7}`, `{"x":1e-07}`, true},
		{`{"x":0.1}`, `{"x":0.10000000149011612}`, false},
		{`{"x":-0}`, `{"x":0.0}`, false},
		{`{"x":9223372036854775807}`, `{"x":9223372036854775806}`, false},
		{`{"x":"NaN"}`, `{"x":0}`, false},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"a":[1,2]}`, `{"a":[1,2,3]}`, false},
		{`{"a":{"b":true}}`, `{"a":{"b":false}}`, false},
	} {
		d := diffJSON([]byte(c.got), []byte(c.want))
		if (d == "") != c.same {
			t.Errorf("diffJSON(%s, %s) = %q, want same=%v", c.got, c.want, d, c.same)
		}
	}
	if d := diffJSON([]byte(`{"a":{"b":[0,{"c":1}]}}`), []byte(`{"a":{"b":[0,{"c":2}]}}`)); !strings.Contains(d, "a.b[1].c") {
		t.Errorf("difference not located: %s", d)
	}
}

// diffJSON compares two JSON texts token by token (so object keys must come
// in the same order) and describes the first difference, or returns "".
// Strings, booleans and nulls must be equal; numbers written as integers on
// both sides must be the same integer; other numbers must parse to the same
// float64 bits (so -0 differs from 0, and a float32 printed with float64
// digits differs from its shortest form).
func diffJSON(got, want []byte) string {
	dg := json.NewDecoder(bytes.NewReader(got))
	dw := json.NewDecoder(bytes.NewReader(want))
	dg.UseNumber()
	dw.UseNumber()
	var p jsonPath
	for {
		tg, eg := dg.Token()
		tw, ew := dw.Token()
		if eg == io.EOF && ew == io.EOF {
			return ""
		}
		if eg != nil || ew != nil {
			return fmt.Sprintf("at %s: reading tokens: got %v, want %v", p, eg, ew)
		}
		if !sameToken(tg, tw) {
			return fmt.Sprintf("at %s: got %v, want %v", p, tg, tw)
		}
		p.step(tw)
	}
}

func sameToken(a, b json.Token) bool {
	na, okA := a.(json.Number)
	nb, okB := b.(json.Number)
	if !okA || !okB {
		return a == b
	}
	isInt := func(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }
	if isInt(na) && isInt(nb) {
		return na == nb
	}
	fa, errA := strconv.ParseFloat(string(na), 64)
	fb, errB := strconv.ParseFloat(string(nb), 64)
	return errA == nil && errB == nil && math.Float64bits(fa) == math.Float64bits(fb)
}

// jsonPath follows a token stream to name where a difference is
// ("pose.covariance[3]").
type jsonPath struct {
	frames []jsonFrame
}

type jsonFrame struct {
	object bool
	key    string
	index  int
	inKey  bool // object: the next token is a key
}

func (p *jsonPath) step(tok json.Token) {
	n := len(p.frames)
	if n > 0 && p.frames[n-1].object && p.frames[n-1].inKey {
		if k, ok := tok.(string); ok {
			p.frames[n-1].key = k
			p.frames[n-1].inKey = false
			return
		}
	}
	switch tok {
	case json.Delim('{'):
		p.frames = append(p.frames, jsonFrame{object: true, inKey: true})
		return
	case json.Delim('['):
		p.frames = append(p.frames, jsonFrame{index: 0})
		return
	case json.Delim('}'), json.Delim(']'):
		p.frames = p.frames[:n-1]
		n--
	}
	// a value ended: advance the enclosing container
	if n > 0 {
		f := &p.frames[n-1]
		if f.object {
			f.inKey = true
		} else {
			f.index++
		}
	}
}

func (p jsonPath) String() string {
	var b strings.Builder
	for _, f := range p.frames {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	if b.Len() == 0 {
		return "top"
	}
	return b.String()
}
