package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// pyPublisher publishes N std_msgs/String "NAME-i" at RATE Hz on TOPIC once
// a subscriber is connected, then lingers a second and exits.
const pyPublisher = `
import sys, time, rospy
from std_msgs.msg import String
name, topic, n, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
rospy.init_node(name, disable_signals=True)
pub = rospy.Publisher(topic, String, queue_size=100000)
deadline = time.time() + 30
while pub.get_num_connections() < 1 and time.time() < deadline:
    time.sleep(0.05)
time.sleep(0.5)
r = rospy.Rate(rate)
for i in range(n):
    pub.publish(String(data="%s-%d" % (name, i)))
    r.sleep()
time.sleep(1.0)
print("published", n, flush=True)
`

// Two rospy nodes publishing one topic reach the recorder on two
// connections; every message is recorded, in order, under its own
// publisher's connection header. The topic appears after recording starts
// and is found by polling the master (-e).
func TestRecordTwoRospyPublishers(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	out := filepath.Join(t.TempDir(), "multi.mcap")
	r, stop := startRecorder(t, m, Options{Output: out, Regex: true, Topics: []string{"/mul.*"}})
	a := m.Start(t, "pub-a", rostest.Python, "-c", pyPublisher, "talker_a", "/multi", "200", "100")
	b := m.Start(t, "pub-b", rostest.Python, "-c", pyPublisher, "talker_b", "/multi", "200", "100")
	for _, p := range []*rostest.Proc{a, b} {
		if err := p.Wait(60 * time.Second); err != nil {
			t.Fatalf("rospy publisher: %v\n%s\n%s", err, m.Log("pub-a"), m.Log("pub-b"))
		}
	}
	r.waitReceived(t, "/multi", 400, 10*time.Second)
	res := stop()
	got := readRecording(t, out)["/multi"]
	byCaller := map[string][]string{}
	for _, msg := range got {
		if msg.ch.Schema.Name != "std_msgs/String" || msg.ch.Schema.Encoding != "ros1msg" || msg.ch.Metadata["latching"] != "0" {
			t.Fatalf("channel %+v %+v", msg.ch, msg.ch.Schema)
		}
		byCaller[msg.ch.Metadata["callerid"]] = append(byCaller[msg.ch.Metadata["callerid"]], stringData(msg.data))
	}
	for _, name := range []string{"talker_a", "talker_b"} {
		msgs := byCaller["/"+name]
		if len(msgs) != 200 {
			t.Fatalf("%s: %d messages, want 200 (callers %v)", name, len(msgs), len(byCaller))
		}
		for i, s := range msgs {
			if s != fmt.Sprintf("%s-%d", name, i) {
				t.Fatalf("%s message %d is %q", name, i, s)
			}
		}
	}
	if len(byCaller) != 2 {
		t.Fatalf("callers %v", byCaller)
	}
	if res.Dropped() != 0 || res.Topics[0].Written != 400 {
		t.Fatalf("result %+v", res.Topics)
	}
	// The counts are kept in the MCAP file's metadata.
	rd, err := recording.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	mds, _, err := recording.Extras(rd)
	if err != nil {
		t.Fatal(err)
	}
	var kept TopicStats
	for _, md := range mds {
		if md.Name == StatsMetadata {
			if err := json.Unmarshal([]byte(md.Metadata["/multi"]), &kept); err != nil {
				t.Fatal(err)
			}
		}
	}
	if kept.FileWritten != 400 || kept.Received != 400 || kept.Dropped != 0 {
		t.Fatalf("%s metadata for /multi: %+v", StatsMetadata, kept)
	}
}

type childConfig struct {
	Output, Compression, Master string
	Topics                      []string
	ChunkSize                   int
}

// The recorder child process of TestRecordKilled.
func TestMain(mm *testing.M) {
	if cfg := os.Getenv("BAGLAB_RECORD_CHILD"); cfg != "" {
		var c childConfig
		if err := json.Unmarshal([]byte(cfg), &c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		o := Options{Output: c.Output, Topics: c.Topics, ChunkSize: c.ChunkSize, Compression: c.Compression}
		o.NodeOptions.MasterURI, o.NodeOptions.Host, o.NodeOptions.Namespace = c.Master, "127.0.0.1", "/"
		o.Logf = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
		r, err := New(o)
		if err == nil {
			_, err = r.Run(context.Background())
		}
		fmt.Fprintln(os.Stderr, "recorder ended:", err)
		os.Exit(1)
	}
	os.Exit(mm.Run())
}

// A recorder killed with SIGKILL leaves NAME.active; reindexing it (bag)
// or recovering it (MCAP) gives back every message but those of the chunk
// it was filling.
func TestRecordKilledRecoversWrittenChunks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ext, compression string }{{".bag", "bz2"}, {".mcap", "zstd"}} {
		t.Run(tc.ext, func(t *testing.T) {
			t.Parallel()
			killAndRecover(t, tc.ext, tc.compression)
		})
	}
}

