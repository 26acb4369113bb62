package sink_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
)

func field(name string, k msgdef.Kind, a msgdef.ArrayKind) *msgdef.Field {
	return &msgdef.Field{Name: name, Kind: k, Array: a}
}

var (
	fF32   = field("f32", msgdef.Float32, msgdef.Scalar)
	fF64   = field("f64", msgdef.Float64, msgdef.Scalar)
	fStr   = field("s", msgdef.String, msgdef.Scalar)
	fBlob  = field("data", msgdef.Uint8, msgdef.Sequence)
	fTime  = field("stamp", msgdef.Time, msgdef.Scalar)
	fDur   = field("d", msgdef.Duration, msgdef.Scalar)
	fI64   = field("i64", msgdef.Int64, msgdef.Scalar)
	fU64   = field("u64", msgdef.Uint64, msgdef.Scalar)
	fBool  = field("ok", msgdef.Bool, msgdef.Scalar)
	fF32s  = field("v", msgdef.Float32, msgdef.Sequence)
	fPts   = field("pts", msgdef.Struct, msgdef.Sequence)
	fPos   = field("position", msgdef.Struct, msgdef.Scalar)
	fEmpty = field("none", msgdef.Int32, msgdef.Fixed)
	tMsg   = &msgdef.Type{Name: "test/T"}
)

// render runs events between BeginMessage and EndMessage.
func render(events func(w *sink.JSONWriter)) string {
	w := sink.NewJSONWriter()
	w.BeginMessage(tMsg)
	events(w)
	w.EndMessage()
	return string(w.JSON())
}

func TestJSONWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events func(w *sink.JSONWriter)
		want   string
	}{
		{"empty message", func(w *sink.JSONWriter) {}, `{}`},
		{"float32 shortest", func(w *sink.JSONWriter) {
			w.Float(fF32, float64(float32(0.1)))
		}, `{"f32":0.1}`},
		{"float64 shortest", func(w *sink.JSONWriter) {
			w.Float(fF64, float64(float32(0.1)))
		}, `{"f64":0.10000000149011612}`},
		{"non-finite floats", func(w *sink.JSONWriter) {
			w.BeginArray(fF32s, 4)
			w.Float(fF32s, math.NaN())
			w.Float(fF32s, math.Inf(1))
			w.Float(fF32s, math.Inf(-1))
			w.Float(fF32s, math.Copysign(0, -1))
			w.EndArray()
		}, `{"v":["NaN","Infinity","-Infinity",-0]}`},
		{"absent values", func(w *sink.JSONWriter) {
			w.BeginStruct(fPos)
			w.Null(fF64)
			w.Float(fF64, math.NaN())
			w.EndStruct()
			w.BeginArray(fF32s, 2)
			w.Null(fF32s)
			w.Float(fF32s, 1)
			w.EndArray()
		}, `{"position":{"f64":null,"f64":"NaN"},"v":[null,1]}`},
		{"exponents", func(w *sink.JSONWriter) {
			w.Float(fF64, 1e21)
			w.Float(fF64, 1e-7)
			w.Float(fF32, 1e20)
			w.Float(fF64, 123456789)
		}, `{"f64":1e+21,"f64":1e-7,"f32":100000000000000000000,"f64":123456789}`},
		{"exact 64-bit integers", func(w *sink.JSONWriter) {
			w.Int(fI64, math.MinInt64)
			w.Uint(fU64, math.MaxUint64)
		}, `{"i64":-9223372036854775808,"u64":18446744073709551615}`},
		{"escaping", func(w *sink.JSONWriter) {
			w.String(fStr, []byte("a\"b\\c\n\r\t\b\f\x00\x1f\x7f</script>&"))
		}, `{"s":"a\"b\\c\n\r\t\b\f\u0000\u001f` + "\x7f" + `</script>&"}`},
		{"unicode passes through", func(w *sink.JSONWriter) {
			w.String(fStr, []byte("héllo 日本 🤖 \u2028"))
		}, `{"s":"héllo 日本 🤖 ` + "\u2028" + `"}`},
		{"base64 blobs", func(w *sink.JSONWriter) {
			w.Bytes(fBlob, []byte{0, 1, 2, 0xff})
			w.Bytes(fBlob, []byte{})
			w.Bytes(fBlob, []byte{'a'})
		}, `{"data":"AAEC/w==","data":"","data":"YQ=="}`},
		{"time and duration", func(w *sink.JSONWriter) {
			w.Time(fTime, 4294967295, 999999999)
			w.Time(fDur, -2, -5)
		}, `{"stamp":{"sec":4294967295,"nsec":999999999},"d":{"sec":-2,"nsec":-5}}`},
		{"nesting", func(w *sink.JSONWriter) {
			w.Bool(fBool, true)
			w.BeginStruct(fPos)
			w.Float(fF64, 1)
			w.EndStruct()
			w.BeginArray(fPts, 2)
			w.BeginStruct(fPts)
			w.EndStruct()
			w.BeginStruct(fPts)
			w.Bool(fBool, false)
			w.EndStruct()
			w.EndArray()
			w.BeginArray(fEmpty, 0)
			w.EndArray()
		}, `{"ok":true,"position":{"f64":1},"pts":[{},{"ok":false}],"none":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(tc.events)
			if got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}

// TestJSONFloatMatchesEncodingJSON: every finite float formats exactly as
// encoding/json formats a float64 or float32 of the same value.
func TestJSONFloatMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, 1, -1, 0.1, 1e-6, 9.99e-7, 1e21, 9.99e20, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.MaxFloat32, math.SmallestNonzeroFloat32, 123.456, -7.25e-300, 1 << 53, 1<<53 + 2, -(1 << 53),
		1<<53 - 1, 1 << 24, 1<<24 + 2, 1<<24 - 1, -(1 << 24), 123456789, 1e15, 1e16, 9.2e18, 1e20, -1, 2, 1e6}
	for range 5000 {
		vals = append(vals, math.Float64frombits(r.Uint64()), float64(math.Float32frombits(r.Uint32())), r.NormFloat64()*1e4,
			float64(r.Int64N(1<<55)-1<<54), float64(r.Int32N(1<<26)-1<<25))
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		want, _ := json.Marshal(v)
		if got := sink.AppendJSONFloat(nil, v, 64); string(got) != string(want) {
			t.Fatalf("float64 %v: got %s want %s", v, got, want)
		}
		f32 := float32(v)
		if math.IsInf(float64(f32), 0) {
			continue
		}
		want, _ = json.Marshal(f32)
		if got := sink.AppendJSONFloat(nil, float64(f32), 32); string(got) != string(want) {
			t.Fatalf("float32 %v: got %s want %s", f32, got, want)
		}
	}
}

// TestJSONStringRoundTrip: escaped strings parse back to the original.
func TestJSONStringRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := r.IntN(40)
		rs := make([]rune, n)
		for i := range rs {
			switch r.IntN(4) {
			case 0:
				rs[i] = rune(r.IntN(0x80))
			case 1:
				rs[i] = rune(r.IntN(0x20))
			default:
				rs[i] = rune(r.IntN(0x10ffff))
				if rs[i] >= 0xd800 && rs[i] < 0xe000 {
					rs[i] = 'x'
				}
			}
		}
		s := string(rs)
		for _, out := range []string{
			string(sink.AppendJSONString(nil, s)),
			render(func(w *sink.JSONWriter) { w.String(fStr, []byte(s)) }),
		} {
			if strings.HasPrefix(out, "{") {
				var m map[string]string
				if err := json.Unmarshal([]byte(out), &m); err != nil || m["s"] != s {
					t.Fatalf("%q -> %s (%v)", s, out, err)
				}
				continue
			}
			var back string
			if err := json.Unmarshal([]byte(out), &back); err != nil || back != s {
				t.Fatalf("%q -> %s (%v)", s, out, err)
			}
		}
	}
	if got := string(sink.AppendJSONString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestJSONBlobDecodes(t *testing.T) {
	blob := make([]byte, 1000)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(render(func(w *sink.JSONWriter) { w.Bytes(fBlob, blob) })), &m); err != nil {
		t.Fatal(err)
	}
	back, err := base64.StdEncoding.DecodeString(m["data"])
	if err != nil || string(back) != string(blob) {
		t.Fatalf("blob round trip: %v", err)
	}
}

// warmBlob is a blob on the heap, as a message's data is: the vectorised
// base64 encoder's arguments escape, so a literal would be allocated.
var warmBlob = []byte{1, 2, 3}

func TestJSONWriterNoAllocs(t *testing.T) {
	w := sink.NewJSONWriter()
	run := func() {
		w.Reset()
		w.BeginMessage(tMsg)
		w.Float(fF32, 0.25)
		w.String(fStr, []byte("frame"))
		w.Bytes(fBlob, warmBlob)
		w.Time(fTime, 1, 2)
		w.BeginArray(fPts, 1)
		w.BeginStruct(fPts)
		w.Int(fI64, -1)
		w.EndStruct()
		w.EndArray()
		w.EndMessage()
	}
	run()
	if a := testing.AllocsPerRun(100, run); a != 0 {
		t.Errorf("%v allocs per message once warm", a)
	}
}

// TestJSONOddFieldNames: names that need escaping still give valid JSON.
func TestJSONOddFieldNames(t *testing.T) {
	got := render(func(w *sink.JSONWriter) {
		w.Bool(field(`a"b`, msgdef.Bool, msgdef.Scalar), true)
		w.Bool(field("é\n", msgdef.Bool, msgdef.Scalar), false)
	})
	if want := `{"a\"b":true,"é\n":false}`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

