// Package live is baglab's ROS1 network side: recording live topics into a
// bag or MCAP file and replaying recordings onto a running ROS1 system.
//
// It is split by protocol layer:
//
//   - live/xmlrpc: the XML-RPC codec, client and server (ROS's master and
//     slave APIs are XML-RPC over HTTP). A small codec on encoding/xml and
//     net/http, written for baglab rather than taken from goroslib v2.1.5's
//     pkg/xmlrpc: goroslib is archived, has no <struct> (so parameter-server
//     replies do not decode) and bounds nothing; ours bounds body size and
//     nesting depth and is fuzzed.
//   - live/tcpros: TCPROS connection headers and message framing over any
//     io.Reader/io.Writer, every length bounded.
//   - live/rosnode: a ROS1 node: master client, slave API server, TCPROS
//     listener, publishers of pre-serialized bytes (any type, MD5 and
//     definition, latching) and subscribers with type and md5sum "*" that
//     keep each publisher's connection header verbatim.
//   - live/recorder: the recorder behind `baglab record`.
//   - live/play: the player behind `baglab play`.
//
// This package holds what the player and the recorder share: ArgsError,
// the error of a command-line value either cannot use.
//
// Tests run against Debian's real ROS1 through internal/testkit/rostest (a roscore
// per test on a free loopback port, peers in their own process groups).
//
// Publishing, as `baglab play` does it:
//
//	node, err := rosnode.New(ctx, rosnode.Options{Name: "/baglab_play"})
//	pub, err := node.Advertise("/chatter", rosnode.TopicInfo{
//		Type: "std_msgs/String", MD5: "992ce8a1687cec8c8bd883ec73ca41d1",
//		Definition: "string data\n", Latching: true})
//	err = pub.WaitForSubscribers(ctx, 1)
//	err = pub.Publish(payload) // pre-serialized ROS1 message bytes
//	node.Close()               // unregisters everything from the master
package live
