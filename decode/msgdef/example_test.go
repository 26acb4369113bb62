package msgdef_test

import (
	"fmt"

	"github.com/baglab/baglab/decode/msgdef"
)

// A ROS1 bag stores the full text of a type with its dependencies; the
// embedded registry supplies any the text leaves out.
func ExampleParseBundle() {
	text := "Header header\ngeometry_msgs/Point[] points\nuint8 KIND=3\n"
	t, err := msgdef.ParseBundle("my_msgs/Cloud", text, msgdef.ROS1, msgdef.Default())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range t.Fields {
		fmt.Println(f.Name, f.Kind, f.TypeName, f.Msg.Name)
	}
	fmt.Println(t.Constants[0].Name, t.Constants[0].Value)
	// Output:
	// header struct Header std_msgs/Header
	// points struct geometry_msgs/Point geometry_msgs/Point
	// KIND 3
}

func ExampleMD5() {
	t, err := msgdef.Default().Lookup("std_msgs/Header")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msgdef.MD5(t))
	// Output: 2176decaecbce78abc3b96ef049fabed
}

// rosbag2 stores a service event topic's schema as the bare .srv text.
func ExampleFromSchema() {
	srv := []byte("int64 a\nint64 b\n---\nint64 sum\n")
	t, err := msgdef.FromSchema("example_interfaces/srv/AddTwoInts_Event", "ros2msg", srv, msgdef.Default())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.FullName)
	for _, f := range t.Fields {
		fmt.Println(f.Name, f.Msg.FullName, f.Array, f.Len)
	}
	// Output:
	// example_interfaces/srv/AddTwoInts_Event
	// info service_msgs/msg/ServiceEventInfo 0 0
	// request example_interfaces/srv/AddTwoInts_Request 2 1
	// response example_interfaces/srv/AddTwoInts_Response 2 1
}

func ExampleRegistry_Lookup() {
	reg := msgdef.Default()
	for _, name := range []string{"builtin_interfaces/msg/Time", "lama_msgs/LamaObject"} {
		t, err := reg.Lookup(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.Name, t.Dialect, len(t.Fields))
	}
	// Output:
	// builtin_interfaces/Time ros2 2
	// lama_msgs/LamaObject ros1 7
}
