package cdr_test

import (
	"fmt"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
)

func Example() {
	typ, err := msgdef.Default().Lookup("remap_msgs/srv/RemoveQuery_Response")
	if err != nil {
		panic(err)
	}
	dec, err := cdr.Compile(typ) // once per schema
	if err != nil {
		panic(err)
	}
	data := []byte{
		0x00, 0x01, 0x00, 0x00, // CDR_LE encapsulation header
		0x01,             // success
		0x00, 0x00, 0x00, // padding to 4
		0x05, 0x00, 0x00, 0x00, // exec_left.sec
		0x00, 0x65, 0xcd, 0x1d, // exec_left.nanosec
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
	ns, _ := v.Uint("exec_left.nanosec")
	fmt.Println(ns)
	again, _ := cdr.Encode(v, false)
	fmt.Printf("% x\n", again)
	// Output:
	// {"success":true,"exec_left":{"sec":5,"nanosec":500000000}}
	// 500000000
	// 00 01 00 00 01 00 00 00 05 00 00 00 00 65 cd 1d
}
