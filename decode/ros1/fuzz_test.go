package ros1

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/internal/testkit/deffuzz"
	"github.com/baglab/baglab/record"
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
		before := d.InvalidUTF8()
		err := d.Decode(data, w)
		invalid := d.InvalidUTF8() > before
		if err != nil {
			var re *record.Error
			if !errors.As(err, &re) || re.Offset < 0 || re.Offset > int64(len(data)) {
				t.Fatalf("error %v", err)
			}
			for _, cause := range []error{record.ErrTruncated, record.ErrLength, record.ErrTrailing} {
				if errors.Is(err, cause) {
					return
				}
			}
			t.Fatalf("unexpected cause: %v", err)
		}
		if !json.Valid(w.JSON()) {
			t.Fatalf("invalid JSON %s", w.JSON())
		}
		if bad := d.CheckUTF8(data); (bad != nil) != invalid || (bad != nil && !errors.Is(bad, record.ErrBadUTF8)) {
			t.Fatalf("CheckUTF8 %v, but Decode counted invalid UTF-8: %v", bad, invalid)
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
// them (names not in the text come from the registry of known types): one
// that parses compiles or gives an error, never a panic; a
// message generated for it decodes to valid JSON, and the message cut by
// a byte gives a *record.Error.
func FuzzDefinition(f *testing.F) {
	for _, def := range deffuzz.Seeds(msgdef.ROS1) {
		f.Add(def, uint64(1))
	}
	f.Add("geometry_msgs/PoseStamped p\nsensor_msgs/PointField[] fields\n", uint64(2))
	f.Fuzz(func(t *testing.T, def string, seed uint64) {
		typ, ok := deffuzz.Parse("fuzz/T", "ros1msg", def)
		if !ok {
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
		deffuzz.CheckMessage(t, def, d, data, false)
	})
}
