package cdr

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// sep separates the definitions of a MSG: bundle.
const sep = "================================================================================\n"

func mustType(t testing.TB, name, text string) *msgdef.Type {
	t.Helper()
	typ, err := msgdef.ParseBundle(name, text, msgdef.ROS2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

func mustCompile(t testing.TB, typ *msgdef.Type) *Decoder {
	t.Helper()
	d, err := Compile(typ)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// queryEventType is remap_msgs/Query_Event built from the golden bundle.
func queryEventType(t testing.TB) *msgdef.Type {
	b, err := os.ReadFile(filepath.Join(goldenDir, "remap_msgs__Query_Event.r1.msg"))
	if err != nil {
		t.Fatal(err)
	}
	return mustType(t, "remap_msgs/Query_Event", string(b))
}

func checkErr(t *testing.T, err error, sentinel error, offset int64, field string) {
	t.Helper()
	var e *record.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a *record.Error", err)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("got %v, want %v", err, sentinel)
	}
	if offset >= -1 && e.Offset != offset {
		t.Errorf("offset %d, want %d (%v)", e.Offset, offset, err)
	}
	if e.Field != field {
		t.Errorf("field %q, want %q (%v)", e.Field, field, err)
	}
}

func TestHeader(t *testing.T) {
	d := mustCompile(t, mustType(t, "t/T", "uint8 x\n"))
	for _, c := range []struct {
		name     string
		data     []byte
		sentinel error
	}{
		{"empty", nil, record.ErrTruncated},
		{"short", []byte{0, 1, 0}, record.ErrTruncated},
		{"PL_CDR_BE", []byte{0, 2, 0, 0, 7}, record.ErrUnsupported},
		{"PL_CDR_LE", []byte{0, 3, 0, 0, 7}, record.ErrUnsupported},
		{"CDR2_LE", []byte{0, 7, 0, 0, 7}, record.ErrUnsupported},
		{"D_CDR2_BE", []byte{0, 8, 0, 0, 7}, record.ErrUnsupported},
		{"PL_CDR2_LE", []byte{0, 0x0b, 0, 0, 7}, record.ErrUnsupported},
		{"ENC_HEADER CDR2", []byte{0, 0x11, 0, 0, 7}, record.ErrUnsupported},
		{"unknown", []byte{0, 5, 0, 0, 7}, record.ErrFormat},
		{"unknown high byte", []byte{1, 1, 0, 0, 7}, record.ErrFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, d.Decode(c.data, sink.Discard), c.sentinel, 0, "")
		})
	}
	for _, data := range [][]byte{{0, 0, 0, 0, 7}, {0, 1, 0, 0, 7}} {
		v, err := d.DecodeValue(data)
		if err != nil || v.Fields[0] != uint64(7) {
			t.Fatalf("% x: %v %v", data, v, err)
		}
	}
}

func TestTrailing(t *testing.T) {
	d := mustCompile(t, mustType(t, "t/T", "uint8 x\n"))
	for _, c := range []struct {
		data []byte
		ok   bool
	}{
		{[]byte{0, 1, 0, 0, 7}, true},
		{[]byte{0, 1, 0, 0, 7, 0}, true},
		{[]byte{0, 1, 0, 0, 7, 0, 0, 0}, true},
		{[]byte{0, 1, 0, 0, 7, 0, 0, 0, 0}, false}, // 4 bytes is not padding
		{[]byte{0, 1, 0, 0, 7, 9}, false},          // non-zero, not announced
		{[]byte{0, 1, 0, 1, 7, 9}, true},           // options announce 1 padding byte
		{[]byte{0, 1, 0, 3, 7, 1, 2, 3}, true},     // options announce 3
		{[]byte{0, 1, 0, 2, 7, 1, 2, 3}, false},    // options say 2, there are 3
	} {
		err := d.Decode(c.data, sink.Discard)
		if c.ok && err != nil {
			t.Errorf("% x: %v", c.data, err)
		}
		if !c.ok {
			checkErr(t, err, record.ErrTrailing, 5, "")
		}
	}
}

