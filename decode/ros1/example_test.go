package ros1_test

import (
	"fmt"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
)

// Decode a geometry_msgs/Point to JSON and read a field from its value tree.
func Example() {
	t, err := msgdef.ParseBundle("geometry_msgs/Point", "float64 x\nfloat64 y\nfloat64 z\n", msgdef.ROS1, nil)
	if err != nil {
		panic(err)
	}
	dec, err := ros1.Compile(t) // once per schema
	if err != nil {
		panic(err)
	}
	data := []byte{
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f, // 1.5
		0, 0, 0, 0, 0, 0, 0, 0xc0, // -2
		0, 0, 0, 0, 0, 0, 0, 0, // 0
	}
	w := sink.NewJSONWriter()
	if err := dec.Decode(data, w); err != nil {
		panic(err)
	}
	fmt.Println(string(w.JSON()))

	v, err := dec.DecodeValue(data)
	if err != nil {
		panic(err)
	}
	y, _ := v.Float("y")
	fmt.Println(y)

	// Output:
	// {"x":1.5,"y":-2,"z":0}
	// -2
}

// Bad data gives a *record.Error with the offset and field path.
func ExampleDecoder_Decode_error() {
	t, _ := msgdef.ParseBundle("std_msgs/String", "string data\n", msgdef.ROS1, nil)
	dec, _ := ros1.Compile(t)
	err := dec.Decode([]byte{200, 0, 0, 0, 'h', 'i'}, sink.NewJSONWriter())
	fmt.Println(err)
	// Output:
	// offset 0: field data: length exceeds remaining bytes: string of 200 bytes, 2 left
}