func killAndRecover(t *testing.T, ext, compression string) {
	m := rostest.StartMaster(t)
	out := filepath.Join(t.TempDir(), "killed"+ext)
	const chunk = 4096
	cfg, err := json.Marshal(childConfig{Output: out, Topics: []string{"/count"}, ChunkSize: chunk, Compression: compression, Master: m.URI})
	if err != nil {
		t.Fatal(err)
	}
	child := m.StartEnv(t, "child", []string{"BAGLAB_RECORD_CHILD=" + string(cfg)}, os.Args[0], "-test.run=^$")
	pub := m.Start(t, "pub", rostest.Python, "-c", pyPublisher, "counter", "/count", "1000", "500")
	if err := pub.Wait(60 * time.Second); err != nil {
		t.Fatalf("publisher: %v\n%s", err, m.Log("pub"))
	}
	time.Sleep(500 * time.Millisecond)
	child.Signal(syscall.SIGKILL)
	_ = child.Wait(10 * time.Second)
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("%s exists after SIGKILL", out)
	}
	fixed := filepath.Join(t.TempDir(), "fixed"+ext)
	var rep fmt.Stringer
	if ext == ".bag" {
		rep, err = bag.Reindex(out+".active", fixed)
	} else {
		rep, err = mcapfile.Recover(out+".active", fixed)
	}
	if err != nil {
		t.Fatalf("repair: %v\n%s", err, m.Log("child"))
	}
	t.Logf("repair: %s", rep)
	msgs := readRecording(t, fixed)["/count"]
	// A message record in a chunk takes 40 bytes or more: at most chunk/40
	// messages can be in the unwritten chunk.
	if len(msgs) < 1000-chunk/40 || len(msgs) > 1000 {
		t.Fatalf("recovered %d of 1000 messages, want all but the last chunk's (at most %d)\n%s", len(msgs), chunk/40, m.Log("child"))
	}
	for i, msg := range msgs {
		if s := stringData(msg.data); s != fmt.Sprintf("counter-%d", i) {
			t.Fatalf("recovered message %d is %q", i, s)
		}
		if msg.ch.Metadata["callerid"] != "/counter" {
			t.Fatalf("callerid %q", msg.ch.Metadata["callerid"])
		}
	}
	if strings.Contains(m.Log("child"), "panic") {
		t.Fatal(m.Log("child"))
	}
}

// A publisher that appears after the subscription is reached through the
// master's publisherUpdate; --split --size starts NAME_N files at the size
// and no message is lost or repeated across them.
func TestRecordSplitBySizeLatePublisher(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "late.bag")
	r, stop := startRecorder(t, m, Options{Output: out, Topics: []string{"/late"}, Split: true, Size: 16 << 10, ChunkSize: 4 << 10})
	pub := m.Start(t, "pub", rostest.Python, "-c", pyPublisher, "late", "/late", "600", "300")
	if err := pub.Wait(60 * time.Second); err != nil {
		t.Fatalf("publisher: %v\n%s", err, m.Log("pub"))
	}
	r.waitReceived(t, "/late", 600, 10*time.Second)
	res := stop()
	if len(res.Files) < 3 {
		t.Fatalf("files %v: want at least 3 splits of 16 KB for ~40 KB", res.Files)
	}
	i := 0
	for k, f := range res.Files {
		if want := filepath.Join(dir, fmt.Sprintf("late_%d.bag", k)); f != want {
			t.Fatalf("file %d is %s, want %s", k, f, want)
		}
		for _, msg := range readRecording(t, f)["/late"] {
			if s := stringData(msg.data); s != fmt.Sprintf("late-%d", i) {
				t.Fatalf("%s: message %d is %q", f, i, s)
			}
			i++
		}
	}
	if i != 600 {
		t.Fatalf("%d messages across the splits, want 600", i)
	}
}

// A full buffer drops and counts: with a 1-byte buffer every message is
// dropped, and the counts are returned and kept in the bag.
func TestRecordCountsDrops(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	out := filepath.Join(t.TempDir(), "drops.bag")
	o := Options{Output: out, Topics: []string{"/flood"}, BufSize: 1}
	r, stop := startRecorder(t, m, o)
	pub := m.Start(t, "pub", rostest.Python, "-c", pyPublisher, "flood", "/flood", "50", "100")
	if err := pub.Wait(60 * time.Second); err != nil {
		t.Fatalf("publisher: %v\n%s", err, m.Log("pub"))
	}
	r.waitReceived(t, "/flood", 50, 10*time.Second)
	res := stop()
	if res.Dropped() != 50 || res.Topics[0].Written != 0 {
		t.Fatalf("result %+v, want 50 dropped", res.Topics)
	}
	got := readRecording(t, out)
	if len(got["/flood"]) != 0 {
		t.Fatalf("%d messages written", len(got["/flood"]))
	}
	var st Stats
	if err := json.Unmarshal([]byte(stringData(got[StatsTopic][0].data)), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Topics) != 1 || st.Topics[0].Dropped != 50 || st.Topics[0].Received != 50 {
		t.Fatalf("kept stats %+v", st.Topics)
	}
}
