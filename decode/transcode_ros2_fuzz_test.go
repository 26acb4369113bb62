package decode

import (
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// FuzzTranscodeROS2 feeds arbitrary CDR bytes to the ROS 2 → ROS1
// conversion of Jazzy and seed types, against a conversion through value
// trees (byValueROS1): both fail or give the same bytes; a failure leaves
// the buffer given as it was, a success appends to it. So too into the
// built-in ROS1 definition of a type ROS 2 extended (MarkerArray), whose
// added fields the conversion leaves out.
func FuzzTranscodeROS2(f *testing.F) {
	reg := jazzyRegistry(f)
	var convs []conversions
	for i, name := range []string{"sensor_msgs/msg/PointCloud2", "tf2_msgs/msg/TFMessage", "visualization_msgs/msg/MarkerArray",
		"trajectory_msgs/msg/JointTrajectory", "diagnostic_msgs/msg/DiagnosticArray", "std_msgs/msg/Header",
		"builtin_interfaces/msg/Time", "std_msgs/msg/Empty", "sensor_msgs/msg/CameraInfo", "remap_msgs/srv/Query_Response"} {
		t2, err := reg.Lookup(name)
		if err != nil {
			f.Fatal(err)
		}
		dec, err := cdr.Compile(t2)
		if err != nil {
			f.Fatal(err)
		}
		t1, _, err := ROS1Equivalent(t2)
		if err != nil {
			f.Fatal(err)
		}
		convs = append(convs, conversions{TranscodeROS2(dec), byValueROS1(dec, t1)})
		zero, err := cdr.Encode(value.New(t2), false)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), zero)
	}
	// a Header stamped with more than a second of nanoseconds
	f.Add(uint8(5), []byte{0, 1, 0, 0, 1, 0, 0, 0, 0, 0x94, 0x35, 0x77, 2, 0, 0, 0, 'a', 0})
	array, err := reg.Lookup("visualization_msgs/msg/MarkerArray")
	if err != nil {
		f.Fatal(err)
	}
	dec, err := cdr.Compile(array)
	if err != nil {
		f.Fatal(err)
	}
	toBuiltin, out, left, err := NewResolver(reg).ToROS1(&record.Channel{Topic: "/m", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: array.FullName, Encoding: "ros2msg", Data: []byte(ROS2Bundle(array))}}, false)
	if err != nil || left == nil {
		f.Fatalf("MarkerArray into ROS1's: %v, left out %v", err, left)
	}
	builtin, err := msgdef.FromSchema(out.Schema.Name, out.Schema.Encoding, out.Schema.Data, nil)
	if err != nil {
		f.Fatal(err)
	}
	convs = append(convs, conversions{toBuiltin, byValueROS1(dec, builtin)})
	zero, err := cdr.Encode(value.New(array), false)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(len(convs)-1), zero)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		convs[int(which)%len(convs)].agree(t, data)
	})
}

// byValueROS1 is TranscodeROS2 through a value tree: dec decodes each
// message, toROS1 rebuilds it as a value of t1 and ros1 encodes that.
func byValueROS1(dec Decoder, t1 *msgdef.Type) Conversion {
	return func(dst, src []byte) ([]byte, error) {
		v, err := dec.DecodeValue(src)
		if err != nil {
			return dst, err
		}
		return ros1.AppendEncode(dst, toROS1(v, t1))
	}
}

// toROS1 returns v, a value of a ROS 2 type, as a value of t, its ROS1
// equivalent (ROS1Equivalent) or a ROS1 definition whose fields pair with
// its own by name but for case: builtin Time and Duration structs become
// ROS1 times and durations (ros1Time), a Header gets seq 0, a byte its
// signed ROS1 value, a field of v without a pair is left out; everything
// else is shared with v.
func toROS1(v *value.Struct, t *msgdef.Type) *value.Struct {
	out := value.New(t)
	for i := range t.Fields {
		for j := range v.Type.Fields {
			if strings.EqualFold(v.Type.Fields[j].Name, t.Fields[i].Name) {
				out.Fields[i] = ros1Field(&t.Fields[i], v.Fields[j])
			}
		}
	}
	return out
}

// ros1Field converts one field value (see toROS1).
func ros1Field(f *msgdef.Field, x any) any {
	if a, ok := x.([]any); ok {
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = ros1Elem(f, e)
		}
		return out
	}
	return ros1Elem(f, x)
}

func ros1Elem(f *msgdef.Field, x any) any {
	switch f.Kind {
	case msgdef.Time, msgdef.Duration:
		s, ok := x.(*value.Struct)
		if !ok || len(s.Fields) != 2 {
			return x
		}
		sec, _ := s.Fields[0].(int64)
		nsec, _ := s.Fields[1].(uint64)
		q, r := ros1Time(f.Kind, sec, nsec)
		if f.Kind == msgdef.Time {
			return value.Time{Sec: q, Nsec: r}
		}
		return value.Duration{Sec: q, Nsec: r}
	case msgdef.Struct:
		if s, ok := x.(*value.Struct); ok {
			return toROS1(s, f.Msg)
		}
	case msgdef.Int8:
		if u, ok := x.(uint64); ok { // ROS 2's byte read unsigned
			return int64(int8(uint8(u)))
		}
	}
	return x
}
