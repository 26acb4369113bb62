package tf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// tfBag writes the test recording with Debian's rosbag (testdata/tfbag.py).
func tfBag(t testing.TB, seconds, t0 string, more ...string) string {
	t.Helper()
	testenv.RequirePeer(t, "rosbag", "tf2", "ros-msgs")
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

// numbers are the times in tf2's error texts, which the binding's rounding
// moves at epoch times.
var numbers = regexp.MustCompile(`[0-9][0-9.]*`)

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

// tf2Answers asks Debian's tf2 BufferCore (testdata/tf2peer.py).
func tf2Answers(t *testing.T, bag string, qs []query) []answer {
	t.Helper()
	var in bytes.Buffer
	for _, q := range qs {
		fmt.Fprintf(&in, "%s\t%s\t%d\n", q.target, q.source, q.t)
	}
	cmd := exec.Command(testenv.Python, "testdata/tf2peer.py", bag)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tf2peer.py: %v\n%s", err, stderr.String())
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
		t.Fatalf("tf2peer.py answered %d of %d queries", len(as), len(qs))
	}
	return as
}

// TestLookupMatchesTF2 looks thousands of transforms up across the
// recording — chains through static frames, a second /tf publisher, a
// second tree, repeated stamps, a gap, leading slashes, times before,
// after and exactly at stamps, time 0 — and compares each with Debian's
// tf2 BufferCore fed the same /tf and /tf_static: the same transform
// within 1e-9 and the same stamp, or the same exception and text.
//
// tf2's python binding passes every stamp through a double (to_sec), 238
// ns coarse at epoch times, so the exact comparison runs at a simulator's
// time (T0 = 1000 s), and at epoch times the transforms agree within what
// that rounding moves them (1e-4) and stamps within 1 µs.
func TestLookupMatchesTF2(t *testing.T) {
	t.Run("sim-time", func(t *testing.T) { lookupMatchesTF2(t, 1000, 1e-9, 0) })
	t.Run("epoch", func(t *testing.T) { lookupMatchesTF2(t, 1700000000, 1e-4, 1000) })
	t.Run("tf/tfMessage", func(t *testing.T) { lookupMatchesTF2(t, 1000, 1e-9, 0, "old") })
}

func lookupMatchesTF2(t *testing.T, t0 int64, tol float64, stampTol int64, more ...string) {
	bag := tfBag(t, "20", fmt.Sprint(t0), more...)
	r := readBag(t, bag)
	if r.Rejected["TF_REPEATED_DATA"] == 0 {
		t.Fatalf("no repeated stamps rejected: %v", r.Rejected)
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
	want := tf2Answers(t, bag, qs)
	var ok, failed int
	kinds := map[string]int{}
	for i, q := range qs {
		w := want[i]
		tr, stamp, err := r.Buffer.Lookup(q.target, q.source, q.t)
		if w.Error != "" {
			var le *tf.LookupError
			if !errors.As(err, &le) || le.Kind() != w.Error || le.Msg != w.Msg && (stampTol == 0 || numbers.ReplaceAllString(le.Msg, "N") != numbers.ReplaceAllString(w.Msg, "N")) {
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
			if math.Abs(got[k]-exp[k]) > tol {
				t.Fatalf("lookup %v: got %v at %d, tf2 %v at %d", q, got, stamp, exp, w.Stamp)
			}
		}
		if d := stamp - w.Stamp; d > stampTol || -d > stampTol {
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
	if !strings.Contains(r.Buffer.AllFramesAsString(), "Frame gripper exists with parent arm.") {
		t.Errorf("frames: %s", r.Buffer.AllFramesAsString())
	}
}
