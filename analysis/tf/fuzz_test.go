package tf

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode"
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