func TestStringErrors(t *testing.T) {
	d := mustCompile(t, mustType(t, "t/T", "uint8 a\nstring s\n"))
	hdr := []byte{0, 1, 0, 0, 9, 0, 0, 0}
	cat := func(b ...[]byte) []byte {
		out := append([]byte{}, hdr...)
		for _, x := range b {
			out = append(out, x...)
		}
		return out
	}
	// count 0 is tolerated as ""
	v, err := d.DecodeValue(cat([]byte{0, 0, 0, 0}))
	if err != nil || v.Fields[1] != "" {
		t.Fatalf("count 0: %v %v", v, err)
	}
	checkErr(t, d.Decode(cat([]byte{3, 0, 0, 0, 'a', 'b', 'c'}), sink.Discard), record.ErrFormat, 14, "s")
	checkErr(t, d.CheckUTF8(cat([]byte{3, 0, 0, 0, 'a', 0xff, 0})), record.ErrBadUTF8, 12, "s")
	if v, err := d.DecodeValue(cat([]byte{3, 0, 0, 0, 'a', 0xff, 0})); err != nil || v.Fields[1] != "a\uFFFD" {
		t.Errorf("invalid UTF-8: %v %v, want U+FFFD in its place", v, err)
	}
	checkErr(t, d.Decode(cat([]byte{30, 0, 0, 0, 'a', 0}), sink.Discard), record.ErrLength, 8, "s")
	checkErr(t, d.Decode(cat([]byte{0xff, 0xff, 0xff, 0xff, 'a', 0}), sink.Discard), record.ErrLength, 8, "s")
	checkErr(t, d.Decode(cat([]byte{1, 0}), sink.Discard), record.ErrTruncated, 8, "s")
}

// TestErrorPath checks the field path and offset of an error deep inside a
// service event: the third pattern of the first request is cut short.
func TestErrorPath(t *testing.T) {
	typ := queryEventType(t)
	d := mustCompile(t, typ)
	req := typ.Field("request").Msg
	dur := req.Field("duration").Msg
	info := typ.Field("info").Msg
	ev := &value.Struct{Type: typ, Fields: []any{
		&value.Struct{Type: info, Fields: []any{uint64(1),
			&value.Struct{Type: info.Field("stamp").Msg, Fields: []any{int64(5), uint64(6)}},
			make([]byte, 16), int64(42)}},
		[]any{&value.Struct{Type: req, Fields: []any{
			[]any{"?a", "?b", "?c rdf:type ?d"}, []any{}, []any{"m"}, true,
			&value.Struct{Type: dur, Fields: []any{int64(1), uint64(2)}},
			&value.Struct{Type: dur, Fields: []any{int64(3), uint64(4)}},
			false, "id"}}},
		[]any{},
	}}
	data, err := Encode(ev, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.DecodeValue(data)
	if err != nil || !equalValue(got, ev) {
		t.Fatalf("round trip: %v", err)
	}
	// info: 1 + 3 pad + 8 + 16 + int64 at body 32 -> 40; request count 44;
	// patterns count 48; "?a" 48+4+3=55, pad to 56, "?b" 56..63, third count at 64.
	third := headerSize + 64
	if got := string(data[third+4 : third+4+14]); got != "?c rdf:type ?d" {
		t.Fatalf("third pattern at the wrong offset: %q", got)
	}
	checkErr(t, d.Decode(data[:third+4+10], sink.Discard), record.ErrLength, int64(third), "request[0].patterns[2]")
	huge := append([]byte{}, data...)
	huge[third+3] = 0x7f
	checkErr(t, d.Decode(huge, sink.Discard), record.ErrLength, int64(third), "request[0].patterns[2]")
	bad := append([]byte{}, data...)
	bad[third+4+2] = 0xc3 // "?c" -> invalid UTF-8 continuation
	bad[third+4+3] = 0x28
	checkErr(t, d.CheckUTF8(bad), record.ErrBadUTF8, int64(third+4), "request[0].patterns[2]")
	if err := d.Decode(bad, sink.Discard); err != nil {
		t.Errorf("invalid UTF-8 decodes, with U+FFFD: %v", err)
	}
	noNUL := append([]byte{}, data...)
	noNUL[third+4+14] = '!'
	checkErr(t, d.Decode(noNUL, sink.Discard), record.ErrFormat, int64(third+4+14), "request[0].patterns[2]")
	// A nested struct: cut inside info.stamp.nanosec.
	checkErr(t, d.Decode(data[:headerSize+10], sink.Discard), record.ErrTruncated, headerSize+8, "info.stamp.nanosec")
	// The request count itself says 2 where only one fits.
	two := append([]byte{}, data...)
	two[headerSize+40] = 200
	checkErr(t, d.Decode(two, sink.Discard), record.ErrLength, headerSize+40, "request")
}

// TestHugeCounts: a count near 2^32 fails with ErrLength before anything is
// allocated or sent to the sink.
func TestHugeCounts(t *testing.T) {
	for _, c := range []struct{ field, text string }{
		{"a", "int64[] a\n"},
		{"a", "string[] a\n"},
		{"a", "uint8[] a\n"},
		{"a", "Item[] a\n" + sep + "MSG: t/Item\nstring s\nfloat64 x\n"},
		{"a", "Empty[] a\n" + sep + "MSG: t/Empty\n"},
		{"a", "Zero[] a\n" + sep + "MSG: t/Zero\nint32[0] none\n"},
		{"a", "bool[] a\n"},
		{"a", "wstring[] a\n"},
		{"a", "wstring a\n"},
		{"a", "string a\n"},
	} {
		d := mustCompile(t, mustType(t, "t/T", c.text))
		data := []byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}
		rec := recSink{Sink: sink.Discard}
		checkErr(t, d.Decode(data, &rec), record.ErrLength, 4, c.field)
		if rec.arrays != 0 {
			t.Errorf("%s: BeginArray called before the count was checked", c.text)
		}
		allocs := testing.AllocsPerRun(20, func() { _, _ = d.DecodeValue(data) })
		if allocs > 20 {
			t.Errorf("%s: %.0f allocs for a hostile count", c.text, allocs)
		}
	}
}

