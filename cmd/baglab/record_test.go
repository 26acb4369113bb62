package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/recorder"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

func TestRecordUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"record"},
		{"record", "-o", "x.txt", "/a"},
		{"record", "-o", "x.bag", "--split", "/a"},
		{"record", "-o", "x.bag", "--udp", "/a"},
		{"record", "-o", "x.bag", "--bz2", "--lz4", "/a"},
		{"record", "-o", "x.mcap", "--bz2", "/a"},
		{"record", "-o", "x.bag", "-a", "-l", "3"},
		{"record", "-o", "x.bag", "--duration", "soon", "/a"},
		{"record", "-o", "x.bag", "--size", "-3", "/a"},
		{"record", "-o", "x.bag", "-o", "y.bag", "--output-prefix", "p", "/a"},
	} {
		if _, errOut, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
}

// An output record cannot write ends it at once with exit 5, before any
// master is contacted (ROS_MASTER_URI names a closed port: a check left to
// the first message would wait there).
func TestRecordOutputErrors(t *testing.T) {
	t.Setenv("ROS_MASTER_URI", "http://127.0.0.1:1/")
	dir := t.TempDir()
	file := filepath.Join(dir, "run.bag")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d.bag"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-O", file}, "baglab: cannot write " + file + ": the file exists (use --force to overwrite)\n"},
		{[]string{"-O", filepath.Join(file, "x.bag"), "-f"}, "baglab: cannot write " + file + ": " + file + " is a file, not a directory\n"},
		{[]string{"-O", filepath.Join(dir, "d.bag"), "-f"}, "baglab: cannot write " + filepath.Join(dir, "d.bag") + ": a directory, not a file\n"},
	} {
		_, errOut, code := run(t, append(append([]string{"record"}, c.args...), "/a")...)
		if code != exitOutput || errOut != c.want {
			t.Errorf("%v: exit %d, want %d\n%s\nwant\n%s", c.args, code, exitOutput, errOut, c.want)
		}
	}
}

