package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// recorded is one message as read back: its channel and data.
type recorded struct {
	ch   *record.Channel
	data []byte
}

// readRecording reads a recording with baglab's reader, per topic.
func readRecording(t *testing.T, path string) map[string][]recorded {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string][]recorded{}
	for topic, msgs := range recordtest.MessagesByTopic(t, r) {
		for _, m := range msgs {
			out[topic] = append(out[topic], recorded{m.Channel, m.Data})
		}
	}
	return out
}

func stringData(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	return string(b[4:])
}

// startRecorder runs a recorder against m until the returned stop is
// called.
func startRecorder(t *testing.T, m *rostest.Master, o Options) (*Recorder, func() *Result) {
	t.Helper()
	// Independent of the caller's ROS_NAMESPACE/ROS_IP.
	o.NodeOptions.MasterURI, o.NodeOptions.Host, o.NodeOptions.Namespace = m.URI, "127.0.0.1", "/"
	o.Logf = t.Logf
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	type ret struct {
		res *Result
		err error
	}
	done := make(chan ret, 1)
	go func() {
		res, err := r.Run(ctx)
		done <- ret{res, err}
	}()
	var res *Result
	stop := func() *Result {
		if res != nil {
			return res
		}
		cancel()
		select {
		case x := <-done:
			if x.err != nil {
				t.Fatalf("record: %v", x.err)
			}
			res = x.res
		case <-time.After(30 * time.Second):
			t.Fatal("recorder did not stop within 30 s")
		}
		return res
	}
	t.Cleanup(func() { cancel() })
	return r, stop
}

func (r *Recorder) waitReceived(t *testing.T, topic string, n int64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, s := range r.topicStats(nil) {
			if s.Topic == topic && s.Received >= n {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: fewer than %d messages after %s: %+v", topic, n, timeout, r.topicStats(nil))
}

// waitPublished waits until the master lists a publisher of topic.
func waitPublished(t *testing.T, m *rostest.Master, topic string) {
	t.Helper()
	mc := rosnode.NewMaster(m.URI, "/wait")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		tops, err := mc.GetPublishedTopics(context.Background(), "")
		if err == nil {
			for _, tt := range tops {
				if tt.Topic == topic {
					return
				}
			}
		}
	}
	t.Fatalf("no publisher of %s after 30 s", topic)
}

// waitSubscribed waits until a node whose name starts with prefix
// subscribes to every topic.
func waitSubscribed(t *testing.T, m *rostest.Master, prefix string, topics ...string) {
	t.Helper()
	mc := rosnode.NewMaster(m.URI, "/wait")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		st, err := mc.GetSystemState(context.Background())
		if err != nil {
			continue
		}
		n := 0
		for _, s := range st.Subscribers {
			for _, node := range s.Nodes {
				if strings.HasPrefix(node, prefix) && slices.Contains(topics, s.Topic) {
					n++
				}
			}
		}
		if n == len(topics) {
			time.Sleep(time.Second) // for its connections to open
			return
		}
	}
	t.Fatalf("no %s* subscribed to %v after 30 s", prefix, topics)
}

const pyReadBag = `
import sys, json, rosbag
out = {}
with rosbag.Bag(sys.argv[1]) as b:
    for topic, msg, t, hdr in b.read_messages(return_connection_header=True):
        d = out.setdefault(topic, {"headers": [], "data": []})
        h = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in hdr.items()}
        if h not in d["headers"]:
            d["headers"].append(h)
        d["data"].append(msg.data)
print(json.dumps(out))
`

type pyTopic struct {
	Headers []map[string]string `json:"headers"`
	Data    []string            `json:"data"`
}

func pythonRead(t *testing.T, m *rostest.Master, path string) map[string]pyTopic {
	t.Helper()
	out, err := m.Output(t, 60*time.Second, rostest.Python, "-c", pyReadBag, path)
	if err != nil {
		t.Fatalf("python rosbag read %s: %v\n%s", path, err, out)
	}
	var res map[string]pyTopic
	if err := json.Unmarshal([]byte(out[strings.LastIndexByte(strings.TrimSpace(out), '\n')+1:]), &res); err != nil {
		t.Fatalf("python rosbag output: %v\n%s", err, out)
	}
	return res
}

