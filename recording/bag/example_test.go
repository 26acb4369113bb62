package bag_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
)

// Summarise a bag from its index, then read one topic in time order.
func ExampleOpen() {
	r, err := bag.Open(filepath.Join("..", "..", "testdata", "sample", "study.bag"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	s, err := r.Summary()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.MessageCount, "messages,", len(s.Topics), "topics, compression", s.Compression)
	it, err := r.Messages(record.Filter{Topic: func(t string) bool { return t == "/interactive_world/placement" }})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer it.Close()
	m, err := it.Next()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Channel.Schema.Name, m.LogTime, len(m.Data), "bytes")
	// Output:
	// 343 messages, 15 topics, compression none
	// interactive_world_msgs/Placement 1714564806371314185 352 bytes
}

// Write a bag and read it back.
func ExampleCreate() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hello.bag")
	w, err := bag.Create(path, bag.WithCompression("lz4"))
	if err != nil {
		fmt.Println(err)
		return
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/chatter", Schema: &record.Schema{
		Name: "std_msgs/String", Data: []byte("string data\n"), MD5: "992ce8a1687cec8c8bd883ec73ca41d1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range []string{"hello", "world"} {
		data := append([]byte{byte(len(s)), 0, 0, 0}, s...) // std_msgs/String: uint32 length, bytes
		if err := w.WriteMessage(id, &record.Message{LogTime: int64(i+1) * 1e9, Data: data}); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	r, err := bag.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	it, _ := r.Messages(record.Filter{})
	defer it.Close()
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %d %q callerid=%q\n", m.Channel.Topic, m.LogTime, m.Data[4:], m.Channel.Metadata["callerid"])
	}
	// Output:
	// /chatter 1000000000 "hello" callerid=""
	// /chatter 2000000000 "world" callerid=""
}
