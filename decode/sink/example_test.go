package sink_test

import (
	"fmt"
	"strconv"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
)

// Render a message inside an NDJSON line built in the caller's buffer.
func ExampleJSONWriter_Begin() {
	t, _ := msgdef.ParseBundle("std_msgs/Float32", "float32 data\n", msgdef.ROS1, nil)
	dec, _ := ros1.Compile(t)
	w := sink.NewJSONWriter()

	var line []byte
	line = append(line, `{"topic":`...)
	line = sink.AppendJSONString(line, "/speed")
	line = append(line, `,"log_time_ns":`...)
	line = strconv.AppendInt(line, 1700000000000000000, 10)
	line = append(line, `,"message":`...)
	w.Begin(line)
	if err := dec.Decode([]byte{0xcd, 0xcc, 0xcc, 0x3d}, w); err != nil { // 0.1f
		fmt.Println(err) // w.JSON() holds a partial object: drop the line
		return
	}
	line = append(w.JSON(), "}\n"...)
	fmt.Print(string(line))
	// Output:
	// {"topic":"/speed","log_time_ns":1700000000000000000,"message":{"data":0.1}}
}
