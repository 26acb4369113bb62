package tf

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// FuzzLookup drives a Buffer with transforms and lookups drawn from the
// input: nothing panics or hangs, and where a lookup of B in A succeeds,
// that of A in B at the same time succeeds too and undoes it.
func FuzzLookup(f *testing.F) {
	f.Add([]byte("\x00\x01\x10\x20\x30\x40\x01\x02\x11\x21\x31\x41\x02\x00\x12\x22\x32\x42"))
	f.Add([]byte("\x00\x01\x10\x20\x30\x40\x00\x01\x90\x20\x30\x40\x03\x01\x50\x20\x30\x40\x80\x00\x01\x50"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// a parent comes before its child in frames, so that the tree has
		// no loop (tf2's answers on a loop are not inverses)
		frames := []string{"a", "b", "c", "d", "e"}
		b := NewBuffer()
		for len(data) >= 6 {
			op := data[0]
			pi, ci := int(data[1]>>4)%len(frames), int(data[1]&15)%len(frames)
			p, c := frames[pi], frames[ci]
			if op&0x80 == 0 {
				p, c = frames[min(pi, ci)], frames[max(pi, ci)]
				switch op & 6 {
				case 2:
					p = "/" + p
				case 4:
					c = ""
				}
			}
			stamp := int64(binary.LittleEndian.Uint16(data[2:4])) * 1e6
			yaw := float64(data[4]) / 40
			x := float64(int8(data[5]))
			data = data[6:]
			if op&0x80 != 0 {
				if op&0x40 != 0 {
					stamp = 0
				}
				tr, at, err := b.Lookup(p, c, stamp)
				if err != nil {
					continue
				}
				back, at2, err := b.Lookup(c, p, at)
				if err != nil {
					t.Fatalf("%s in %s at %d: %v, but the other way found %v", p, c, at, err, tr)
				}
				if at2 != at {
					t.Fatalf("stamps %d and %d", at, at2)
				}
				id := tr.Compose(back)
				if math.Abs(id.Translation.X)+math.Abs(id.Translation.Y)+math.Abs(id.Translation.Z) > 1e-6 ||
					math.Abs(math.Abs(id.Rotation.W)-1) > 1e-9 {
					t.Fatalf("%s/%s at %d: %v then %v is %v", p, c, at, tr, back, id)
				}
				continue
			}
			q := Quat{0, 0, math.Sin(yaw / 2), math.Cos(yaw / 2)}
			_ = b.SetTransform(Stamped{Parent: p, Child: c, Stamp: stamp, Transform: Transform{Translation: Vec3{x, 1, 0}, Rotation: q}}, op&1 != 0)
		}
		_ = b.AllFramesAsString()
	})
}

// FuzzAdd decodes arbitrary bytes as a ROS1 and a ROS2 TFMessage and
// reads them into a Reader: a message that does not decode is an error,
// never a panic, and what decodes is read.
func FuzzAdd(f *testing.F) {
	one := []byte{1, 0, 0, 0, 7, 0, 0, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0, 1, 0, 0, 0, 'a', 1, 0, 0, 0, 'b'}
	one = append(one, make([]byte, 56)...)
	f.Add(one)
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 0, 1, 0, 0, 0})
	ros1, ros2 := tfDecoder(f, "tf2_msgs/TFMessage", "ros1msg", "ros1"), tfDecoder(f, "tf2_msgs/msg/TFMessage", "ros2msg", "cdr")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range []decode.Decoder{ros1, ros2} {
			r := NewReader()
			m := &record.Message{Channel: &record.Channel{Topic: "/tf", Metadata: map[string]string{}}, Data: data, Offset: -1}
			if err := r.Add(m, d); err == nil && r.Messages != 1 {
				t.Fatalf("decoded but %d messages counted", r.Messages)
			}
		}
	})
}

func tfDecoder(f *testing.F, name, enc, msgEnc string) decode.Decoder {
	text := fuzzTFText
	if enc == "ros2msg" {
		text = strings.Replace(strings.Replace(text, "uint32 seq\ntime stamp", "builtin_interfaces/Time stamp", 1),
			"MSG: geometry_msgs/Transform\n", "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"+sep+"MSG: geometry_msgs/Transform\n", 1)
	}
	ch := &record.Channel{Topic: "/tf", MessageEncoding: msgEnc, Schema: &record.Schema{Name: name, Encoding: enc, Data: []byte(text)}}
	d, err := decode.NewResolver(nil).For(ch)
	if err != nil {
		f.Fatal(err)
	}
	return d
}

const sep = "================================================================================\n"

const fuzzTFText = "geometry_msgs/TransformStamped[] transforms\n" + sep +
	"MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform\n" + sep +
	"MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n" + sep +
	"MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation\n" + sep +
	"MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n" + sep +
	"MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w\n"

