package analysis_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// sampleSets are the recordings of testdata/sample: the intact ones, and
// the damaged ones (four cuts of one study, so the same facts, grasps and
// placements at the same times in several files), read with skip-bad.
func sampleSets(t *testing.T) []struct {
	name    string
	paths   []string
	skipBad bool
} {
	t.Helper()
	dir := filepath.Join("..", "testdata", "sample")
	var intact []string
	for _, pat := range []string{"*.bag", "*.mcap", "*.db3", "queries_rosbag2"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		intact = append(intact, m...)
	}
	broken, err := filepath.Glob(filepath.Join(dir, "broken", "*"))
	if err != nil || len(intact) < 10 || len(broken) < 4 {
		t.Fatalf("samples: %d intact, %d broken (%v)", len(intact), len(broken), err)
	}
	return []struct {
		name    string
		paths   []string
		skipBad bool
	}{{"sample", intact, false}, {"broken", broken, true}}
}

// repeatRun is the --json document and the text tables of every kind over
// paths.
func repeatRun(t *testing.T, paths []string, skipBad bool, jobs int) []byte {
	t.Helper()
	out := runAll(t, paths, recording.InputOptions{SkipBad: skipBad, OnSkip: func(error) {}}, jobs)
	doc, err := analysis.Document("all", out.Results)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(doc)
	if err := analysis.WriteText(&b, out.Results, true); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRunRepeatable: every analysis over the sample recordings gives the
// same bytes (--json and text tables) on every run, with any number of
// jobs and the inputs in either order. Go iterates maps in a new order
// every time, so 20 runs in one process show any result that depends on
// it. Before, the facts intervals of the damaged samples (tied starts
// across files) came out in map order.
func TestRunRepeatable(t *testing.T) {
	for _, set := range sampleSets(t) {
		t.Run(set.name, func(t *testing.T) {
			want := repeatRun(t, set.paths, set.skipBad, 1)
			if !bytes.Contains(want, []byte(`"intervals": [`)) {
				t.Fatalf("no fact intervals in %s", set.name)
			}
			for run := 1; run < 20; run++ {
				paths := set.paths
				if run%2 == 1 {
					paths = slices.Clone(paths)
					slices.Reverse(paths)
				}
				if got := repeatRun(t, paths, set.skipBad, 1+run%4); !bytes.Equal(got, want) {
					t.Fatalf("run %d (jobs %d, reversed %v) differs from run 0:\n%s", run, 1+run%4, run%2 == 1,
						testenv.FirstDiff(got, want))
				}
			}
		})
	}
}
