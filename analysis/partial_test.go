package analysis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/recording"
)

// partialJSON accumulates paths and returns their partial file as
// written.
func partialJSON(tb testing.TB, paths []string) []byte {
	tb.Helper()
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	acc, err := analysis.Accumulate(context.Background(), in, kinds.All(), analysis.Options{}, 2)
	if err != nil {
		tb.Fatal(err)
	}
	var inputs []analysis.Input
	for _, path := range paths {
		inputs = append(inputs, analysis.Input{Path: path})
	}
	p, err := acc.Partial("test", inputs, in.Summary().StartNs)
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// partialOf accumulates paths and returns their partial file as written
// and read back.
func partialOf(t *testing.T, paths []string) *analysis.PartialFile {
	t.Helper()
	back, err := analysis.ReadPartial(bytes.NewReader(partialJSON(t, paths)), "partial")
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestPartialsMergeExactly: the inputs analysed in three groups, each
// saved as a partial file and read back, merge into byte for byte the
// results of one run over all of them, learned models included.
func TestPartialsMergeExactly(t *testing.T) {
	dir := studytest.Dir(t, studygen.Options{Seed: 9, Sessions: 4})
	parts := splitRecording(t, filepath.Join(dir, "study.bag"))
	groups := [][]string{{parts[0]}, {parts[1], parts[2]}, {filepath.Join(dir, "queries.mcap"), filepath.Join(dir, "all_types_ros2.db3")}}
	var all []string
	var partials []*analysis.PartialFile
	for _, g := range groups {
		all = append(all, g...)
		partials = append(partials, partialOf(t, g))
	}
	one, o1 := runJSON(t, all, 2)
	acc, err := analysis.MergePartials(partials, []string{"p0", "p1", "p2"}, kinds.All(), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := acc.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	got := resultsJSON(t, merged.Results)
	if !bytes.Equal(got, one) {
		diffs, _ := baseline.CompareDocs(bytes.ReplaceAll(one, []byte("\n"), nil), bytes.ReplaceAll(got, []byte("\n"), nil), 0, kinds.TableKeys())
		t.Fatalf("merged partials differ from one run: %v", diffs)
	}
	if merged.Messages != o1.Messages || merged.LastNs != o1.LastNs {
		t.Errorf("merged %d messages, last %d; one run %d, %d", merged.Messages, merged.LastNs, o1.Messages, o1.LastNs)
	}
	// The models a robot loads: the item, room and surface messages came
	// through the partial as well.
	tmType, err := msgdef.Default().Lookup("interactive_world_msgs/TaskModels")
	if err != nil {
		t.Fatal(err)
	}
	models := func(rs []analysis.Result) []byte {
		for _, r := range rs {
			if p, ok := r.(*analysis.PlacementsResult); ok {
				v, err := p.TaskModels(tmType)
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
		t.Fatal("no placements result")
		return nil
	}
	in, _ := recording.OpenInputs(all, recording.InputOptions{})
	direct, err := analysis.Run(context.Background(), in, kinds.All(), analysis.Options{}, 1)
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := models(direct.Results), models(merged.Results); !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"width"`)) {
		t.Errorf("TaskModels from partials differ from one run's:\n%s\n%s", b, a)
	}
	if analysis.StartNs(partials) != partials[0].StartNs || partials[0].StartNs == 0 {
		t.Errorf("start %d", analysis.StartNs(partials))
	}
}

func TestReadPartialErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":      "{",
		"other format":  `{"format":"baglab.result","version":1}`,
		"newer version": `{"format":"baglab.analysis.partial","version":99}`,
	} {
		if _, err := analysis.ReadPartial(strings.NewReader(doc), name); !errors.Is(err, analysis.ErrPartial) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := &analysis.PartialFile{Format: analysis.PartialFormat, Version: 1, Kinds: []string{"grasps"},
		States: map[string]json.RawMessage{"grasps": json.RawMessage(`{"grasps":[],"events":[],"extra":1}`)}}
	if _, err := analysis.MergePartials([]*analysis.PartialFile{p}, []string{"p"}, []analysis.Kind{analysis.GraspsKind}, analysis.Options{}); !errors.Is(err, analysis.ErrPartial) {
		t.Errorf("unknown state field: %v", err)
	}
	if _, err := analysis.MergePartials([]*analysis.PartialFile{p}, []string{"p"}, []analysis.Kind{analysis.FactsKind}, analysis.Options{}); !errors.Is(err, analysis.ErrPartial) {
		t.Errorf("kind missing: %v", err)
	}
}
