package analysis_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/recording"
)

// TestPartialFiles: each recording described (size and SHA-256 as
// crypto/sha256 computes them, its summary), its partial written to a
// file, and the files merged by MergePartialFiles give the results of one
// run over both recordings.
func TestPartialFiles(t *testing.T) {
	dir := studytest.Dir(t, studygen.Options{Seed: 3, Sessions: 2})
	paths := []string{filepath.Join(dir, "study.bag"), filepath.Join(dir, "queries.mcap")}
	var files []string
	for i, path := range paths {
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := analysis.DescribeInputs(in)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		sum := sha256.Sum256(data)
		d, err := recording.Describe(path)
		if err != nil {
			t.Fatal(err)
		}
		want := analysis.Input{Path: path, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]),
			Format: d.Format, StartNs: d.StartNs, EndNs: d.EndNs, MessageCount: d.MessageCount}
		if len(inputs) != 1 || !reflect.DeepEqual(inputs[0], want) || want.MessageCount == 0 {
			t.Fatalf("described %+v, want %+v", inputs, want)
		}
		acc, err := analysis.Accumulate(context.Background(), in, kinds.All(), analysis.Options{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := acc.Partial("test", inputs, in.Summary().StartNs)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, []string{"a", "b"}[i]+".partial.json"))
		if err := os.WriteFile(files[i], b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	acc, inputs, startNs, err := analysis.MergePartialFiles(files, kinds.All(), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 2 || inputs[0].Path != paths[0] || inputs[1].Path != paths[1] {
		t.Errorf("inputs %+v", inputs)
	}
	if want := min(inputs[0].StartNs, inputs[1].StartNs); startNs != want {
		t.Errorf("start %d, want %d", startNs, want)
	}
	merged, err := acc.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	one, _ := runJSON(t, paths, 1)
	if !bytes.Equal(resultsJSON(t, merged.Results), one) {
		t.Error("merged partial files differ from one run")
	}

	if _, _, _, err := analysis.MergePartialFiles([]string{files[0], filepath.Join(dir, "none")}, kinds.All(), analysis.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, _, _, err := analysis.MergePartialFiles([]string{paths[0]}, kinds.All(), analysis.Options{}); !errors.Is(err, analysis.ErrPartial) {
		t.Errorf("a bag as a partial: %v", err)
	}
	if _, _, _, err := analysis.MergePartialFiles(files[:1], []analysis.Kind{analysis.PlacementsKind, {Name: "nosuch", New: analysis.PlacementsKind.New}}, analysis.Options{}); err == nil {
		t.Error("unknown kind merged")
	}
}
