package tf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// tfBag writes the test recording with Debian's rosbag (testdata/tfbag.py).
func tfBag(t testing.TB, seconds, t0 string, more ...string) string {
	t.Helper()
	testenv.RequirePeer(t, "rosbag", "tf2", "ros-msgs", "nav-msgs")
	path := filepath.Join(t.TempDir(), "tf.bag")
	if out, err := exec.Command(testenv.Python, append([]string{"testdata/tfbag.py", path, seconds, t0}, more...)...).CombinedOutput(); err != nil {
		t.Fatalf("tfbag.py: %v\n%s", err, out)
	}
	return path
}

func readBag(t testing.TB, path string) *tf.Reader {
	t.Helper()
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, _, err := tf.Read(context.Background(), in, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type query struct {
	target, source string
	t              int64
}

type answer struct {
	Stamp int64      `json:"stamp"`
	T     [3]float64 `json:"t"`
	Q     [4]float64 `json:"q"`
	Error string     `json:"error"`
	Msg   string     `json:"msg"`
}

// tf2Answers asks Debian's tf2 BufferCore: through its python binding
// (testdata/tf2peer.py) or, with cpp, from C++ (testdata/tf2core.cpp
// compiled against libtf2-dev and fed the transforms tf2peer.py --dump
// reads from the bag).
func tf2Answers(t *testing.T, bag string, qs []query, cpp bool) []answer {
	t.Helper()
	var in bytes.Buffer
	for _, q := range qs {
		fmt.Fprintf(&in, "%s\t%s\t%d\n", q.target, q.source, q.t)
	}
	cmd := exec.Command(testenv.Python, "testdata/tf2peer.py", bag)
	if cpp {
		dump := filepath.Join(t.TempDir(), "transforms.tsv")
		if err := os.WriteFile(dump, tf2Dump(t, bag), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(testenv.TF2Core(t), dump)
	}
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
	}
	var as []answer
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var a answer
		if err := dec.Decode(&a); err != nil {
			break
		}
		as = append(as, a)
	}
	if len(as) != len(qs) {
		t.Fatalf("%s answered %d of %d queries", cmd, len(as), len(qs))
	}
	return as
}

// tf2Dump returns the transforms of bag as Debian's rosbag reads them,
// in log-time order (tf2peer.py --dump): one a line, S or D, parent,
// child, sec, nsec, translation and rotation.
func tf2Dump(t *testing.T, bag string) []byte {
	t.Helper()
	out, err := exec.Command(testenv.Python, "testdata/tf2peer.py", "--dump", bag).Output()
	if err != nil {
		t.Fatalf("tf2peer.py --dump: %v", err)
	}
	return out
}

// pyTime is the time tf2's python binding hands the C++ library for a
// stamp of ns: rospy.Time.to_sec (float(secs) + float(nsecs) / 1e9),
// then ros::Time::fromSec (floor for the seconds, the rest rounded to
// whole ns, half away from zero). At epoch times a double is 2^-22 s
// (238 ns) coarse, so most stamps move by up to 119 ns.
func pyTime(ns int64) int64 {
	s := float64(ns/1e9) + float64(ns%1e9)/1e9
	sec := math.Floor(s)
	return int64(sec)*1e9 + int64(math.Round((s-sec)*1e9))
}

// pyRoundedBuffer fills a Buffer with the transforms of bag as tf2's
// python binding stores them: each stamp through pyTime.
func pyRoundedBuffer(t *testing.T, bag string) (*tf.Buffer, map[string]int) {
	t.Helper()
	b := tf.NewBuffer()
	rejected := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(tf2Dump(t, bag))), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 12 {
			t.Fatalf("tf2peer.py --dump: %q", line)
		}
		sec, err1 := strconv.ParseInt(f[3], 10, 64)
		nsec, err2 := strconv.ParseInt(f[4], 10, 64)
		var v [7]float64
		for i := range v {
			x, err := strconv.ParseFloat(f[5+i], 64)
			if err != nil || err1 != nil || err2 != nil {
				t.Fatalf("tf2peer.py --dump: %q", line)
			}
			v[i] = x
		}
		s := tf.Stamped{Parent: f[1], Child: f[2], Stamp: pyTime(sec*1e9 + nsec), Transform: tf.Transform{
			Translation: tf.Vec3{X: v[0], Y: v[1], Z: v[2]}, Rotation: tf.Quat{X: v[3], Y: v[4], Z: v[5], W: v[6]}}}
		var rej *tf.Rejected
		if err := b.SetTransform(s, f[0] == "S"); errors.As(err, &rej) {
			rejected[rej.Code]++
		}
	}
	return b, rejected
}

