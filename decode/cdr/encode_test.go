package cdr

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// TestWString checks the wstring layout against bytes laid out by hand from
// the Fast-CDR 2 / Cyclone convention (the npm peer has no wstring support):
// uint32 count of UTF-16 units, then the units, no terminator.
func TestWString(t *testing.T) {
	typ := mustType(t, "t/W", "uint8 a\nwstring w\nwstring[] ws\nuint8 z\n")
	d := mustCompile(t, typ)
	le := []byte{0, 1, 0, 0,
		7, 0, 0, 0, // a + pad
		4, 0, 0, 0, 'a', 0, 0xe9, 0, 0x3e, 0xd8, 0x16, 0xdd, // "aé🤖": a, é, surrogate pair
		2, 0, 0, 0, // ws count
		0, 0, 0, 0, // ""
		1, 0, 0, 0, 'x', 0, // "x"
		9}
	be := []byte{0, 0, 0, 0,
		7, 0, 0, 0,
		0, 0, 0, 4, 0, 'a', 0, 0xe9, 0xd8, 0x3e, 0xdd, 0x16,
		0, 0, 0, 2,
		0, 0, 0, 0,
		0, 0, 0, 1, 0, 'x',
		9}
	want := &value.Struct{Type: typ, Fields: []any{uint64(7), "aé🤖", []any{"", "x"}, uint64(9)}}
	for _, c := range []struct {
		data []byte
		be   bool
	}{{le, false}, {be, true}} {
		v, err := d.DecodeValue(c.data)
		if err != nil {
			t.Fatal(err)
		}
		if !equalValue(v, want) {
			t.Fatalf("got %v", v.Fields)
		}
		enc, err := Encode(v, c.be)
		if err != nil || !bytes.Equal(enc, c.data) {
			t.Fatalf("encode: %v\n got % x\nwant % x", err, enc, c.data)
		}
	}
	lone := append([]byte{}, le...)
	lone[18], lone[19] = 'b', 0 // high surrogate followed by 'b'
	checkErr(t, d.CheckUTF8(lone), record.ErrBadUTF8, 16, "w")
	low := append([]byte{}, le...)
	low[12], low[13] = 0x16, 0xdd // a lone low surrogate first
	checkErr(t, d.CheckUTF8(low), record.ErrBadUTF8, 12, "w")
	// Decoded, an unpaired surrogate reads as U+FFFD, as TextDecoder
	// ("utf-16le") reads it, and the message is counted.
	for _, c := range []struct {
		data []byte
		want string
	}{{lone, "aé\uFFFDb"}, {low, "\uFFFDé🤖"}} {
		before := d.InvalidUTF8()
		v, err := d.DecodeValue(c.data)
		if err != nil || v.Fields[1] != c.want || d.InvalidUTF8() != before+1 {
			t.Errorf("decoded %v (%v), want %q counted", v, err, c.want)
		}
	}
	if err := d.CheckUTF8(le); err != nil {
		t.Errorf("CheckUTF8 of a valid message: %v", err)
	}
}

