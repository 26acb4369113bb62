package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// The player against Debian's ROS1 (rostopic echo, the C++ rosbag record,
// latching) is tested in live/play; here: the command line, and one
// playback through it.

func TestPlayUsageErrors(t *testing.T) {
	bag := studyFile("study.bag")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no recording", []string{"play"}, "requires at least one recording"},
		{"only remaps", []string{"play", "/a:=/b"}, "no recording to play"},
		{"rate 0", []string{"play", bag, "-r", "0"}, "rate 0"},
		{"negative start", []string{"play", bag, "-s", "-1"}, "--start -1"},
		{"bad remap", []string{"play", bag, "--remap", "/a"}, "want FROM:=TO"},
		{"bad exclude", []string{"play", bag, "--exclude", "("}, "--exclude"},
		{"topic that is not there", []string{"play", bag, "--topics", "/no/such/topic"}, "/no/such/topic"},
		{"start past the end", []string{"play", bag, "-s", "100000"}, "past the end"},
		{"queue 0", []string{"play", bag, "--queue", "0"}, "--queue 0"},
		{"hz 0", []string{"play", bag, "--clock", "--hz", "0"}, "hz 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, c.args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr, exitUsage, c.want)
			}
		})
	}
}

// Without a master the command fails at once, naming the master.
func TestPlayWithoutMaster(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("ROS_MASTER_URI", "http://"+addr+"/")
	t.Setenv("ROS_IP", "127.0.0.1")
	_, stderr, code := run(t, "play", studyFile("study.bag"), "-d", "0")
	if code == exitOK || !strings.Contains(stderr, addr) {
		t.Errorf("exit %d, stderr %q; want a failure naming the master %s", code, stderr, addr)
	}
}

// Every --help example parses: its flags exist and take the values given.
func TestPlayExamplesParse(t *testing.T) {
	g := &globalOptions{}
	for _, line := range strings.Split(playExample, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "baglab" || fields[1] != "play" {
			continue
		}
		cmd := newPlayCmd(g)
		var args []string
		for _, f := range fields[2:] {
			args = append(args, strings.Trim(f, "'"))
		}
		if err := cmd.ParseFlags(args); err != nil {
			t.Errorf("%s: %v", line, err)
		}
		if len(cmd.Flags().Args()) == 0 {
			t.Errorf("%s: no recording", line)
		}
	}
}

// writeStringBag writes n std_msgs/String messages on topic, 50 ms apart,
// with baglab's writer and the registry's definition.
func writeStringBag(t *testing.T, topic string, n int) string {
	t.Helper()
	ty, err := msgdef.Default().Lookup("std_msgs/String")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "strings.bag")
	w, err := recording.Create(path, recording.CreateOptions{Compression: "lz4"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "ros1",
		Schema: &record.Schema{Name: ty.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(ty)), MD5: msgdef.MD5(ty)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		s := fmt.Sprintf("message %d of %d", i, n)
		ns := int64(1_700_000_000e9) + int64(i)*50e6
		data := append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
		if err := w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Through the CLI: a remapped, prefixed playback reaches rostopic echo
// with what rostopic echo -b reads from the bag, from the file and (as
// every verb reads "-") from stdin.
func TestPlayCLIToRostopicEcho(t *testing.T) {
	rostest.Require(t, "rostopic", "rosbag", "ros-msgs")
	m := rostest.StartMaster(t)
	m.Setenv(t)
	bag := writeStringBag(t, "/chatter", 20)
	want, err := m.Output(t, time.Minute, "rostopic", "echo", "-b", bag, "-n", "20", "/chatter")
	if err != nil || strings.Count(want, "---") != 20 {
		t.Fatalf("rostopic echo -b: %v\n%s", err, want)
	}
	data, err := os.ReadFile(bag)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, arg string
		stdin     []byte
	}{{"file", bag, nil}, {"stdin", "-", data}} {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				stderr string
				code   int
			}
			done := make(chan result, 1)
			go func() {
				var out, errb bytes.Buffer
				code := Main([]string{"play", c.arg, "--wait-for-subscribers", "-p", "/cli", "/chatter:=/talk"}, bytes.NewReader(c.stdin), &out, &errb)
				done <- result{errb.String(), code}
			}()
			got, err := m.Output(t, time.Minute, "rostopic", "echo", "-n", "20", "/cli/talk")
			if err != nil {
				t.Fatalf("rostopic echo: %v\n%s", err, got)
			}
			if got != want {
				t.Errorf("rostopic echo /cli/talk printed\n%s\nwant\n%s", got, want)
			}
			r := <-done
			if r.code != exitOK || !strings.Contains(r.stderr, "published 20 messages on 1 topic in") {
				t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
		})
	}
}

