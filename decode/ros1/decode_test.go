package ros1

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// decodeCase is one hand-built message: its type, its bytes and the events
// it must produce.
type decodeCase struct {
	name  string
	t     *msgdef.Type
	data  []byte
	trace string
}

func decodeCases() []decodeCase {
	var tConst = ty("lama_msgs/LamaObject", fld("id", msgdef.Int32), arr(fld("references", msgdef.Int32), 2), fld("type", msgdef.Int32))
	tConst.Constants = []msgdef.Constant{{Name: "VERTEX", Kind: msgdef.Int32, Prim: "int32", Value: "1"},
		{Name: "EDGE", Kind: msgdef.Int32, Prim: "int32", Value: "2"}}
	tEmpty := ty("std_msgs/Empty")
	return []decodeCase{
		{
			name: "every scalar primitive",
			t: ty("test/Scalars", fld("b", msgdef.Bool), fld("i8", msgdef.Int8), fld("u8", msgdef.Uint8),
				fld("i16", msgdef.Int16), fld("u16", msgdef.Uint16), fld("i32", msgdef.Int32), fld("u32", msgdef.Uint32),
				fld("i64", msgdef.Int64), fld("u64", msgdef.Uint64), fld("f32", msgdef.Float32), fld("f64", msgdef.Float64),
				fld("s", msgdef.String), fld("t", msgdef.Time), fld("d", msgdef.Duration),
				withPrim(fld("by", msgdef.Int8), "byte"), withPrim(fld("ch", msgdef.Uint8), "char")),
			data: wire{}.u8(1).u8(0xff).u8(0xfe).u16(0x8000).u16(0xffff).u32(0x80000000).u32(0xffffffff).
				u64(1 << 63).u64(math.MaxUint64).f32(0.5).f64(-2.25).str("héllo").u32(1700000000).u32(999999999).
				i32(-3).i32(-500).u8(0x80).u8('A'),
			trace: `test/Scalars{ b=true i8=i-1 u8=u254 i16=i-32768 u16=u65535 i32=i-2147483648 u32=u4294967295 ` +
				`i64=i-9223372036854775808 u64=u18446744073709551615 f32=f0.5 f64=f-2.25 s="héllo" t=t1700000000.999999999 ` +
				`d=t-3.-500 by=i-128 ch=u65 }`,
		},
		{
			name:  "bool any non-zero byte is true",
			t:     ty("test/B", fld("a", msgdef.Bool), fld("b", msgdef.Bool)),
			data:  wire{}.u8(0).u8(7),
			trace: "test/B{ a=false b=true }",
		},
		{
			name:  "nested messages",
			t:     ty("geometry_msgs/PoseStamped", sub("header", tHeader), sub("pose", tPose)),
			data:  wire{}.u32(7).u32(10).u32(20).str("map").point(1, 2, 3).f64(0).f64(0).f64(0).f64(1),
			trace: `geometry_msgs/PoseStamped{ header{ seq=u7 stamp=t10.20 frame_id="map" } pose{ position{ x=f1 y=f2 z=f3 } orientation{ x=f0 y=f0 z=f0 w=f1 } } }`,
		},
		{
			name: "sequences of primitives",
			t: ty("test/Seq", arr(fld("i32", msgdef.Int32), -1), arr(fld("f32", msgdef.Float32), -1),
				arr(fld("bools", msgdef.Bool), -1), arr(fld("u16", msgdef.Uint16), -1), arr(fld("i64", msgdef.Int64), -1),
				arr(fld("empty", msgdef.Float64), -1)),
			data: wire{}.u32(3).i32(-1).i32(0).i32(5).u32(2).f32(1.5).f32(-0.25).u32(2).u8(1).u8(0).
				u32(1).u16(65535).u32(1).u64(1 << 63).u32(0),
			trace: "test/Seq{ i32[3 i32=i-1 i32=i0 i32=i5 ] f32[2 f32=f1.5 f32=f-0.25 ] bools[2 bools=true bools=false ] " +
				"u16[1 u16=u65535 ] i64[1 i64=i-9223372036854775808 ] empty[0 ] }",
		},
		{
			name: "fixed arrays of primitives",
			t: ty("test/Fixed", arr(fld("cov", msgdef.Float64), 3), arr(fld("i8", msgdef.Int8), 2),
				arr(fld("u32", msgdef.Uint32), 1), arr(fld("none", msgdef.Int16), 0)),
			data:  wire{}.f64(1).f64(2).f64(3).u8(0xff).u8(1).u32(9),
			trace: "test/Fixed{ cov[3 cov=f1 cov=f2 cov=f3 ] i8[2 i8=i-1 i8=i1 ] u32[1 u32=u9 ] none[0 ] }",
		},
		{
			name: "blobs in one call",
			t: ty("test/Blobs", arr(fld("data", msgdef.Uint8), -1), arr(fld("fixed", msgdef.Uint8), 4),
				arr(withPrim(fld("by", msgdef.Int8), "byte"), -1), arr(withPrim(fld("ch", msgdef.Uint8), "char"), 2),
				arr(fld("empty", msgdef.Uint8), -1)),
			data:  wire{}.u32(3).raw(1, 2, 3).raw(0xde, 0xad, 0xbe, 0xef).u32(1).raw(0x80).raw('h', 'i').u32(0),
			trace: "test/Blobs{ data=x010203 fixed=xdeadbeef by=x80 ch=x6869 empty=x }",
		},
		{
			name: "strings and string arrays",
			t: ty("test/Strings", arr(fld("seq", msgdef.String), -1), arr(fld("fixed", msgdef.String), 2),
				fld("empty", msgdef.String), fld("utf8", msgdef.String)),
			data:  wire{}.u32(2).str("a").str("").str("x").str("yz").str("").str("日本\n"),
			trace: `test/Strings{ seq[2 seq="a" seq="" ] fixed[2 fixed="x" fixed="yz" ] empty="" utf8="日本\n" }`,
		},
		{
			name:  "time[] and duration fixed arrays",
			t:     ty("test/Times", arr(fld("stamps", msgdef.Time), -1), arr(fld("ds", msgdef.Duration), 2)),
			data:  wire{}.u32(2).u32(1).u32(2).u32(4294967295).u32(5).i32(-1).i32(0).i32(3).i32(-4),
			trace: "test/Times{ stamps[2 stamps=t1.2 stamps=t4294967295.5 ] ds[2 ds=t-1.0 ds=t3.-4 ] }",
		},
		{
			name: "arrays of messages",
			t: ty("test/Structs", arr(sub("pts", tPoint), -1), arr(sub("two", tPoint), 2),
				arr(sub("hdrs", tHeader), -1)),
			data: wire{}.u32(1).point(1, 2, 3).point(4, 5, 6).point(7, 8, 9).u32(2).u32(1).u32(0).u32(0).str("a").
				u32(2).u32(3).u32(4).str("bc"),
			trace: "test/Structs{ pts[1 pts{ x=f1 y=f2 z=f3 } ] two[2 two{ x=f4 y=f5 z=f6 } two{ x=f7 y=f8 z=f9 } ] " +
				`hdrs[2 hdrs{ seq=u1 stamp=t0.0 frame_id="a" } hdrs{ seq=u2 stamp=t3.4 frame_id="bc" } ] }`,
		},
		{
			name:  "constants take no bytes",
			t:     tConst,
			data:  wire{}.i32(5).i32(1).i32(2).i32(2),
			trace: "lama_msgs/LamaObject{ id=i5 references[2 references=i1 references=i2 ] type=i2 }",
		},
		{
			name:  "empty message",
			t:     tEmpty,
			data:  nil,
			trace: "std_msgs/Empty{ }",
		},
		{
			name:  "empty nested message and array of them",
			t:     ty("test/HasEmpty", sub("e", tEmpty), arr(sub("es", tEmpty), -1), fld("after", msgdef.Uint8)),
			data:  wire{}.u32(1).u8(9),
			trace: "test/HasEmpty{ e{ } es[1 es{ } ] after=u9 }",
		},
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range decodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compile(tc.t)
			if err != nil {
				t.Fatal(err)
			}
			var tr trace
			if err := d.Decode(tc.data, &tr); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := tr.sb.String(); got != tc.trace {
				t.Errorf("events\n got %s\nwant %s", got, tc.trace)
			}
		})
	}
}

