package rosnode

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
)

// Level is the severity of a log line on /rosout: rosgraph_msgs/Log's
// level constants.
type Level byte

// The levels of rosgraph_msgs/Log.
const (
	LevelDebug Level = 1
	LevelInfo  Level = 2
	LevelWarn  Level = 4
	LevelError Level = 8
	LevelFatal Level = 16
)

// RosoutTopic is where every ROS1 node publishes its log lines; the
// rosout node gathers them into /rosout_agg and its log file, which
// rqt_console shows.
const RosoutTopic = "/rosout"

// logType is rosgraph_msgs/Log, as ros_comm_msgs defines it.
const (
	logType = "rosgraph_msgs/Log"
	logMsg  = "##\n## Severity level constants\n##\n" +
		"byte DEBUG=1 #debug level\nbyte INFO=2  #general level\nbyte WARN=4  #warning level\n" +
		"byte ERROR=8 #error level\nbyte FATAL=16 #fatal/critical level\n" +
		"##\n## Fields\n##\nHeader header\nbyte level\n" +
		"string name # name of the node\nstring msg # message \n" +
		"string file # file the message came from\nstring function # function the message came from\n" +
		"uint32 line # line the message came from\nstring[] topics # topic names that the node publishes\n"
)

// logInfo is /rosout's topic info: the MD5 and full text (with
// std_msgs/Header) worked out from logMsg and the embedded registry.
var logInfo = sync.OnceValues(func() (TopicInfo, error) {
	t, err := msgdef.ParseBundle(logType, logMsg, msgdef.ROS1, msgdef.Default())
	if err != nil {
		return TopicInfo{}, err
	}
	return TopicInfo{Type: logType, MD5: msgdef.MD5(t), Definition: msgdef.FullText(t)}, nil
})

// rosoutWait bounds AdvertiseRosout's wait for the subscribers the master
// lists (the rosout node) to connect.
const rosoutWait = time.Second

// AdvertiseRosout advertises /rosout, where Log then publishes the node's
// log lines as roscpp and rospy nodes do. It talks to the master, and
// waits (a second at most) until the subscribers the master lists, the
// rosout node among them, are connected, so that the first lines reach
// them; lines logged before it are not published. When the node already
// publishes /rosout itself (a player replaying a recording of /rosout),
// the lines go out on that publisher, as a roscpp node's log lines share
// the topic with its own /rosout publisher; one of another type is an
// error.
func (n *Node) AdvertiseRosout() error {
	info, err := logInfo()
	if err != nil {
		return err
	}
	n.mu.Lock()
	p := n.pubs[n.Resolve(RosoutTopic)]
	n.mu.Unlock()
	if p != nil {
		if p.info.MD5 != info.MD5 {
			return fmt.Errorf("rosnode: %s is advertised by this node as %s (md5 %s), not %s", p.topic, p.info.Type, p.info.MD5, logType)
		}
		n.rosout.Store(p)
		return nil
	}
	if p, err = n.Advertise(RosoutTopic, info); err != nil {
		return err
	}
	n.rosout.Store(p)
	ctx, cancel := context.WithTimeout(n.ctx, rosoutWait)
	defer cancel()
	st, err := n.master.GetSystemState(ctx)
	if err != nil {
		return nil // the lines go to whoever connects
	}
	for _, t := range st.Subscribers {
		if t.Topic == RosoutTopic {
			_ = p.WaitForSubscribers(ctx, len(t.Nodes))
		}
	}
	return nil
}

// Log publishes msg at level on /rosout once AdvertiseRosout has; before
// that it does nothing. It never waits for subscribers (a full queue
// drops the oldest line, as for every publisher). The line is stamped
// with Options.Now.
func (n *Node) Log(level Level, msg string) {
	p := n.rosout.Load()
	if p == nil {
		return
	}
	n.mu.Lock()
	topics := make([]string, 0, len(n.pubs))
	for t := range n.pubs {
		topics = append(topics, t)
	}
	n.mu.Unlock()
	slices.Sort(topics)
	_ = p.Publish(logMessage(n.logSeq.Add(1), n.opts.Now(), level, n.opts.Name, msg, topics))
}

// logMessage serializes a rosgraph_msgs/Log; file, function and line are
// left empty.
func logMessage(seq uint32, stamp time.Time, level Level, name, msg string, topics []string) []byte {
	b := make([]byte, 0, 64+len(name)+len(msg))
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	str := func(s string) { u32(uint32(len(s))); b = append(b, s...) }
	ns := stamp.UnixNano()
	u32(seq)
	u32(uint32(ns / 1e9))
	u32(uint32(ns % 1e9))
	str("") // frame_id
	b = append(b, byte(level))
	str(name)
	str(msg)
	str("") // file
	str("") // function
	u32(0)  // line
	u32(uint32(len(topics)))
	for _, t := range topics {
		str(t)
	}
	return b
}