// makeRelativeBagPy writes, with the python rosbag, topics recorded under
// relative names (rosbag record stores a topic named relative as typed):
// chatter and ns/deep, beside /abs, every 0.1 s for 0.5 s.
const makeRelativeBagPy = `
import sys, rosbag, rospy
from std_msgs.msg import String
t0 = rospy.Time(1700000000, 0)
with rosbag.Bag(sys.argv[1], 'w') as b:
    for i in range(5):
        t = t0 + rospy.Duration.from_sec(i * 0.1)
        b.write('chatter', String(data='rel %d' % i), t)
        b.write('/abs', String(data='abs %d' % i), t)
        b.write('ns/deep', String(data='deep %d' % i), t)
`

// pyStringTopics subscribes to the std_msgs/String topics in argv[1:]
// and prints "TOPIC DATA" for each message, once none came for 1.5 s (or
// none at all for a minute).
const pyStringTopics = `
import sys, time, rospy
from std_msgs.msg import String
rospy.init_node('strings', disable_signals=True)
got, last = [], [time.time() + 60]
def cb(topic):
    def f(m):
        got.append('%s %s' % (topic, m.data))
        last[0] = time.time()
    return f
for t in sys.argv[1:]:
    rospy.Subscriber(t, String, cb(t))
while time.time() - last[0] < 1.5:
    time.sleep(0.05)
print("\n".join(got))
`

// A player in a namespace (__ns:=/r2) publishes topics recorded under
// relative names in it, as Debian's rosbag play does (its node resolves
// them: /r2/chatter, /r2/ns/deep; /abs stays), where baglab published
// them at the root (/chatter, /ns/deep).
func TestPlayRelativeNamesInNamespace(t *testing.T) {
	rostest.Require(t, "rosbag", "ros-msgs")
	m := rostest.StartMaster(t)
	m.Setenv(t)
	bag := filepath.Join(t.TempDir(), "relative.bag")
	if out, err := m.Output(t, time.Minute, rostest.Python, "-c", makeRelativeBagPy, bag); err != nil {
		t.Fatalf("python rosbag: %v\n%s", err, out)
	}
	topics := []string{"/r2/chatter", "/r2/ns/deep", "/abs", "/chatter", "/ns/deep"}
	sub := m.Start(t, "strings", rostest.Python, append([]string{"-c", pyStringTopics}, topics...)...)
	mc := rosnode.NewMaster(m.URI, "/baglab_test_probe")
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, err := mc.GetSystemState(context.Background())
		if err == nil && len(subscribedBy(st, "/strings")) == len(topics) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rospy subscriber did not register (%v)\n%s", err, m.Log("strings"))
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"play", bag, "-d", "1", "__ns:=/r2"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if err := sub.Wait(60 * time.Second); err != nil {
		t.Fatalf("rospy subscriber: %v\n%s", err, m.Log("strings"))
	}
	got := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(m.Log("strings")), "\n") {
		if topic, data, ok := strings.Cut(l, " "); ok {
			got[topic] = append(got[topic], data)
		}
	}
	want := map[string][]string{
		"/r2/chatter": {"rel 0", "rel 1", "rel 2", "rel 3", "rel 4"},
		"/r2/ns/deep": {"deep 0", "deep 1", "deep 2", "deep 3", "deep 4"},
		"/abs":        {"abs 0", "abs 1", "abs 2", "abs 3", "abs 4"},
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rospy received %v, want (as from rosbag play __ns:=/r2) %v", got, want)
	}
}

// subscribedBy lists the topics the master lists node as subscribing to.
func subscribedBy(st *rosnode.SystemState, node string) []string {
	var out []string
	for _, tn := range st.Subscribers {
		if slices.Contains(tn.Nodes, node) {
			out = append(out, tn.Topic)
		}
	}
	return out
}

// rosnode kill stops playback, as it stops Debian's rosbag play (which
// exits 0); baglab logged the shutdown request and played on (with -k,
// for ever).
func TestPlayStopsOnRosnodeKill(t *testing.T) {
	rostest.Require(t, "rosbag", "ros-msgs")
	m := rostest.StartMaster(t)
	m.Setenv(t)
	bag := writeStringBag(t, "/chatter", 5)
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		var out bytes.Buffer
		done <- Main([]string{"play", bag, "-k", "__name:=victim"}, nil, &out, &errb)
	}()
	mc := rosnode.NewMaster(m.URI, "/baglab_test_probe")
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if uri, err := mc.LookupNode(context.Background(), "/victim"); err == nil && uri != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the player did not register /victim")
		}
	}
	if out, err := m.Output(t, time.Minute, "rosnode", "kill", "/victim"); err != nil {
		t.Fatalf("rosnode kill: %v\n%s", err, out)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d, want %d (as rosbag play)\n%s", code, exitOK, errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still playing 15 s after rosnode kill")
	}
}