// FuzzFramer decodes arbitrary bytes as a ROS1 and a ROS2 message with
// geometry in a header's frame, in arrays of elements with headers of
// their own, in a fixed array and in a Vector3Stamped, through a Framer:
// a message that does not decode is an error, never a panic, and one that
// decodes gets an added field with an element for each element of the
// input's arrays.
func FuzzFramer(f *testing.F) {
	var seed []byte
	u32 := func(v uint32) { seed = binary.LittleEndian.AppendUint32(seed, v) }
	str := func(s string) { u32(uint32(len(s))); seed = append(seed, s...) }
	hdr := func(frame string, sec uint32) { u32(0); u32(sec); u32(5e8); str(frame) }
	pose := func(x float64) {
		for _, v := range []float64{x, 1, 2, 0, 0, 0, 1} {
			seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(v))
		}
	}
	hdr("b", 1)
	u32(2)
	hdr("a", 1)
	pose(1)
	hdr("", 0)
	pose(2)
	pose(3)
	pose(4)
	hdr("b", 2)
	for range 3 {
		seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(0.5))
	}
	f.Add(seed)
	f.Add([]byte{})
	b := NewBuffer()
	_ = b.SetTransform(Stamped{Parent: "map", Child: "a", Stamp: 1e9, Transform: Transform{Rotation: Identity}}, false)
	_ = b.SetTransform(Stamped{Parent: "map", Child: "a", Stamp: 3e9, Transform: Transform{Translation: Vec3{X: 1}, Rotation: Identity}}, false)
	_ = b.SetTransform(Stamped{Parent: "a", Child: "b", Transform: Transform{Translation: Vec3{Y: 1}, Rotation: Identity}}, true)
	fr := NewFramer(b, "map")
	var decs []decode.Decoder
	for _, enc := range []string{"ros1msg", "ros2msg"} {
		text, msgEnc := fuzzSceneText, "ros1"
		if enc == "ros2msg" {
			text = strings.Replace(strings.Replace(text, "uint32 seq\ntime stamp", "builtin_interfaces/Time stamp", 1),
				"MSG: geometry_msgs/Pose\n", "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"+sep+"MSG: geometry_msgs/Pose\n", 1)
			msgEnc = "cdr"
		}
		ch := &record.Channel{Topic: "/scene", MessageEncoding: msgEnc, Schema: &record.Schema{Name: "test/Scene", Encoding: enc, Data: []byte(text)}}
		d, err := decode.NewResolver(nil).For(ch)
		if err != nil {
			f.Fatal(err)
		}
		w, ok := fr.Wrap(d)
		if !ok {
			f.Fatalf("%s: nothing to frame", enc)
		}
		decs = append(decs, d, w)
	}
	// Checked here, not by the fuzz function: in fuzzing mode that runs
	// in worker processes, where a flag it set is not seen.
	if _, err := decs[0].DecodeValue(seed); err != nil {
		f.Fatalf("the seed does not decode as a ROS1 test/Scene: %v", err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := 0; i < len(decs); i += 2 {
			in, errIn := decs[i].DecodeValue(data)
			out, err := decs[i+1].DecodeValue(data)
			if (errIn == nil) != (err == nil) {
				t.Fatalf("decoder: %v, framed: %v", errIn, err)
			}
			if err != nil {
				continue
			}
			if i == 0 && string(data) == string(seed) {
				// poses[0] in its own frame a, poses[1] in none, the rest
				// in the message's b (map <- a <- b) at 1.5 s; the vector
				// in b at 2.5 s, not moved
				js, _ := out.LookupStruct("in_map").MarshalJSON()
				if string(js) != seedInMap {
					t.Errorf("seed in map:\n%s\nwant\n%s", js, seedInMap)
				}
				// a sink that takes absent values gets nulls there
				w := sink.NewJSONWriter()
				if err := decs[i+1].Decode(data, w); err != nil {
					t.Fatal(err)
				}
				_, rest, _ := strings.Cut(string(w.JSON()), `"in_map":`)
				if want := strings.ReplaceAll(seedInMap, `"NaN"`, "null") + "}"; rest != want {
					t.Errorf("seed in map, JSON:\n%s\nwant\n%s", rest, want)
				}
			}
			for _, path := range []string{"poses", "fixed"} {
				a, _ := in.Lookup(path)
				b, _ := out.Lookup("in_map." + path)
				if x, y := a.([]any), b.([]any); len(x) != len(y) {
					t.Fatalf("%s: %d elements, in_map: %d", path, len(x), len(y))
				}
			}
			if _, ok := out.Lookup("in_map.vec.vector.x"); !ok {
				t.Fatalf("no in_map.vec: %v", out)
			}
		}
	})
}

const seedInMap = `{"poses":[{"pose":{"position":{"x":1.25,"y":1,"z":2},"orientation":{"x":0,"y":0,"z":0,"w":1}}},` +
	`{"pose":{"position":{"x":"NaN","y":"NaN","z":"NaN"},"orientation":{"x":"NaN","y":"NaN","z":"NaN","w":"NaN"}}}],` +
	`"fixed":[{"position":{"x":3.25,"y":2,"z":2},"orientation":{"x":0,"y":0,"z":0,"w":1}},` +
	`{"position":{"x":4.25,"y":2,"z":2},"orientation":{"x":0,"y":0,"z":0,"w":1}}],"vec":{"vector":{"x":0.5,"y":0.5,"z":0.5}}}`

const fuzzSceneText = "std_msgs/Header header\ngeometry_msgs/PoseStamped[] poses\ngeometry_msgs/Pose[2] fixed\ngeometry_msgs/Vector3Stamped vec\n" + sep +
	"MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n" + sep +
	"MSG: geometry_msgs/Pose\ngeometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n" + sep +
	"MSG: geometry_msgs/PoseStamped\nstd_msgs/Header header\ngeometry_msgs/Pose pose\n" + sep +
	"MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n" + sep +
	"MSG: geometry_msgs/Vector3Stamped\nstd_msgs/Header header\ngeometry_msgs/Vector3 vector\n" + sep +
	"MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n" + sep +
	"MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w\n"
