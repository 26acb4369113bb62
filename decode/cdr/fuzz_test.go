package cdr

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/decode/sink"
)

// FuzzDecode decodes arbitrary bytes with the decoders of every golden type.
// Errors must be *record.Error; whatever decodes must survive an
// encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	var decs []*Decoder
	index := map[string]uint8{}
	for _, c := range loadGolden(f) {
		i, ok := index[c.Type]
		if !ok {
			i = uint8(len(decs))
			index[c.Type] = i
			decs = append(decs, mustCompile(f, c.t))
		}
		f.Add(i, c.data)
	}
	f.Fuzz(func(t *testing.T, i uint8, data []byte) {
		d := decs[int(i)%len(decs)]
		if err := d.Decode(data, sink.Discard); err != nil {
			var e *record.Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(data))+8 {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		v, err := d.DecodeValue(data)
		if err != nil {
			t.Fatalf("Decode succeeded, DecodeValue failed: %v", err)
		}
		be := len(data) > 1 && data[1] == reprCDRBE
		enc, err := Encode(v, be)
		if err != nil {
			return // over-bound data decodes but does not encode
		}
		again, err := d.DecodeValue(enc)
		if err != nil || !equalValue(again, v) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzDefinition compiles arbitrary ROS2 definitions, as recordings carry
// them: one that parses compiles or gives an error, never a panic; a
// message generated for it, in either byte order, decodes to valid JSON;
// cut by a byte it decodes or gives a *record.Error.
func FuzzDefinition(f *testing.F) {
	for _, def := range []string{
		"int32[0] none\nint32 x\n",
		"uint8[<=3] b\nuint8[3] c\nbyte[] d\nbool[0] e\nchar c2\nwstring w\nstring<=5 s\n",
		"string[2] names\nbuiltin_interfaces/Time[] stamps\nfloat64[9] cov\n" + sep + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
		"a/P[] ps\na/P[<=2] few\nint8 X=3\n" + sep + "MSG: a/P\nfloat64 x\na/Q[2] qs\n" + sep + "MSG: a/Q\nstring s\nint16[] v\n",
		"a/E e\na/E[] es\n" + sep + "MSG: a/E\n",
	} {
		f.Add(def, uint64(1), false)
	}
	f.Fuzz(func(t *testing.T, def string, seed uint64, bigEndian bool) {
		typ, err := msgdef.ParseBundle("fuzz/T", def, msgdef.ROS2, msgdef.NewRegistry())
		if err != nil || maxValues(typ, 0) > 1<<12 {
			return
		}
		d, err := Compile(typ)
		if err != nil {
			return
		}
		data, err := Encode(randomValue(typ, rand.New(rand.NewPCG(seed, seed+1)), 0), bigEndian)
		if err != nil {
			t.Fatalf("encode a message of %q: %v", def, err)
		}
		w := sink.NewJSONWriter()
		if err := d.Decode(data, w); err != nil {
			t.Fatalf("decode a message of %q: %v", def, err)
		}
		if !json.Valid(w.JSON()) {
			t.Fatalf("%q: invalid JSON %s", def, w.JSON())
		}
		w.Reset()
		var re *record.Error
		if err := d.Decode(data[:len(data)-1], w); err != nil && !errors.As(err, &re) {
			t.Fatalf("%q: a message cut by a byte: %v", def, err)
		}
	})
}

// maxValues is about how many values a message of t holds at most with
// the lengths randomValue draws (fixed and bounded arrays up to their
// length, others up to 3), for leaving huge arrays out of the fuzzer.
func maxValues(t *msgdef.Type, depth int) int {
	if depth > 32 {
		return 1 << 30
	}
	n := 0
	for i := range t.Fields {
		fl := &t.Fields[i]
		each := 1
		if fl.Kind == msgdef.Struct && fl.Msg != nil {
			each = maxValues(fl.Msg, depth+1)
		}
		switch {
		case fl.Array == msgdef.Scalar:
		case fl.Len > 0:
			each *= fl.Len
		default:
			each *= 3
		}
		n += max(each, 1)
		if n > 1<<20 {
			return n
		}
	}
	return n
}
