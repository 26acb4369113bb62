package rosnode_test

import (
	"context"
	"fmt"
	"log"

	"github.com/baglab/baglab/live/rosnode"
)

// Publishing pre-serialized messages under a recording's type, as
// `baglab play` does. (Needs a running ROS master, so it has no output
// to check.)
func ExampleNode_Advertise() {
	ctx := context.Background()
	node, err := rosnode.New(ctx, rosnode.Options{Name: "/example_pub"}) // ROS_MASTER_URI, ROS_IP...
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	pub, err := node.Advertise("/chatter", rosnode.TopicInfo{Type: "std_msgs/String",
		MD5: "992ce8a1687cec8c8bd883ec73ca41d1", Definition: "string data\n", Latching: true})
	if err != nil {
		log.Fatal(err)
	}
	if err := pub.WaitForSubscribers(ctx, 1); err != nil {
		log.Fatal(err)
	}
	_ = pub.Publish([]byte{5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'}) // std_msgs/String "hello"
}

// Subscribing to any type and keeping each publisher's connection header,
// as `baglab record` does.
func ExampleNode_Subscribe() {
	node, err := rosnode.New(context.Background(), rosnode.Options{Name: "/example_sub"})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	_, err = node.Subscribe("/chatter", rosnode.SubscribeOptions{OnMessage: func(m *rosnode.Message) {
		fmt.Println(m.Conn.Header.Value("callerid"), m.Conn.Header.Value("type"), len(m.Data))
	}})
	if err != nil {
		log.Fatal(err)
	}
}

// Serving std_srvs/Trigger, whose request is empty and whose response is
// bool success, string message, as `baglab play` serves pause_playback.
// (Needs a running ROS master, so it has no output to check.)
func ExampleNode_AdvertiseService() {
	node, err := rosnode.New(context.Background(), rosnode.Options{Name: "/example_srv"})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	info := rosnode.ServiceInfo{Type: "std_srvs/Trigger", MD5: "937c9679a518e3a18d831e57125ea522"}
	_, err = node.AdvertiseService(node.Name()+"/trigger", info, func(ctx context.Context, req []byte) ([]byte, error) {
		return []byte{1, 2, 0, 0, 0, 'o', 'k'}, nil // success, "ok"
	})
	if err != nil {
		log.Fatal(err)
	}
}
