package ros1

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// ros1Types returns every ROS1 type of the default registry.
func ros1Types(t testing.TB) []*msgdef.Type {
	t.Helper()
	reg := msgdef.Default()
	var out []*msgdef.Type
	for _, name := range reg.Names() {
		mt, err := reg.Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%s): %v", name, err)
		}
		if mt.Dialect == msgdef.ROS1 {
			out = append(out, mt)
		}
	}
	if len(out) < 300 {
		t.Fatalf("only %d ROS1 types in the registry", len(out))
	}
	return out
}

func lookup(t testing.TB, name string) *msgdef.Type {
	t.Helper()
	mt, err := msgdef.Default().Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return mt
}

// TestRoundTripRegistry encodes random values of every ROS1 type of the
// registry and checks that decoding gives them back, to the same tree, the
// same bytes and the same JSON as the tree renders, and that every cut of
// the bytes is a clean error.
func TestRoundTripRegistry(t *testing.T) {
	g := newGen(1)
	for _, mt := range ros1Types(t) {
		d, err := Compile(mt)
		if err != nil {
			t.Errorf("Compile(%s): %v", mt.Name, err)
			continue
		}
		for i := range 4 {
			g.special = i == 3
			v := g.message(mt, 0)
			data, err := Encode(v)
			if err != nil {
				t.Fatalf("%s: Encode: %v", mt.Name, err)
			}
			back, err := d.DecodeValue(data)
			if err != nil {
				t.Fatalf("%s: DecodeValue: %v", mt.Name, err)
			}
			if !g.special && !reflect.DeepEqual(back, v) {
				t.Errorf("%s: decoded tree differs from the encoded one", mt.Name)
			}
			again, err := AppendEncode([]byte("prefix"), back)
			if err != nil || !bytes.Equal(again[6:], data) || string(again[:6]) != "prefix" {
				t.Errorf("%s: re-encoding differs (%v)", mt.Name, err)
			}
			w := sink.NewJSONWriter()
			if err := d.Decode(data, w); err != nil {
				t.Fatal(err)
			}
			treeJSON, err := v.MarshalJSON() // not json.Marshal, which escapes U+2028
			if err != nil {
				t.Fatalf("%s: MarshalJSON: %v", mt.Name, err)
			}
			if !bytes.Equal(w.JSON(), treeJSON) || !json.Valid(w.JSON()) {
				t.Errorf("%s: JSON of the wire\n%s\nand of the tree\n%s", mt.Name, w.JSON(), treeJSON)
			}
			if i == 0 {
				checkCutsAll(t, mt.Name, d, data)
			}
		}
	}
}

// checkCutsAll decodes every prefix of data, into each kind of sink in turn.
func checkCutsAll(t *testing.T, name string, d *Decoder, data []byte) {
	t.Helper()
	w := sink.NewJSONWriter()
	sinks := []sink.Sink{sink.Discard, w, value.NewBuilder()}
	step := 1
	if len(data) > 1024 {
		step = len(data) / 512 // every byte of the head and tail, a sample between
	}
	for k := 0; k < len(data); k++ {
		if step > 1 && k > 256 && k < len(data)-256 && k%step != 0 {
			continue
		}
		cut := data[:k:k] // no capacity beyond the cut: reading past it must fail
		w.Reset()
		err := d.Decode(cut, sinks[k%len(sinks)])
		var re *record.Error
		if !errors.As(err, &re) || !(errors.Is(err, record.ErrTruncated) || errors.Is(err, record.ErrLength)) ||
			re.Offset < 0 || re.Offset > int64(k) || re.Field == "" {
			t.Fatalf("%s cut at %d of %d: %v", name, k, len(data), err)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	mt := lookup(t, "interactive_world_msgs/TaskTrainingData")
	v := value.New(mt)
	set := value.New(mt.Fields[0].Msg)
	p := value.New(set.Type.Field("placements").Msg)
	if err := set.Set("placements", []*value.Struct{value.New(p.Type), p}); err != nil {
		t.Fatal(err)
	}
	if err := v.Set("data", []*value.Struct{set}); err != nil {
		t.Fatal(err)
	}
	if _, err := Encode(v); err != nil {
		t.Fatal(err)
	}
	pos, _ := p.Struct("position")
	pos.Fields[0] = float32(1) // not the canonical float64
	buf := []byte("keep")
	out, err := AppendEncode(buf, v)
	var pe *value.PathError
	if !errors.As(err, &pe) || !errors.Is(err, value.ErrType) || pe.Path != "data[0].placements[1].position.x" {
		t.Errorf("got %v", err)
	}
	if string(out) != "keep" {
		t.Errorf("AppendEncode changed the buffer on error: %q", out)
	}
	if _, err := Encode(nil); err == nil {
		t.Error("Encode(nil) succeeded")
	}
}

// TestDecodeValueJSON: DecodeValue's tree marshals to the same JSON as the
// JSON writer, for a message with every kind of field.
func TestDecodeValueKinds(t *testing.T) {
	for _, tc := range decodeCases() {
		d, err := Compile(tc.t)
		if err != nil {
			t.Fatal(err)
		}
		v, err := d.DecodeValue(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w := sink.NewJSONWriter()
		if err := d.Decode(tc.data, w); err != nil {
			t.Fatal(err)
		}
		got, err := v.MarshalJSON()
		if err != nil || !bytes.Equal(got, w.JSON()) {
			t.Errorf("%s: tree JSON %s (%v), wire JSON %s", tc.name, got, err, w.JSON())
		}
		// Encoding the tree gives the input back, except that a bool byte
		// other than 0 and 1 is normalised to 1.
		enc, err := Encode(v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.name != "bool any non-zero byte is true" && !bytes.Equal(enc, tc.data) {
			t.Errorf("%s: re-encoded % x, want % x", tc.name, enc, tc.data)
		}
	}
}

// TestConcurrentDecode: one Decoder serves several goroutines.
func TestConcurrentDecode(t *testing.T) {
	v := benchFactList(t)
	data, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Compile(v.Type)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := v.MarshalJSON()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			w := sink.NewJSONWriter()
			for range 20 {
				w.Reset()
				if err := d.Decode(data, w); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(w.JSON(), want) {
					errs <- errors.New("JSON differs")
					return
				}
				if _, err := d.DecodeValue(data); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
