package ros1

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/decode/sink"
)

// fuzzTypes are the types FuzzDecode picks from: the hand-built cases of
// every wire kind plus nested registry types.
func fuzzTypes(t testing.TB) []*Decoder {
	var types []*msgdef.Type
	for _, tc := range decodeCases() {
		types = append(types, tc.t)
	}
	for _, name := range []string{"sensor_msgs/PointCloud2", "interactive_world_msgs/TaskTrainingData",
		"toaster_msgs/FactList", "visualization_msgs/MarkerArray", "sensor_msgs/CameraInfo",
		"rail_manipulation_msgs/SegmentedObjectList"} {
		types = append(types, lookup(t, name))
	}
	decs := make([]*Decoder, len(types))
	for i, mt := range types {
		d, err := Compile(mt)
		if err != nil {
			t.Fatal(err)
		}
		decs[i] = d
	}
	return decs
}

// FuzzDecode feeds arbitrary bytes to the decoder of one of fuzzTypes. It
// must never panic; failures are *record.Error values inside the input;
// what decodes renders valid JSON and survives an encode/decode round trip.
func FuzzDecode(f *testing.F) {
	decs := fuzzTypes(f)
	g := newGen(7)
	g.maxSeq = 1 // small seeds keep minimization (O(len²) runs) fast
	for i, tc := range decodeCases() {
		f.Add(uint8(i), tc.data)
	}
	for i := len(decodeCases()); i < len(decs); i++ {
		for added, tries := 0, 0; added < 3 && tries < 50; tries++ {
			data, err := Encode(g.message(decs[i].Type(), 0))
			if err != nil {
				f.Fatal(err)
			}
			if len(data) > 8 || tries > 20 { // prefer non-empty arrays
				f.Add(uint8(i), data)
				added++
			}
		}
	}
	w := sink.NewJSONWriter()
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		d := decs[int(which)%len(decs)]
		w.Reset()
		err := d.Decode(data, w)
		if err != nil {
			var re *record.Error
			if !errors.As(err, &re) || re.Offset < 0 || re.Offset > int64(len(data)) {
				t.Fatalf("error %v", err)
			}
			for _, cause := range []error{record.ErrTruncated, record.ErrLength, record.ErrBadUTF8, record.ErrTrailing} {
				if errors.Is(err, cause) {
					return
				}
			}
			t.Fatalf("unexpected cause: %v", err)
		}
		if !json.Valid(w.JSON()) {
			t.Fatalf("invalid JSON %s", w.JSON())
		}
		first := bytes.Clone(w.JSON())
		v, err := d.DecodeValue(data)
		if err != nil {
			t.Fatalf("DecodeValue failed where Decode did not: %v", err)
		}
		enc, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode of a decoded value: %v", err)
		}
		w.Reset()
		if err := d.Decode(enc, w); err != nil || !bytes.Equal(w.JSON(), first) {
			t.Fatalf("round trip changed the message (%v)", err)
		}
	})
}

// FuzzDefinition compiles arbitrary ROS1 definitions, as recordings carry
// them: one that parses compiles or gives an error, never a panic; a
// message generated for it decodes to valid JSON, and the message cut by
// a byte gives a *record.Error.
func FuzzDefinition(f *testing.F) {
	const sep = "================================================================================\n"
	for _, def := range []string{
		"int32[0] none\nint32 x\n",
		"uint8[0] b\nuint8[3] c\nuint8[] d\nbool[0] e\nchar c2\nbyte b2\n",
		"string[2] names\ntime[] stamps\nduration d\nfloat64[9] cov\n",
		"a/P[] ps\na/P[0] none\nint8 X=3\nstring S=a b\n" + sep + "MSG: a/P\nfloat64 x\na/Q[2] qs\n" + sep + "MSG: a/Q\nstring s\nint16[] v\n",
		"Header header\n" + sep + "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n",
		"a/E e\na/E[] es\n" + sep + "MSG: a/E\n",
	} {
		f.Add(def, uint64(1))
	}
	f.Fuzz(func(t *testing.T, def string, seed uint64) {
		typ, err := msgdef.ParseBundle("fuzz/T", def, msgdef.ROS1, msgdef.NewRegistry())
		if err != nil || fixedValues(typ, 0) > 1<<12 {
			return
		}
		d, err := Compile(typ)
		if err != nil {
			return
		}
		g := newGen(seed)
		g.maxSeq = 2
		data, err := Encode(g.message(typ, 0))
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
		if len(data) == 0 {
			return
		}
		w.Reset()
		var re *record.Error
		if err := d.Decode(data[:len(data)-1], w); !errors.As(err, &re) {
			t.Fatalf("%q: a message cut by a byte: %v", def, err)
		}
	})
}

// fixedValues is about how many values a message of t holds with every
// sequence empty, for leaving huge fixed arrays (and types nested past
// any sense) out of the fuzzer.
func fixedValues(t *msgdef.Type, depth int) int {
	if depth > 32 {
		return 1 << 30
	}
	n := 0
	for i := range t.Fields {
		f := &t.Fields[i]
		each := 1
		if f.Kind == msgdef.Struct && f.Msg != nil {
			each = fixedValues(f.Msg, depth+1)
		}
		if f.Array == msgdef.Fixed {
			each *= f.Len
		}
		n += max(each, 1)
		if n > 1<<20 {
			return n
		}
	}
	return n
}
