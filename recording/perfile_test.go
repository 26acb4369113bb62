package recording_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/recording"
)

// TestDescribeEach: a folder stands for its recordings in name order, a
// path that does not exist is tried as given; the recordings that cannot
// be described go to fail (a cut bag and a cut MCAP, the missing file) and
// the others are described (the sample study's 343 messages each).
func TestDescribeEach(t *testing.T) {
	broken := filepath.Join("..", "testdata", "sample", "broken")
	missing := filepath.Join(t.TempDir(), "missing.bag")
	var failed []string
	descs, paths, err := recording.DescribeEach(context.Background(), []string{broken, missing}, recording.OpenOptions{}, func(path string, err error) {
		failed = append(failed, path)
		if path == missing && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want ErrNotExist", path, err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	in := func(name string) string { return filepath.Join(broken, name) }
	wantPaths := []string{in("study-crc.mcap"), in("study-truncated.bag"), in("study-truncated.mcap"), in("study.bag.active"), missing}
	if !slices.Equal(paths, wantPaths) {
		t.Errorf("paths %q, want %q", paths, wantPaths)
	}
	if want := []string{in("study-truncated.bag"), in("study-truncated.mcap"), missing}; !slices.Equal(failed, want) {
		t.Errorf("failed %q, want %q", failed, want)
	}
	if len(descs) != 2 || descs[0].Path != in("study-crc.mcap") || descs[1].Path != in("study.bag.active") {
		t.Fatalf("descriptions %+v, want study-crc.mcap and study.bag.active", descs)
	}
	for _, d := range descs {
		if d.MessageCount != 343 {
			t.Errorf("%s: %d messages, want 343", d.Path, d.MessageCount)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := recording.DescribeEach(ctx, []string{missing}, recording.OpenOptions{}, func(string, error) { t.Error("fail called after ctx ended") }); !errors.Is(err, context.Canceled) {
		t.Errorf("ended ctx: %v, want context.Canceled", err)
	}
}

// TestCheckEach: each recording's problems, in order, with the unreadable
// one's error handed to visit; the bag Debian's rosbag record left when
// killed has its two problems (not indexed, the unterminated last chunk
// at offset 58446), a file that is no recording its error; an error from visit stops the walk.
func TestCheckEach(t *testing.T) {
	killed := filepath.Join("bag", "testdata", "rosbag-record-killed.bag.active")
	study := filepath.Join("..", "testdata", "sample", "study.bag")
	garbage := filepath.Join(t.TempDir(), "garbage.bag")
	if err := os.WriteFile(garbage, []byte("not a bag at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	var probs [][]recording.FileProblem
	var errs []error
	err := recording.CheckEach(context.Background(), []string{killed, study, garbage}, recording.CheckOptions{}, func(file string, ps []recording.FileProblem, err error) error {
		files, probs, errs = append(files, file), append(probs, ps), append(errs, err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{killed, study, garbage}) {
		t.Fatalf("files %q", files)
	}
	if len(probs[0]) != 2 || probs[0][0].Severity != "warning" || probs[0][0].Offset != 13 || probs[0][1].Severity != "error" || probs[0][1].Offset != 58446 || errs[0] != nil {
		t.Errorf("killed bag: %+v, %v; want a warning at 13 and an error at 58446", probs[0], errs[0])
	}
	if len(probs[1]) != 0 || errs[1] != nil {
		t.Errorf("study.bag: %+v, %v; want no problems", probs[1], errs[1])
	}
	if errs[2] == nil || probs[2] != nil {
		t.Errorf("garbage file: %+v, %v; want an error", probs[2], errs[2])
	}
	stop := errors.New("stop")
	n := 0
	err = recording.CheckEach(context.Background(), []string{study, killed}, recording.CheckOptions{NoDecode: true}, func(string, []recording.FileProblem, error) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("visit's error: %v after %d files, want stop after 1", err, n)
	}
}
