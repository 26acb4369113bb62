package recorder

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
)

// pyRosoutAgg prints, as JSON lines, the rosgraph_msgs/Log messages of
// node NAME that the rosout node republishes on /rosout_agg.
const pyRosoutAgg = `
import sys, json, rospy
from rosgraph_msgs.msg import Log
name = sys.argv[1]
def got(m):
    if m.name == name:
        print(json.dumps({"level": m.level, "name": m.name, "msg": m.msg, "topics": m.topics,
                          "stamp": m.header.stamp.to_sec(), "seq": m.header.seq}), flush=True)
rospy.init_node("agg_listener", disable_signals=True)
rospy.Subscriber("/rosout_agg", Log, got)
rospy.spin()
`

type rosoutLine struct {
	Level  int      `json:"level"`
	Name   string   `json:"name"`
	Msg    string   `json:"msg"`
	Topics []string `json:"topics"`
	Stamp  float64  `json:"stamp"`
	Seq    uint32   `json:"seq"`
}

// The recorder logs on /rosout as rosbag record does (ROS_INFO and
// ROS_WARN lines): roscore's rosout node accepts the rosgraph_msgs/Log
// publisher (its MD5 and definition) and republishes the lines on
// /rosout_agg, where rospy decodes them with their levels, the node's
// name, its topics and wall-clock stamps.
func TestRecordLogsOnRosout(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	const node = "/rec_rosout"
	agg := m.Start(t, "agg", rostest.Python, "-c", pyRosoutAgg, node)
	waitSubscribed(t, m, "/agg_listener", "/rosout_agg")
	out := filepath.Join(t.TempDir(), "drops.bag")
	o := Options{Output: out, Topics: []string{"/flood"}, BufSize: 1}
	o.NodeOptions.Name = node
	before := float64(time.Now().UnixNano()) / 1e9
	r, stop := startRecorder(t, m, o)
	pub := m.Start(t, "pub", rostest.Python, "-c", pyPublisher, "flood", "/flood", "50", "100")
	if err := pub.Wait(60 * time.Second); err != nil {
		t.Fatalf("publisher: %v\n%s", err, m.Log("pub"))
	}
	r.waitReceived(t, "/flood", 50, 10*time.Second)
	after := float64(time.Now().UnixNano()) / 1e9
	want := []struct {
		level int
		msg   string
	}{
		{2, "Recording to '" + out + "'."},
		{2, "Subscribing to /flood"},
		{2, "/flood: connected to /flood (std_msgs/String)"},
		{4, "/flood: dropped a message of 11 B from /flood: larger than --buffsize or --max-message; "},
	}
	var got []rosoutLine
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got = got[:0]
		for _, l := range strings.Split(strings.TrimSpace(m.Log("agg")), "\n") {
			var x rosoutLine
			if json.Unmarshal([]byte(l), &x) == nil {
				got = append(got, x)
			}
		}
		if len(got) >= len(want) || time.Now().After(deadline) {
			break
		}
	}
	stop()
	if len(got) < len(want) {
		t.Fatalf("rosout_agg carried %d lines of %s, want %d:\n%s", len(got), node, len(want), m.Log("agg"))
	}
	for i, w := range want {
		g := got[i]
		if g.Level != w.level || !strings.HasPrefix(g.Msg, w.msg) || g.Name != node {
			t.Errorf("line %d: level %d %q from %s, want level %d %q", i, g.Level, g.Msg, g.Name, w.level, w.msg)
		}
		if g.Stamp < before-1 || g.Stamp > after+1 {
			t.Errorf("line %d stamped %f, outside [%f, %f]", i, g.Stamp, before, after)
		}
		if !slices.Contains(g.Topics, "/rosout") {
			t.Errorf("line %d: topics %v, want /rosout among them", i, g.Topics)
		}
	}
	select {
	case <-agg.Done():
		t.Fatalf("listener exited: %s", m.Log("agg"))
	default:
	}
}
