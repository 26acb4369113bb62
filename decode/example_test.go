package decode_test

import (
	"fmt"
	"io"
	"log"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/record"
)

// Read every /turtle1/pose message of a bag, decoded into value trees.
func Example() {
	r, err := decode.Open("../../shared/public-fixtures/rosbag-js/example.bag")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	match, _ := decode.TopicMatcher([]string{"/turtle1/pose"})
	it, err := r.Messages(record.Filter{Topic: match})
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	res := decode.NewResolver(nil)
	n := 0
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		dec, err := res.For(m.Channel)
		if err != nil {
			log.Fatal(err)
		}
		v, err := dec.DecodeValue(m.Data)
		if err != nil {
			log.Fatal(err)
		}
		if n == 0 {
			x, _ := v.Float("x")
			fmt.Printf("%s %s x=%.4f\n", m.Channel.Topic, dec.Type().Name, x)
		}
		n++
	}
	fmt.Println(n, "messages")
	// Output:
	// /turtle1/pose turtlesim/Pose x=5.5444
	// 1344 messages
}