// TestJSONWriterFloatCache checks that repeated values (served from the
// writer's cache) are written exactly as AppendJSONFloat writes them, for
// float32 and float64 fields sharing values and cache slots.
func TestJSONWriterFloatCache(t *testing.T) {
	f32 := &msgdef.Field{Name: "a", Kind: msgdef.Float32}
	f64 := &msgdef.Field{Name: "a", Kind: msgdef.Float64}
	r := rand.New(rand.NewPCG(3, 4))
	var vals []float64
	for i := 0; i < 2000; i++ {
		vals = append(vals, r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)))
		vals = append(vals, float64(float32(r.Float64())))
	}
	vals = append(vals, 0, math.Copysign(0, -1), 0.1, 1e21, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64)
	w := sink.NewJSONWriter()
	for round := 0; round < 3; round++ {
		for i, v := range vals {
			f, bits := f64, 64
			if (i+round)%2 == 1 {
				f, bits = f32, 32
			}
			w.Reset()
			w.Float(f, v)
			want := `"a":` + string(sink.AppendJSONFloat(nil, v, bits)) + ","
			if got := string(w.JSON()); got != want {
				t.Fatalf("%v as float%d: got %s, want %s", v, bits, got, want)
			}
		}
	}
}

// TestJSONWriterKeys checks keys written in place against AppendJSONString,
// for plain names and names that need escaping or are not ASCII.
func TestJSONWriterKeys(t *testing.T) {
	w := sink.NewJSONWriter()
	for _, name := range []string{"x", "reference_frame_id", "a\"b", "back\\slash", "tab\there", "caf\u00e9", "bad\xffutf8", ""} {
		f := &msgdef.Field{Name: name, Kind: msgdef.Int32}
		w.Reset()
		w.Int(f, 7)
		want := string(sink.AppendJSONString(nil, name)) + ":7,"
		if got := string(w.JSON()); got != want {
			t.Errorf("key %q: got %s, want %s", name, got, want)
		}
	}
}

// TestJSONWriterKeyCache checks that keys served from the writer's key
// cache are the fields' own: more fields than the cache has slots, written
// again and again in changing orders, so that entries are hit, collide and
// are evicted.
func TestJSONWriterKeyCache(t *testing.T) {
	var fields []*msgdef.Field
	for i := 0; i < 2000; i++ {
		name := fmt.Sprintf("f%d", i)
		if i%7 == 0 {
			name += "\"q"
		}
		fields = append(fields, &msgdef.Field{Name: name, Kind: msgdef.Int32})
	}
	r := rand.New(rand.NewPCG(5, 6))
	w := sink.NewJSONWriter()
	for round := 0; round < 4; round++ {
		for _, i := range r.Perm(len(fields)) {
			f := fields[i]
			w.Reset()
			w.Int(f, 7)
			if got, want := string(w.JSON()), string(sink.AppendJSONString(nil, f.Name))+":7,"; got != want {
				t.Fatalf("round %d, field %d: got %s, want %s", round, i, got, want)
			}
		}
	}
}

// TestAppendBase64 checks the vectorised encoder against encoding/base64
// at every length around its block sizes, appended after existing bytes.
func TestAppendBase64(t *testing.T) {
	src := make([]byte, 1100)
	for i := range src {
		src[i] = byte(i*131 + i>>3)
	}
	for n := 0; n <= len(src); n++ {
		got := sink.AppendBase64([]byte("x"), src[:n])
		if want := "x" + base64.StdEncoding.EncodeToString(src[:n]); string(got) != want {
			t.Fatalf("length %d: %q, want %q", n, got, want)
		}
	}
}
