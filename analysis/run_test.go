package analysis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/recording"
)

// splitRecording writes the messages of path in three time slices, each a
// bag of its own, through the front door's CopyTo.
func splitRecording(t *testing.T, path string) []string {
	t.Helper()
	var parts []string
	for i, sel := range []recording.Selection{{End: "+15s"}, {Start: "+15s", End: "+120s"}, {Start: "+120s"}} {
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{Selection: sel})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), fmt.Sprintf("part%d.bag", i))
		w, err := recording.Create(out, recording.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := in.CopyTo(context.Background(), w, recording.FormatBag); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		in.Close()
		parts = append(parts, out)
	}
	return parts
}

func runJSON(t *testing.T, paths []string, jobs int) ([]byte, *analysis.Outcome) {
	t.Helper()
	out := runAll(t, paths, recording.InputOptions{}, jobs)
	return resultsJSON(t, out.Results), out
}

// runAll runs every kind over paths opened with opts.
func runAll(t *testing.T, paths []string, opts recording.InputOptions, jobs int) *analysis.Outcome {
	t.Helper()
	in, err := recording.OpenInputs(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := analysis.Run(context.Background(), in, kinds.All(), analysis.Options{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resultsJSON is results as JSON lines, one result a line.
func resultsJSON(t *testing.T, results []analysis.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, r := range results {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestRunExactMerge: each input read into its own accumulators and merged
// gives byte for byte the same results whatever the number of jobs and the
// order of the inputs, and the results of the unsplit recording.
func TestRunExactMerge(t *testing.T) {
	dir := studytest.Dir(t, studygen.Options{Seed: 5, Sessions: 3})
	parts := splitRecording(t, filepath.Join(dir, "study.bag"))
	inputs := append(slices.Clone(parts), filepath.Join(dir, "queries.mcap"))
	one, o1 := runJSON(t, inputs, 1)
	if o1.Messages == 0 || o1.LastNs == 0 {
		t.Fatalf("no message analysed: %+v", o1)
	}
	for _, jobs := range []int{2, 4} {
		for range 3 {
			if got, o := runJSON(t, inputs, jobs); !bytes.Equal(got, one) || o.Messages != o1.Messages || o.LastNs != o1.LastNs {
				t.Fatalf("jobs %d differs from jobs 1", jobs)
			}
		}
	}
	reversed := slices.Clone(inputs)
	slices.Reverse(reversed)
	if got, _ := runJSON(t, reversed, 3); !bytes.Equal(got, one) {
		t.Error("the inputs in reverse order give another result")
	}
	whole, _ := runJSON(t, []string{filepath.Join(dir, "study.bag"), filepath.Join(dir, "queries.mcap")}, 1)
	if !bytes.Equal(whole, one) {
		diffs, _ := baseline.CompareDocs(bytes.ReplaceAll(whole, []byte("\n"), nil), bytes.ReplaceAll(one, []byte("\n"), nil), 1e-12, kinds.TableKeys())
		t.Errorf("the split study differs from the whole: %v", diffs)
	}
}

// TestRunSkipBad: with SkipBad the damaged sample files are analysed from
// their intact messages; without it Run stops with the damage.
func TestRunSkipBad(t *testing.T) {
	for _, name := range []string{"study-truncated.bag", "study-truncated.mcap", "study-crc.mcap"} {
		path := filepath.Join("..", "testdata", "sample", "broken", name)
		skipped := 0
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: true, OnSkip: func(error) { skipped++ }})
		if err != nil {
			t.Fatal(err)
		}
		out, err := analysis.Run(context.Background(), in, kinds.All(), analysis.Options{Learn: analysis.LearnOptions{Disable: true}}, 2)
		in.Close()
		if err != nil || out.Messages == 0 || skipped == 0 {
			t.Errorf("%s with SkipBad: %v (%d skipped)", name, err, skipped)
		}
		in, err = recording.OpenInputs([]string{path}, recording.InputOptions{})
		if err == nil {
			_, err = analysis.Run(context.Background(), in, kinds.All(), analysis.Options{}, 2)
			in.Close()
		}
		if err == nil {
			t.Errorf("%s without SkipBad: no error", name)
		}
	}
}
