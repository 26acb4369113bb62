package decode

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
)

// FuzzTranscodeROS1 feeds arbitrary bytes to the ROS1 → CDR conversion of
// registry types, against the conversion through value trees that --rules
// uses (mappedConversion with no rules) and the one pass through a CDR
// encoder that the copying of ros1.ToCDR leaves what it declines to
// (decodeROS1), and for a type ROS 2 Jazzy defines with its fields in
// their order (CameraInfo, PointCloud2...) against the conversion of
// Native renames through value trees: all fail or all give the same
// bytes; a failure leaves the buffer given as it was, a success appends
// to it.
func FuzzTranscodeROS1(f *testing.F) {
	reg := msgdef.Default()
	jazzy := jazzyRegistry(f)
	native := (*Renames)(nil).Native()
	var mk ros2Maker // shared, as a Resolver shares it between the types it converts
	var convs [][]conversions
	for i, name := range []string{"sensor_msgs/PointCloud2", "interactive_world_msgs/TaskTrainingData",
		"toaster_msgs/FactList", "visualization_msgs/MarkerArray", "sensor_msgs/CameraInfo", "geometry_msgs/TransformStamped",
		"diagnostic_msgs/DiagnosticArray", "rail_manipulation_msgs/SegmentedObjectList", "std_msgs/Empty",
		"lama_msgs/Crossing", "std_msgs/Duration"} {
		t1, err := reg.Lookup(name)
		if err != nil {
			f.Fatal(err)
		}
		dec, err := ros1.Compile(t1)
		if err != nil {
			f.Fatal(err)
		}
		rn, mapped := &Renames{}, &mapping{}
		t2, err := mk.equivalent(t1, rn, mapped)
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		group := []conversions{{TranscodeROS1(dec), mappedConversion(dec, rn, mapped, t2)}, {TranscodeROS1(dec), decodeROS1(dec)}}
		m, _, err := native.mappedTypes(t1, jazzy, nil)
		if err != nil {
			f.Fatal(err)
		}
		if m != nil && m.positional {
			t2n, err := mk.equivalent(t1, native, m)
			if err != nil {
				f.Fatal(err)
			}
			group = append(group, conversions{TranscodeROS1(dec), mappedConversion(dec, native, m, t2n)})
		}
		convs = append(convs, group)
		zero, err := ros1.Encode(value.New(t1))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), zero)
	}
	f.Add(uint8(0), []byte{1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 'a'})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		for _, c := range convs[int(which)%len(convs)] {
			c.agree(t, data)
		}
	})
}

// conversions are two ways to one conversion, which must agree.
type conversions struct{ direct, byValue Conversion }

// agree fails t unless both conversions of data fail, leaving the buffer
// they are given as it was, or both append the same bytes to it.
func (c conversions) agree(t *testing.T, data []byte) {
	t.Helper()
	prefix := []byte("kept")
	direct, err1 := c.direct(prefix, data)
	byValue, err2 := c.byValue(prefix, data)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("direct: %v; by value: %v", err1, err2)
	}
	if err1 != nil {
		if !bytes.Equal(direct, prefix) || !bytes.Equal(byValue, prefix) {
			t.Fatalf("a failed conversion changed the buffer: %q, %q", direct, byValue)
		}
		return
	}
	if !bytes.HasPrefix(direct, prefix) || !bytes.Equal(direct, byValue) && !quietedOnly(direct, byValue) {
		t.Fatalf("direct %x\nby value %x", direct, byValue)
	}
}

// quietedOnly reports whether a and b differ only in float32 signalling
// NaNs of a that b has quiet: ros1.ToCDR copies a float32's bits, where a
// pass through float64 sets the quiet bit. The words compared are 4-aligned
// in the CDR, whose alignment the 4-byte prefix keeps.
func quietedOnly(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i+4 <= len(a); i += 4 {
		x, y := binary.LittleEndian.Uint32(a[i:]), binary.LittleEndian.Uint32(b[i:])
		signalling := x&0x7f800000 == 0x7f800000 && x&0x003fffff != 0 && x&0x00400000 == 0
		if x != y && !(signalling && y == x|0x00400000) {
			return false
		}
	}
	return bytes.Equal(a[len(a)&^3:], b[len(b)&^3:])
}