// What rostopic pub sends (a latched topic published before recording
// starts, and a 50 Hz topic) is recorded with its type, count, content and
// latching; the bag passes rosbag info, and python rosbag reads it back
// with the same connection headers the real rosbag record wrote for the
// same publishers.
func TestRecordRostopicPubLikeRosbag(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic", "rosbag")
	dir := t.TempDir()
	m.Start(t, "pub-latched", rostest.Python, "/usr/bin/rostopic", "pub", "-l", "/latched", "std_msgs/String", "data: latched")
	waitPublished(t, m, "/latched")
	m.Start(t, "pub-chatter", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "50", "/chatter", "std_msgs/String", "data: hello")
	waitPublished(t, m, "/chatter")
	ref := filepath.Join(dir, "ref.bag")
	rosbag := m.Start(t, "rosbag-record", rostest.Python, "/usr/bin/rosbag", "record", "-O", ref, "/chatter", "/latched")
	waitSubscribed(t, m, "/record_", "/chatter", "/latched")

	ours := filepath.Join(dir, "ours.bag")
	r, stop := startRecorder(t, m, Options{Output: ours, Topics: []string{"/chatter", "latched"}, Compression: "lz4", Publish: true})
	// -p latches the file name on begin_write.
	if echo, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "1", "/begin_write"); err != nil || !strings.Contains(echo, "data: \""+ours+"\"") {
		t.Fatalf("rostopic echo /begin_write: %v\n%s", err, echo)
	}
	r.waitReceived(t, "/chatter", 25, 30*time.Second)
	r.waitReceived(t, "/latched", 1, 10*time.Second)
	if _, err := os.Stat(ours + ".active"); err != nil {
		t.Fatalf("while recording: %v", err)
	}
	res := stop()
	if err := rosbag.Stop(syscall.SIGINT, 20*time.Second); err != nil {
		t.Logf("rosbag record exit: %v", err)
	}
	if _, err := os.Stat(ours + ".active"); !os.IsNotExist(err) {
		t.Fatalf("%s.active left after close: %v", ours, err)
	}
	if len(res.Files) != 1 || res.Files[0] != ours {
		t.Fatalf("files %v, want [%s]", res.Files, ours)
	}

	got := readRecording(t, ours)
	chatter, latched := got["/chatter"], got["/latched"]
	if len(chatter) < 25 {
		t.Fatalf("/chatter: %d messages, want >= 25", len(chatter))
	}
	for i, m := range chatter {
		if stringData(m.data) != "hello" || m.ch.Schema.Name != "std_msgs/String" || m.ch.Schema.MD5 != stringMD5 {
			t.Fatalf("/chatter message %d: %q type %s md5 %s", i, m.data, m.ch.Schema.Name, m.ch.Schema.MD5)
		}
	}
	if len(latched) != 1 || stringData(latched[0].data) != "latched" || latched[0].ch.Metadata["latching"] != "1" {
		t.Fatalf("/latched: %+v", latched)
	}
	if !strings.HasPrefix(latched[0].ch.Metadata["callerid"], "/rostopic_") {
		t.Fatalf("/latched callerid %q, want rostopic's node", latched[0].ch.Metadata["callerid"])
	}
	// The counts kept in the file match what Run reported.
	stats := got[StatsTopic]
	if len(stats) != 1 {
		t.Fatalf("%s: %d messages, want 1", StatsTopic, len(stats))
	}
	var st Stats
	if err := json.Unmarshal([]byte(stringData(stats[0].data)), &st); err != nil {
		t.Fatal(err)
	}
	for _, ts := range st.Topics {
		if ts.Topic == "/chatter" && (ts.FileWritten != int64(len(chatter)) || ts.Dropped != 0) {
			t.Fatalf("stats %+v, file holds %d /chatter messages", ts, len(chatter))
		}
	}

	info, err := m.Output(t, 60*time.Second, rostest.Python, "/usr/bin/rosbag", "info", ours)
	if err != nil {
		t.Fatalf("rosbag info: %v\n%s", err, info)
	}
	for _, want := range []string{fmt.Sprintf("/chatter               %d msgs", len(chatter)), "/latched                1 msg", "compression: lz4"} {
		if !strings.Contains(strings.Join(strings.Fields(info), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("rosbag info lacks %q:\n%s", want, info)
		}
	}

	py := pythonRead(t, m, ours)
	pyRef := pythonRead(t, m, ref)
	for _, topic := range []string{"/chatter", "/latched"} {
		if len(py[topic].Headers) != 1 || len(pyRef[topic].Headers) != 1 {
			t.Fatalf("%s: %d connection headers (rosbag: %d), want 1", topic, len(py[topic].Headers), len(pyRef[topic].Headers))
		}
		if fmt.Sprint(py[topic].Headers[0]) != fmt.Sprint(pyRef[topic].Headers[0]) {
			t.Errorf("%s connection header\n ours   %v\n rosbag %v", topic, py[topic].Headers[0], pyRef[topic].Headers[0])
		}
	}
	if len(py["/chatter"].Data) != len(chatter) || py["/latched"].Data[0] != "latched" {
		t.Fatalf("python rosbag read %d /chatter messages, /latched %v", len(py["/chatter"].Data), py["/latched"].Data)
	}
}

