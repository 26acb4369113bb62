package cdr

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/internal/testkit/deffuzz"
	"github.com/baglab/baglab/record"
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
		before := d.InvalidUTF8()
		if err := d.Decode(data, sink.Discard); err != nil {
			var e *record.Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(data))+8 || errors.Is(err, record.ErrBadUTF8) {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		invalid := d.InvalidUTF8() > before
		if bad := d.CheckUTF8(data); (bad != nil) != invalid || (bad != nil && !errors.Is(bad, record.ErrBadUTF8)) {
			t.Fatalf("CheckUTF8 %v, but Decode counted invalid UTF-8: %v", bad, invalid)
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
// them (ros2msg: messages, and services as their _Event types; names not
// in the text come from the registry of known types): one that parses
// compiles or gives an error, never a panic; a message generated for it,
// in either byte order, decodes to valid JSON; cut by a byte it decodes
// or gives a *record.Error.
func FuzzDefinition(f *testing.F) {
	for _, def := range deffuzz.Seeds(msgdef.ROS2) {
		f.Add(def, uint64(1), false, false)
	}
	f.Add("int64 a\nint64 b\n---\nint64 sum\n", uint64(2), true, true)
	f.Add("builtin_interfaces/Time t\ngeometry_msgs/Pose[<=2] poses\n", uint64(3), false, false)
	f.Fuzz(func(t *testing.T, def string, seed uint64, bigEndian, service bool) {
		name := "fuzz/T"
		if service {
			name = "fuzz/srv/S_Event"
		}
		typ, ok := deffuzz.Parse(name, "ros2msg", def)
		if !ok {
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
		deffuzz.CheckMessage(t, def, d, data, true)
	})
}
