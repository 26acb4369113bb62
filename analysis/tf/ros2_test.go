package tf_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
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
// errors, and the same /pose in map through a Framer (the ROS2 header's
// stamp is a struct).
func TestROS2MatchesROS1(t *testing.T) {
	bag := tfBag(t, "20", "1000")
	mcap, db3 := ros2Copy(t, bag)
	r1, s1 := readStamps(t, bag, "/pose")
	for _, f := range []string{mcap, db3} {
		t.Run(filepath.Ext(f), func(t *testing.T) { sameAsROS1(t, bag, r1, s1, f) })
	}
}

func sameAsROS1(t *testing.T, bag1 string, r1 *tf.Reader, s1 []int64, path string) {
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
	p1, p2 := framed(t, r1, bag1), framed(t, r2, path)
	if len(p1) != 400 || strings.Join(p1, "\n") != strings.Join(p2, "\n") {
		t.Fatalf("/pose in map: %d in ROS1, %d in ROS2, or they differ:\n%s\n%s", len(p1), len(p2), p1[0], p2[0])
	}
	found := 0
	for _, p := range p1 {
		if !strings.Contains(p, "NaN") {
			found++
		}
	}
	if found < 300 || found == len(p1) {
		t.Errorf("%d of %d poses in map: want most, not all (%s)", found, len(p1), p1[0])
	}
}

// framed returns the in_map field of each /pose of path, as JSON, through
// a Framer over r's transforms.
func framed(t *testing.T, r *tf.Reader, path string) []string {
	t.Helper()
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fr := tf.NewFramer(r.Buffer, "map")
	var out []string
	err = in.Each(context.Background(), recording.EachOptions{
		Jobs: 1,
		Want: func(string) bool { return true },
		Visit: func(_ int, m *record.Message, dec decode.Decoder) error {
			if m.Channel.Topic != "/pose" {
				return nil
			}
			w, ok := fr.Wrap(dec)
			if !ok {
				return fmt.Errorf("no geometry in %s", dec.Type().Name)
			}
			v, err := w.DecodeValue(m.Data)
			if err != nil {
				return err
			}
			js, err := v.LookupStruct("in_map").MarshalJSON()
			out = append(out, string(js))
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
