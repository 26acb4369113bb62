package decode

import (
	"testing"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// FuzzTranscodeROS2 feeds arbitrary CDR bytes to the ROS 2 → ROS1
// conversion of Jazzy and seed types, against the conversion through
// value trees that pairs fields by name (pairedConversion into the ROS1
// equivalent): both fail or give the same bytes; a failure leaves the
// buffer given as it was, a success appends to it. Into the built-in ROS1
// definition of a type ROS 2 extended (MarkerArray), the conversion
// succeeds when those do, and what it writes decodes as that definition.
func FuzzTranscodeROS2(f *testing.F) {
	reg := msgdef.Default()
	if err := reg.SetDistro("jazzy"); err != nil {
		f.Fatal(err)
	}
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
		convs = append(convs, conversions{TranscodeROS2(dec), pairedConversion(dec, t1, nil)})
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
	res := NewResolver(reg)
	toBuiltin, out, left, err := res.ToROS1(&record.Channel{Topic: "/m", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: array.FullName, Encoding: "ros2msg", Data: []byte(ROS2Bundle(array))}}, false)
	if err != nil || left == nil {
		f.Fatalf("MarkerArray into ROS1's: %v, left out %v", err, left)
	}
	builtin, err := res.For(out)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		c := convs[int(which)%len(convs)]
		c.agree(t, data)
		if int(which)%len(convs) != 2 { // not MarkerArray
			return
		}
		_, err1 := c.direct(nil, data)
		b, err2 := toBuiltin(nil, data)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("into the equivalent: %v; into ROS1's: %v", err1, err2)
		}
		if err2 == nil {
			if _, err := builtin.DecodeValue(b); err != nil {
				t.Fatalf("into ROS1's: %v", err)
			}
		}
	})
}