// TestRecordSplitExists: a split file that exists ends the recording when
// its turn comes with what an existing first file gets before the start:
// exit 5 and cmd's text. Before, exit 1 and the recorder's own text.
func TestRecordSplitExists(t *testing.T) {
	m := rostest.StartMaster(t)
	m.Setenv(t)
	dir := t.TempDir()
	taken := filepath.Join(dir, "split_1.bag")
	if err := os.WriteFile(taken, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	g := &globalOptions{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	a := recorder.DefaultArgs()
	a.Output, a.Split, a.Duration = filepath.Join(dir, "split.bag"), true, "1"
	err := runRecord(ctx, &recordOptions{g: g, a: a}, []string{"/chatter"})
	var msg bytes.Buffer
	printError(&msg, err)
	want := "baglab: cannot write " + taken + ": the file exists (use --force to overwrite)\n"
	if code := exitCode(err); code != exitOutput || msg.String() != want {
		t.Errorf("exit %d, want %d\n%s\nwant\n%s", code, exitOutput, msg.String(), want)
	}
	if st, err := os.Stat(taken); err != nil || st.Size() != 0 {
		t.Errorf("%s: %v, %v: want it untouched", taken, st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "split_0.bag")); err != nil {
		t.Errorf("the first file: %v", err)
	}
}

func readTopics(t *testing.T, path string) map[string][]*record.Message {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return recordtest.MessagesByTopic(t, r)
}

// baglab record through the CLI against rostopic pub: -l stops by itself;
// --split --duration with --max-splits 2 keeps the newest three files (two
// closed besides the one being written, as rosbag record leaves them), each
// starting with the latched message under its own header
// (--repeat-latched); Ctrl-C (the cancelled context) closes the last file.
func TestRecordCLI(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Setenv(t)
	m.Start(t, "pub-latched", rostest.Python, "/usr/bin/rostopic", "pub", "-l", "/latched", "std_msgs/String", "data: kept")
	m.Start(t, "pub-chatter", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/chatter", "std_msgs/String", "data: hello")
	dir := t.TempDir()

	limited := filepath.Join(dir, "limited.bag")
	if _, errOut, code := run(t, "record", "-o", limited, "-l", "5", "/chatter", "__name:=/limited_rec"); code != exitOK {
		t.Fatalf("record -l 5: exit %d\n%s", code, errOut)
	}
	if got := readTopics(t, limited)["/chatter"]; len(got) != 5 {
		t.Fatalf("-l 5 recorded %d /chatter messages", len(got))
	}

	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	g := &globalOptions{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	a := recorder.DefaultArgs()
	a.Output, a.Split, a.Duration, a.MaxSplits, a.RepeatLatched, a.Compression = filepath.Join(dir, "split.bag"), true, "1", 2, true, "lz4"
	o := &recordOptions{g: g, a: a}
	done := make(chan error, 1)
	go func() { done <- runRecord(ctx, o, []string{"/chatter", "/latched"}) }()
	time.Sleep(4500 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	// The start line names the file recording starts in, as written.
	if want := "recording to " + filepath.Join(dir, "split_0.bag.active") + " "; !strings.Contains(stderr.String(), want) {
		t.Errorf("record --split: stderr %q, want %q", stderr.String(), want)
	}
	entries, _ := os.ReadDir(dir)
	var splits []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "split") {
			splits = append(splits, e.Name())
		}
	}
	if len(splits) != 3 || !slices.IsSorted(splits) || splits[0] == "split_0.bag" || strings.HasSuffix(splits[2], ".active") {
		t.Fatalf("files %v: want the newest three split_N.bag", splits)
	}
	for _, name := range splits {
		got := readTopics(t, filepath.Join(dir, name))
		l := got["/latched"]
		if len(l) != 1 || string(l[0].Data[4:]) != "kept" || l[0].Channel.Metadata["latching"] != "1" ||
			!strings.HasPrefix(l[0].Channel.Metadata["callerid"], "/rostopic_") {
			t.Fatalf("%s: /latched %v", name, l)
		}
		if len(got["/chatter"]) == 0 {
			t.Fatalf("%s: no /chatter", name)
		}
	}
	for _, want := range []string{"RECEIVED", "/chatter", "wrote " + filepath.Join(dir, splits[2])} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// pyBig publishes 2 MB std_msgs/String messages on /big at 20 Hz.
const pyBig = `
import rospy
from std_msgs.msg import String
rospy.init_node("big", disable_signals=True)
pub = rospy.Publisher("/big", String, queue_size=10)
r = rospy.Rate(20)
while not rospy.is_shutdown():
    pub.publish(String(data="x" * (2 << 20)))
    r.sleep()
`

// Ctrl-C ends a recording that dropped messages from a full buffer with
// exit 1 and the count of the drops, as record --help says, and the file
// closed: the signal does not turn it into exit 130 and "no partial
// output was kept" (the file is kept).
func TestRecordDropsThenInterrupt(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rospy", "ros-msgs")
	m.Setenv(t)
	m.Start(t, "big", rostest.Python, "-c", pyBig)
	path := filepath.Join(t.TempDir(), "big.bag")
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"record", "-o", path, "-b", "1", "/big"}, strings.NewReader(""), &strings.Builder{}, &errb)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(m.Log("big")+errb.String(), "connected to /big") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // about 40 messages, each over the 1 MB buffer
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("record did not stop within 20 s of SIGINT")
	}
	stderr := errb.String()
	if code != exitProblem || !strings.Contains(stderr, "messages dropped from a full buffer") || strings.Contains(stderr, "no partial output") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d naming the drops", code, stderr, exitProblem)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the recording was not kept: %v", err)
	}
}

// TestRecordAllEndsQuietly: record -a subscribes to its own /rosout; a
// normal Ctrl-C printed "publisher /rosout: subscriber ... disconnected:
// writev ...: use of closed network connection", an error-looking line
// for the link the recorder itself closed.
func TestRecordAllEndsQuietly(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Setenv(t)
	m.Start(t, "pub-chatter", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/chatter", "std_msgs/String", "data: hello")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	g := &globalOptions{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	a := recorder.DefaultArgs()
	a.All, a.Output = true, filepath.Join(t.TempDir(), "all.bag")
	done := make(chan error, 1)
	go func() { done <- runRecord(ctx, &recordOptions{g: g, a: a}, nil) }()
	time.Sleep(3 * time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("record -a: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "/rosout") || strings.Contains(stderr.String(), "use of closed network connection") {
		t.Errorf("record -a, Ctrl-C: stderr %q; want /rosout recorded and no closed-connection line", stderr.String())
	}
}