// TestDecodeTruncated cuts every case at every byte: the result must be a
// *record.Error (ErrTruncated or ErrLength) at or before the cut, never a
// panic or success.
func TestDecodeTruncated(t *testing.T) {
	for _, tc := range decodeCases() {
		d, err := Compile(tc.t)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < len(tc.data); k++ {
			err := d.Decode(tc.data[:k], sink.Discard)
			var re *record.Error
			if !errors.As(err, &re) {
				t.Fatalf("%s cut at %d: got %v, want *record.Error", tc.name, k, err)
			}
			if !errors.Is(err, record.ErrTruncated) && !errors.Is(err, record.ErrLength) {
				t.Errorf("%s cut at %d: %v, want truncated or length", tc.name, k, err)
			}
			if re.Offset < 0 || re.Offset > int64(k) || re.Field == "" {
				t.Errorf("%s cut at %d: offset %d field %q", tc.name, k, re.Offset, re.Field)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tPlacement := ty("interactive_world_msgs/Placement", fld("name", msgdef.String), sub("position", tPoint), fld("rotation", msgdef.Float64))
	tSet := ty("interactive_world_msgs/PlacementSet", fld("ref", msgdef.String), arr(sub("placements", tPlacement), -1))
	tData := ty("interactive_world_msgs/TaskTrainingData", arr(sub("data", tSet), -1))
	placement := func(w wire, name string) wire { return w.str(name).point(1, 2, 3).f64(4) }
	// data[0] has one placement; data[1] has two, the second cut inside position.y.
	good := placement(wire{}.u32(2).str("r").u32(1), "a")
	good = placement(good.str("s").u32(2), strings.Repeat("b", 40)) // long enough to pass the count check
	cutAt := len(good) + 4 + 1 + 8 + 3                              // into placements[1].position.y
	full := placement(good, "c")

	tStr := ty("test/S", fld("a", msgdef.Uint8), fld("s", msgdef.String))
	tBlob := ty("test/B", fld("a", msgdef.Uint16), arr(fld("data", msgdef.Uint8), -1))
	tPts := ty("test/P", arr(sub("pts", tPoint), -1))
	tF32 := ty("test/F", arr(fld("v", msgdef.Float32), -1))
	tStrs := ty("test/SS", arr(fld("names", msgdef.String), 3))
	tBounded := ty("test/Bd", msgdef.Field{Name: "b", Kind: msgdef.Int32, Prim: "int32", Array: msgdef.Sequence, Len: 2})
	// Elements of zero size cost no bytes: one message gets a budget of
	// len(data) + maxEmpties of them.
	tEmpty := ty("std_msgs/Empty")
	tEmpties := ty("test/Es", arr(sub("es", tEmpty), -1))
	tNestedEmpties := ty("test/NEs", arr(sub("outer", tEmpties), -1))
	tFixedEmpties := ty("test/FEs", arr(sub("big", ty("test/Big", arr(sub("e", tEmpty), 1<<15))), 3))

	cases := []struct {
		name   string
		t      *msgdef.Type
		data   []byte
		cause  error
		offset int64
		field  string
	}{
		{"truncated deep in nested arrays", tData, full[:cutAt], record.ErrTruncated,
			int64(len(good) + 4 + 1 + 8), "data[1].placements[1].position.y"},
		{"trailing bytes", tData, append(append([]byte{}, full...), 0), record.ErrTrailing, int64(len(full)), ""},
		{"string length beyond end", tStr, wire{}.u8(1).u32(5).raw('a', 'b'), record.ErrLength, 1, "s"},
		{"string length prefix cut", tStr, wire{}.u8(1).raw(5, 0), record.ErrTruncated, 1, "s"},
		{"huge blob length", tBlob, wire{}.u16(1).u32(0xffffffff).raw(1, 2), record.ErrLength, 2, "data"},
		{"huge struct array count", tPts, wire{}.u32(0x10000000).point(1, 2, 3), record.ErrLength, 0, "pts"},
		{"struct array count times min size", tPts, wire{}.u32(2).point(1, 2, 3).raw(make([]byte, 23)...), record.ErrLength, 0, "pts"},
		{"float array count", tF32, wire{}.u32(3).f32(1).f32(2), record.ErrLength, 0, "v"},
		{"fixed string array element", tStrs, wire{}.str("a").str("b").u32(9), record.ErrLength, 10, "names[2]"},
		{"bounded sequence over bound", tBounded, wire{}.u32(3).i32(1).i32(2).i32(3), record.ErrLength, 0, "b"},
		{"empty elements beyond the budget", tEmpties, wire{}.u32(maxEmpties + 9), record.ErrLength, 0, "es"},
		{"nested empty elements beyond the budget", tNestedEmpties,
			wire{}.u32(3).u32(maxEmpties).u32(17).u32(0), record.ErrLength, 8, "outer[1].es"},
		{"fixed empty elements beyond the budget", tFixedEmpties, nil, record.ErrLength, 0, "big[1].e"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compile(tc.t)
			if err != nil {
				t.Fatal(err)
			}
			err = d.Decode(tc.data, sink.Discard)
			var re *record.Error
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want *record.Error", err)
			}
			if !errors.Is(err, tc.cause) || re.Offset != tc.offset || re.Field != tc.field {
				t.Errorf("got cause %v offset %d field %q, want %v %d %q (%v)",
					re.Err, re.Offset, re.Field, tc.cause, tc.offset, tc.field, err)
			}
		})
	}
	// The full message decodes.
	d, _ := Compile(tData)
	if err := d.Decode(full, sink.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestHugeLengthNoAlloc: a hostile length prefix is rejected before anything
// is allocated for it, whatever the sink.
func TestHugeLengthNoAlloc(t *testing.T) {
	tt := ty("test/H", arr(fld("data", msgdef.Uint8), -1), arr(sub("pts", tPoint), -1), fld("s", msgdef.String),
		arr(fld("v", msgdef.Float64), -1))
	d, err := Compile(tt)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{
		wire{}.u32(0xfffffff0),
		wire{}.u32(0).u32(0xfffffff0),
		wire{}.u32(0).u32(0).u32(0xfffffff0),
		wire{}.u32(0).u32(0).u32(0).u32(0xfffffff0),
	} {
		for _, s := range []sink.Sink{sink.Discard, sink.NewJSONWriter(), value.NewBuilder()} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 10 {
				if err := d.Decode(data, s); !errors.Is(err, record.ErrLength) {
					t.Fatalf("got %v", err)
				}
			}
			runtime.ReadMemStats(&after)
			// The errors themselves and the first use of the sink take a few
			// KB; a buffer for the claimed length would take GBs.
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
				t.Errorf("% x into %T: %d bytes allocated", data, s, n)
			}
		}
	}
}

func TestCompileErrors(t *testing.T) {
	loop := ty("test/Loop")
	loop.Fields = []msgdef.Field{sub("self", loop)}
	seqLoop := ty("test/SeqLoop")
	seqLoop.Fields = []msgdef.Field{arr(sub("children", seqLoop), -1)}
	for _, tc := range []struct {
		name string
		t    *msgdef.Type
	}{
		{"nil", nil},
		{"wstring", ty("test/W", msgdef.Field{Name: "w", Kind: msgdef.WString, Prim: "wstring"})},
		{"unresolved", ty("test/U", msgdef.Field{Name: "u", Kind: msgdef.Struct, TypeName: "pkg/Missing"})},
		{"recursive", loop},
		{"recursive through sequence", seqLoop},
	} {
		if _, err := Compile(tc.t); err == nil {
			t.Errorf("%s: compiled", tc.name)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	tt := ty("test/J", sub("header", tHeader), arr(fld("data", msgdef.Uint8), -1), fld("f", msgdef.Float32),
		arr(fld("d", msgdef.Duration), 1), arr(sub("pts", tPoint), -1))
	data := wire{}.u32(1).u32(2).u32(3).str("a\"b").u32(3).raw(1, 2, 3).f32(0.1).i32(-1).i32(5).u32(1).point(0.5, -1, 1e300)
	d, err := Compile(tt)
	if err != nil {
		t.Fatal(err)
	}
	w := sink.NewJSONWriter()
	if err := d.Decode(data, w); err != nil {
		t.Fatal(err)
	}
	want := `{"header":{"seq":1,"stamp":{"sec":2,"nsec":3},"frame_id":"a\"b"},"data":"AQID","f":0.1,` +
		`"d":[{"sec":-1,"nsec":5}],"pts":[{"x":0.5,"y":-1,"z":1e+300}]}`
	if got := string(w.JSON()); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Into a caller's buffer.
	w.Begin([]byte(`{"message":`))
	if err := d.Decode(data, w); err != nil {
		t.Fatal(err)
	}
	if got := string(w.JSON()); got != `{"message":`+want {
		t.Errorf("Begin: %s", got)
	}
}
