package recording_test

import (
	"fmt"
	"io"
	"log"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Read every /lama/objects message of a bag, decoded into value trees.
func Example() {
	r, err := recording.Open("../testdata/sample/study.bag")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	match, _ := recording.TopicMatcher([]string{"/lama/objects"})
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
			name, _ := v.Text("name")
			fmt.Printf("%s %s name=%q\n", m.Channel.Topic, dec.Type().Name, name)
		}
		n++
	}
	fmt.Println(n, "messages")
	// Output:
	// /lama/objects lama_msgs/LamaObject name="place_1"
	// 11 messages
}