// pySimClock publishes /clock (999 s until /simtopic has a subscriber,
// then from 1000 s in 10 ms steps paced by the wall clock) and a /simtopic
// String every tenth step.
const pySimClock = `
import time, rospy
from rosgraph_msgs.msg import Clock
from std_msgs.msg import String
rospy.init_node("simclock", disable_signals=True)
c = rospy.Publisher("/clock", Clock, queue_size=10)
p = rospy.Publisher("/simtopic", String, queue_size=100)
t = 999.0
deadline = time.time() + 30
while p.get_num_connections() < 1 and time.time() < deadline:
    c.publish(Clock(clock=rospy.Time.from_sec(t)))
    time.sleep(0.01)
time.sleep(0.5)
t = 1000.0
for i in range(300):
    c.publish(Clock(clock=rospy.Time.from_sec(t)))
    if i % 10 == 5:
        p.publish(String(data="m%d" % i))
    t += 0.01
    time.sleep(0.01)
time.sleep(1)
`

// With /use_sim_time set, message times follow /clock, as rosbag record
// stamps them with ros::Time::now().
func TestRecordSimTime(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	if out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosparam", "set", "/use_sim_time", "true"); err != nil {
		t.Fatalf("rosparam: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "sim.bag")
	pub := m.Start(t, "simclock", rostest.Python, "-c", pySimClock)
	r, stop := startRecorder(t, m, Options{Output: out, Topics: []string{"/simtopic"}})
	if err := pub.Wait(60 * time.Second); err != nil {
		t.Fatalf("publisher: %v\n%s", err, m.Log("simclock"))
	}
	r.waitReceived(t, "/simtopic", 30, 5*time.Second)
	stop()
	rd, err := recording.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	it, err := rd.Messages(record.Filter{Topic: func(s string) bool { return s == "/simtopic" }})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	recordtest.Each(t, it, func(msg *record.Message) {
		// Message i is published right after the clock reads 1000 + i/100 s.
		var i int
		fmt.Sscanf(stringData(msg.Data), "m%d", &i)
		want := int64(1000e9 + int64(i)*10e6)
		if d := msg.LogTime - want; d < -100e6 || d > 200e6 { // loose: /clock and /simtopic are two connections
			t.Fatalf("%s logged at %d ns, want about %d (sim time)", stringData(msg.Data), msg.LogTime, want)
		}
		n++
	})
	if n != 30 {
		t.Fatalf("%d messages, want 30", n)
	}
	if got := readRecording(t, out)["/clock"]; len(got) != 0 {
		t.Fatalf("/clock recorded although not asked for: %d messages", len(got))
	}
}

const pyListener = `
import time, rospy
from std_msgs.msg import String
rospy.init_node("listener", disable_signals=True)
for t in ("/foo", "/bar"):
    rospy.Subscriber(t, String, lambda m: None)
time.sleep(120)
`

// --node records what a node subscribes to (lookupNode, then the node's
// getSubscriptions), and nothing else.
func TestRecordNodeSubscriptions(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Start(t, "listener", rostest.Python, "-c", pyListener)
	for _, topic := range []string{"/foo", "/bar", "/other"} {
		m.Start(t, "pub"+topic[1:], rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", topic, "std_msgs/String", "data: "+topic)
	}
	out := filepath.Join(t.TempDir(), "node.bag")
	r, stop := startRecorder(t, m, Options{Output: out, Node: "/listener"})
	r.waitReceived(t, "/foo", 5, 30*time.Second)
	r.waitReceived(t, "/bar", 5, 30*time.Second)
	waitPublished(t, m, "/other")
	time.Sleep(1500 * time.Millisecond) // a poll or more after /other is up
	stop()
	got := readRecording(t, out)
	if len(got["/foo"]) < 5 || len(got["/bar"]) < 5 || len(got["/other"]) != 0 {
		t.Fatalf("recorded /foo %d /bar %d /other %d", len(got["/foo"]), len(got["/bar"]), len(got["/other"]))
	}
	if s := stringData(got["/bar"][0].data); s != "/bar" {
		t.Fatalf("/bar carries %q", s)
	}
}

// When the master dies mid-recording (ros_comm#2155), the publishers'
// connections keep feeding the recorder, and Ctrl-C still closes the file
// promptly with everything received.
func TestRecordMasterDies(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Start(t, "pub", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/chatter", "std_msgs/String", "data: hello")
	waitPublished(t, m, "/chatter")
	out := filepath.Join(t.TempDir(), "orphan.bag")
	r, stop := startRecorder(t, m, Options{Output: out, Topics: []string{"/chatter"}})
	r.waitReceived(t, "/chatter", 10, 30*time.Second)
	if err := m.Core.Stop(syscall.SIGINT, 15*time.Second); err != nil {
		t.Logf("roscore exit: %v", err)
	}
	before := r.topicStats(nil)[0].Received
	r.waitReceived(t, "/chatter", before+10, 10*time.Second)
	t0 := time.Now()
	res := stop()
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("closing without a master took %s", d)
	}
	if got := readRecording(t, out)["/chatter"]; int64(len(got)) != res.Topics[0].Received || len(got) < int(before)+10 {
		t.Fatalf("file holds %d messages, %d received", len(got), res.Topics[0].Received)
	}
}

const pyWriteBag = `
import sys, rosbag, rospy
from std_msgs.msg import String
with rosbag.Bag(sys.argv[1], "w") as b:
    for i in range(200):
        b.write("/played", String(data="p%d" % i), rospy.Time(1000 + i * 0.01))
`

// What the C++ rosbag play (a roscpp publisher) sends is recorded byte for
// byte, in order, under its header.
func TestRecordRosbagPlay(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	rostest.Require(t, "rosbag")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bag")
	if out, err := m.Output(t, 60*time.Second, rostest.Python, "-c", pyWriteBag, src); err != nil {
		t.Fatalf("writing the bag: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "played.bag")
	r, stop := startRecorder(t, m, Options{Output: out, Topics: []string{"/played"}})
	if o, err := m.Output(t, 60*time.Second, rostest.Python, "/usr/bin/rosbag", "play", "-d", "1", src); err != nil {
		t.Fatalf("rosbag play: %v\n%s", err, o)
	}
	r.waitReceived(t, "/played", 200, 10*time.Second)
	stop()
	got := readRecording(t, out)["/played"]
	if len(got) != 200 {
		t.Fatalf("%d messages, want 200", len(got))
	}
	for i, msg := range got {
		if s := stringData(msg.data); s != fmt.Sprintf("p%d", i) {
			t.Fatalf("message %d is %q", i, s)
		}
	}
	h := got[0].ch
	if !strings.HasPrefix(h.Metadata["callerid"], "/play_") || h.Metadata["latching"] != "0" || h.Schema.MD5 != stringMD5 || string(h.Schema.Data) != stringDef {
		t.Fatalf("connection %+v schema %+v", h.Metadata, h.Schema)
	}
}