// TestLookupMatchesTF2 looks thousands of transforms up across the
// recording — chains through static frames, a second /tf publisher, a
// second tree, repeated stamps, a gap, leading slashes, times before,
// after and exactly at stamps, time 0 — and compares each with Debian's
// tf2 BufferCore fed the same /tf and /tf_static: the same transform
// within 1e-9 and the same stamp, or the same exception and text.
//
// tf2's python binding hands every stamp to the C++ library through a
// double: its rostime_converter calls the rospy.Time's to_sec and
// ros::Time::fromSec on the result, for the stamps set_transform stores
// and for the time lookup_transform_core is asked at alike (tf2_ros's
// Buffer goes through the same lookup_transform_core). At a simulator's
// time (T0 = 1000 s) every nanosecond survives that; at epoch times a
// double is 238 ns coarse and no time object passed from python gets
// through exactly. So at epoch times the peer is tf2 itself from C++
// (testdata/tf2core.cpp, Debian's libtf2-dev: the library the binding
// wraps) fed exact stamps; and the python binding is checked there too,
// against our Buffer given the stamps and times the binding would give
// the library (pyTime: the rounding reproduced here, never in baglab).
func TestLookupMatchesTF2(t *testing.T) {
	t.Run("sim-time", func(t *testing.T) { lookupMatchesTF2(t, 1000, peerPython) })
	t.Run("epoch-cpp", func(t *testing.T) { lookupMatchesTF2(t, 1700000000, peerCpp) })
	t.Run("epoch-python", func(t *testing.T) { lookupMatchesTF2(t, 1700000000, peerPythonRounded) })
	t.Run("tf/tfMessage", func(t *testing.T) { lookupMatchesTF2(t, 1000, peerPython, "old") })
}

// How lookupMatchesTF2 asks tf2.
const (
	peerPython        = iota // the python binding, at times it keeps exactly
	peerCpp                  // the C++ library, exact stamps
	peerPythonRounded        // the python binding; our side given its rounding
)

func lookupMatchesTF2(t *testing.T, t0 int64, peer int, more ...string) {
	bag := tfBag(t, "20", fmt.Sprint(t0), more...)
	var buf *tf.Buffer
	var rejected map[string]int
	when := func(ns int64) int64 { return ns }
	if peer == peerPythonRounded {
		buf, rejected = pyRoundedBuffer(t, bag)
		when = pyTime
	} else {
		r := readBag(t, bag)
		buf, rejected = r.Buffer, r.Rejected
	}
	if rejected["TF_REPEATED_DATA"] == 0 {
		t.Fatalf("no repeated stamps rejected: %v", rejected)
	}
	start := t0 * 1e9
	frames := []string{"map", "odom", "base_link", "arm", "gripper", "laser", "map", "odom", "base_link", "arm", "gripper", "laser", "world2", "island"}
	rng := rand.New(rand.NewPCG(27, 1))
	var qs []query
	for i := 0; i < 4000; i++ {
		a, b := frames[rng.IntN(len(frames))], frames[rng.IntN(len(frames))]
		var at int64
		switch i % 10 {
		case 0: // whole milliseconds, often exactly a stamp of a 100 Hz frame
			at = start + int64(rng.IntN(21000))*1e6 + 7e6
		case 1:
			at = 0
		default:
			at = start - 5e8 + rng.Int64N(21e9)
		}
		qs = append(qs, query{a, b, at})
	}
	qs = append(qs, []query{{"map", "nothere", start + 1e9}, {"nothere", "map", 0}, {"/map", "odom", start + 1e9},
		{"", "odom", start + 1e9}, {"map", "/odom", start}, {"map", "map", 0}, {"gripper", "gripper", 0}, {"x", "x", 5}}...)
	want := tf2Answers(t, bag, qs, peer == peerCpp)
	var ok, failed int
	kinds := map[string]int{}
	for i, q := range qs {
		w := want[i]
		tr, stamp, err := buf.Lookup(q.target, q.source, when(q.t))
		if w.Error != "" {
			var le *tf.LookupError
			if !errors.As(err, &le) || le.Kind() != w.Error || le.Msg != w.Msg {
				t.Fatalf("lookup %v: got %v (%T), tf2 raised %s: %q", q, err, err, w.Error, w.Msg)
			}
			kinds[w.Error]++
			failed++
			continue
		}
		if err != nil {
			t.Fatalf("lookup %v: %v; tf2 gives %+v", q, err, w)
		}
		got := []float64{tr.Translation.X, tr.Translation.Y, tr.Translation.Z, tr.Rotation.X, tr.Rotation.Y, tr.Rotation.Z, tr.Rotation.W}
		exp := append(w.T[:], w.Q[:]...)
		for k := range got {
			if math.Abs(got[k]-exp[k]) > 1e-9 {
				t.Fatalf("lookup %v: got %v at %d, tf2 %v at %d", q, got, stamp, exp, w.Stamp)
			}
		}
		if stamp != w.Stamp {
			t.Fatalf("lookup %v: stamp %d, tf2 %d", q, stamp, w.Stamp)
		}
		ok++
	}
	t.Logf("%d lookups agree with tf2, %d errors agree: %v", ok, failed, kinds)
	for _, k := range []string{"ExtrapolationException", "ConnectivityException", "LookupException", "InvalidArgumentException"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the queries", k)
		}
	}
	if ok < 1000 {
		t.Errorf("only %d successful lookups", ok)
	}
	if !strings.Contains(buf.AllFramesAsString(), "Frame gripper exists with parent arm.") {
		t.Errorf("frames: %s", buf.AllFramesAsString())
	}
}