// TestBounds: the decoder reads over-bound data as recorded; the encoder
// refuses it with a *value.PathError naming the field.
func TestBounds(t *testing.T) {
	typ := mustType(t, "t/B", "string<=3 s\nint32[<=2] a\nItem[<=2] items\nwstring<=2 w\nuint8[3] fixed\n"+
		sep+"MSG: t/Item\nstring<=2[<=3] names\n")
	d := mustCompile(t, typ)
	item := func(names ...any) *value.Struct {
		return &value.Struct{Type: typ.Field("items").Msg, Fields: []any{names}}
	}
	ok := &value.Struct{Type: typ, Fields: []any{"abc", []any{int64(1), int64(2)}, []any{item("ab")}, "é🤖"[:2], []byte{1, 2, 3}}}
	if _, err := Encode(ok, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mod  func(v *value.Struct)
		path string
	}{
		{"string", func(v *value.Struct) { v.Fields[0] = "abcd" }, "s"},
		{"sequence", func(v *value.Struct) { v.Fields[1] = []any{int64(1), int64(2), int64(3)} }, "a"},
		{"nested string", func(v *value.Struct) { v.Fields[2] = []any{item("ab"), item("a", "abc")} }, "items[1].names[1]"},
		{"nested sequence", func(v *value.Struct) { v.Fields[2] = []any{item("a", "b", "c", "d")} }, "items[0].names"},
		{"wstring units", func(v *value.Struct) { v.Fields[3] = "a🤖" }, "w"},
		{"fixed", func(v *value.Struct) { v.Fields[4] = []byte{1, 2} }, "fixed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := &value.Struct{Type: typ, Fields: append([]any{}, ok.Fields...)}
			c.mod(v)
			buf := []byte("keep")
			out, err := AppendEncode(buf, v, false)
			var pe *value.PathError
			if !errors.As(err, &pe) || !errors.Is(err, value.ErrLength) || pe.Path != c.path {
				t.Fatalf("got %v, want ErrLength at %s", err, c.path)
			}
			if string(out) != "keep" {
				t.Fatalf("buf changed to %q", out)
			}
			if c.name == "fixed" {
				return
			}
			// Lay the over-bound value out without bounds and decode it.
			loose := unbounded(typ)
			lv := &value.Struct{Type: loose, Fields: v.Fields}
			lv.Fields[2] = rebind(v.Fields[2].([]any), loose.Field("items").Msg)
			data, err := Encode(lv, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.DecodeValue(data)
			if err != nil {
				t.Fatalf("decoder rejected over-bound data: %v", err)
			}
			if got.Fields[0] != v.Fields[0] || len(got.Fields[1].([]any)) != len(v.Fields[1].([]any)) {
				t.Fatalf("decoded %v", got.Fields)
			}
		})
	}
	if _, err := Encode(&value.Struct{Type: typ, Fields: []any{int64(1)}}, false); err == nil {
		t.Fatal("encoded a struct with the wrong field count")
	}
	bad := &value.Struct{Type: typ, Fields: append([]any{}, ok.Fields...)}
	bad.Fields[0] = "\xff"
	if _, err := Encode(bad, false); !errors.Is(err, record.ErrBadUTF8) {
		t.Fatalf("invalid UTF-8: %v", err)
	}
	bad.Fields[0] = int64(3)
	if _, err := Encode(bad, false); !errors.Is(err, value.ErrType) {
		t.Fatalf("wrong type: %v", err)
	}
}

// unbounded copies t (and its nested types) with every bound removed.
func unbounded(t *msgdef.Type) *msgdef.Type {
	c := *t
	c.Fields = append([]msgdef.Field{}, t.Fields...)
	for i := range c.Fields {
		f := &c.Fields[i]
		f.StringBound = 0
		if f.Array == msgdef.Sequence {
			f.Len = 0
		}
		if f.Msg != nil {
			f.Msg = unbounded(f.Msg)
		}
	}
	return &c
}

func rebind(a []any, t *msgdef.Type) []any {
	out := make([]any, len(a))
	for i, x := range a {
		s := x.(*value.Struct)
		out[i] = &value.Struct{Type: t, Fields: s.Fields}
	}
	return out
}

// TestRoundTrip: decode(encode(v)) == v for random values of every type in
// the golden corpus, both byte orders, and the encoding is stable.
func TestRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range loadGolden(t) {
		if seen[c.Type] {
			continue
		}
		seen[c.Type] = true
		roundTrip(t, c.t, r)
	}
	roundTrip(t, mustType(t, "t/W", "wstring w\nwstring<=4[] ws\nwstring[2] f\n"), r)
	roundTrip(t, &msgdef.Type{Name: "t/R1", Fields: []msgdef.Field{
		{Name: "t", Kind: msgdef.Time}, {Name: "u", Kind: msgdef.Uint8},
		{Name: "d", Kind: msgdef.Duration, Array: msgdef.Sequence},
		{Name: "b", Kind: msgdef.Int8, Prim: "byte", Array: msgdef.Sequence}}}, r)
}

func roundTrip(t *testing.T, typ *msgdef.Type, r *rand.Rand) {
	t.Helper()
	d := mustCompile(t, typ)
	for i := range 20 {
		v := randomValue(typ, r, 0)
		for _, be := range []bool{false, true} {
			data, err := Encode(v, be)
			if err != nil {
				t.Fatalf("%s: encode: %v", typ.Name, err)
			}
			got, err := d.DecodeValue(data)
			if err != nil {
				t.Fatalf("%s #%d: decode: %v\n% x", typ.Name, i, err, data)
			}
			if !equalValue(got, v) {
				t.Fatalf("%s #%d: round trip differs", typ.Name, i)
			}
			again, _ := Encode(got, be)
			if !bytes.Equal(again, data) {
				t.Fatalf("%s: encoding not stable", typ.Name)
			}
		}
	}
}
