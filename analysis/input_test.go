package analysis_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/internal/digest"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/recording"
)

// TestDescribePaths: a plain folder given is one input, with the digest of
// the folder (every file in it, a recording or not, listed) and its
// recordings' summaries combined; a file is described as DescribeInputs
// describes it. The summaries are those read when the inputs were opened:
// a recording overwritten since is not read again, nor a folder listed
// again: one that gained a recording since is described as it was read.
func TestDescribePaths(t *testing.T) {
	study := studytest.Dir(t, studygen.Options{Seed: 3, Sessions: 2})
	runs := filepath.Join(t.TempDir(), "runs")
	for name, from := range map[string]string{"study.bag": "study.bag", "queries.mcap": "queries.mcap", "notes.txt": "truth.json"} {
		recordtest.CopyFile(t, filepath.Join(study, from), filepath.Join(runs, name))
	}
	bag := filepath.Join(study, "study.bag")
	paths := []string{runs, bag}
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if want := []string{filepath.Join(runs, "queries.mcap"), filepath.Join(runs, "study.bag"), bag}; !reflect.DeepEqual(in.Paths(), want) {
		t.Fatalf("recordings %v, want %v", in.Paths(), want)
	}
	each, err := analysis.DescribeInputs(in)
	if err != nil {
		t.Fatal(err)
	}
	q, b := in.File(0).Summary(), in.File(1).Summary()
	folder, err := digest.Of(runs)
	if err != nil {
		t.Fatal(err)
	}
	wantFolder := analysis.Input{Path: runs, Format: "mixed", Size: folder.Size, SHA256: folder.SHA256,
		StartNs: min(q.StartNs, b.StartNs), EndNs: max(q.EndNs, b.EndNs), MessageCount: q.MessageCount + b.MessageCount}
	for _, f := range folder.Files {
		wantFolder.Files = append(wantFolder.Files, analysis.InputFile(f))
	}
	if len(wantFolder.Files) != 3 || q.MessageCount == 0 || b.MessageCount == 0 {
		t.Fatalf("folder %+v", wantFolder)
	}

	if err := os.WriteFile(filepath.Join(runs, "study.bag"), []byte("not a bag any more"), 0o666); err != nil {
		t.Fatal(err)
	}
	if want := []recording.Given{{Path: runs, Recordings: 2}, {Path: bag, Recordings: 1}}; !reflect.DeepEqual(in.Given(), want) {
		t.Fatalf("given %+v, want %+v", in.Given(), want)
	}
	got, err := analysis.DescribePaths(in)
	if err != nil {
		t.Fatal(err)
	}
	folder, _ = digest.Of(runs) // the digest is of the files now
	wantFolder.Size, wantFolder.SHA256, wantFolder.Files[2].Size, wantFolder.Files[2].SHA256 = folder.Size, folder.SHA256, folder.Files[2].Size, folder.Files[2].SHA256
	if want := []analysis.Input{wantFolder, each[2]}; !reflect.DeepEqual(got, want) {
		t.Errorf("described\n%+v\nwant\n%+v", got, want)
	}

	if err := os.WriteFile(filepath.Join(runs, "later.bag"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	later, err := analysis.DescribePaths(in)
	if err != nil {
		t.Fatal(err)
	}
	if later[0].MessageCount != wantFolder.MessageCount || later[0].StartNs != wantFolder.StartNs || len(later[0].Files) != 4 {
		t.Errorf("a folder that gained a recording since: %+v, want the summaries read (%d messages) and the files now (4)", later[0], wantFolder.MessageCount)
	}
}
