package tf_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// ros2Copy writes the messages of bag (read by Debian's rosbag) as a ROS2
// MCAP file — tf2_msgs/msg/TFMessage and geometry_msgs/msg/PoseStamped in
// CDR — with npm @mcap/core and @foxglove/rosmsg2-serialization, and the
// same CDR messages as a rosbag2 .db3 file with Python's sqlite3.
func ros2Copy(t *testing.T, bag string) (mcap, db3 string) {
	t.Helper()
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "sqlite3")
	dump, err := exec.Command(testenv.Python, "testdata/bagjson.py", bag).Output()
	if err != nil {
		t.Fatalf("bagjson.py: %v", err)
	}
	dir := t.TempDir()
	mcap, db3, cdr := filepath.Join(dir, "tf.mcap"), filepath.Join(dir, "tf.db3"), filepath.Join(dir, "cdr.jsonl")
	js := filepath.Join(testenv.Root(t), "analysis", "tf", "testdata", "ros2mcap.js")
	cmd := exec.Command("node", js, testenv.NodeDir(t), mcap, cdr)
	cmd.Stdin = bytes.NewReader(dump)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ros2mcap.js: %v\n%s", err, out)
	}
	if out, err := exec.Command(testenv.Python, "testdata/db3write.py", cdr, db3).CombinedOutput(); err != nil {
		t.Fatalf("db3write.py: %v\n%s", err, out)
	}
	return mcap, db3
}

func readStamps(t *testing.T, path, topic string) (*tf.Reader, []int64) {
	t.Helper()
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, stamps, err := tf.Read(context.Background(), in, topic)
	if err != nil {
		t.Fatal(err)
	}
	return r, stamps
}

// TestROS2MatchesROS1 reads the same transforms from the ROS1 bag (which
// TestLookupMatchesTF2 holds against tf2) and from ROS2 MCAP and .db3
// copies that independent writers made of it: the same frames, the same
// /pose header stamps (builtin_interfaces/Time), and identical lookups and
// errors.
func TestROS2MatchesROS1(t *testing.T) {
	bag := tfBag(t, "20", "1000")
	mcap, db3 := ros2Copy(t, bag)
	r1, s1 := readStamps(t, bag, "/pose")
	for _, f := range []string{mcap, db3} {
		t.Run(filepath.Ext(f), func(t *testing.T) { sameAsROS1(t, r1, s1, f) })
	}
}

func sameAsROS1(t *testing.T, r1 *tf.Reader, s1 []int64, path string) {
	r2, s2 := readStamps(t, path, "/pose")
	if fmt.Sprint(s1) != fmt.Sprint(s2) || len(s1) != 400 {
		t.Fatalf("/pose stamps differ: %d in the bag, %d in the MCAP", len(s1), len(s2))
	}
	if r2.Transforms != r1.Transforms || fmt.Sprint(r2.Rejected) != fmt.Sprint(r1.Rejected) {
		t.Fatalf("ROS2: %d transforms, rejected %v; ROS1: %d, %v", r2.Transforms, r2.Rejected, r1.Transforms, r1.Rejected)
	}
	frames := r1.Buffer.Frames()
	rng := rand.New(rand.NewPCG(2, 7))
	for i := 0; i < 4000; i++ {
		a, b := frames[rng.IntN(len(frames))], frames[rng.IntN(len(frames))]
		at := int64(1000e9) - 5e8 + rng.Int64N(21e9)
		if i%10 == 0 {
			at = 0
		}
		t1, st1, err1 := r1.Buffer.Lookup(a, b, at)
		t2, st2, err2 := r2.Buffer.Lookup(a, b, at)
		if t1 != t2 || st1 != st2 || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("%s in %s at %d: ROS1 %v %d %v, ROS2 %v %d %v", b, a, at, t1, st1, err1, t2, st2, err2)
		}
	}
}