// TestZeroSizeElements: elements that take no bytes (messages holding only
// zero-length arrays) are bounded by the message's budget, as in the ROS1
// decoder: a few may come, a hostile count or a definition of a huge fixed
// array of them is an error at once (it divided by zero before).
func TestZeroSizeElements(t *testing.T) {
	zero := sep + "MSG: t/Zero\nint32[0] none\n"
	seq := mustCompile(t, mustType(t, "t/T", "Zero[] a\nuint8 after\n"+zero))
	v, err := seq.DecodeValue([]byte{0, 1, 0, 0, 3, 0, 0, 0, 7})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.Fields[0].([]any)); got != 3 || v.Fields[1] != uint64(7) {
		t.Errorf("3 zero-size elements then 7: got %d elements, after %v", got, v.Fields[1])
	}
	checkErr(t, seq.Decode([]byte{0, 1, 0, 0, 0, 0, 2, 0, 7}, sink.Discard), record.ErrLength, 4, "a")
	fixed := mustCompile(t, mustType(t, "t/F", "Zero[1000000] a\n"+zero))
	checkErr(t, fixed.Decode([]byte{0, 1, 0, 0}, sink.Discard), record.ErrLength, 4, "a")
}

// recSink counts BeginArray calls.
type recSink struct {
	sink.Sink
	arrays int
}

func (r *recSink) BeginArray(*msgdef.Field, int) { r.arrays++ }

func TestCompileErrors(t *testing.T) {
	rec := &msgdef.Type{Name: "t/Rec"}
	rec.Fields = []msgdef.Field{{Name: "self", Kind: msgdef.Struct, Msg: rec}}
	for name, typ := range map[string]*msgdef.Type{
		"nil":        nil,
		"recursive":  rec,
		"unresolved": {Name: "t/U", Fields: []msgdef.Field{{Name: "x", Kind: msgdef.Struct, TypeName: "Nope"}}},
		"invalid":    {Name: "t/I", Fields: []msgdef.Field{{Name: "x", Kind: msgdef.Invalid}}},
		"array kind": {Name: "t/A", Fields: []msgdef.Field{{Name: "x", Kind: msgdef.Int8, Array: 9}}},
	} {
		if _, err := Compile(typ); err == nil {
			t.Errorf("%s: compiled", name)
		}
	}
}
