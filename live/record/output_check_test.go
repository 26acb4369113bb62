package record

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// New checks the output before any connection is made: an existing file
// needs Force (for --split the first file's name), and an output that is a
// directory or lies under a file fails even with Force. Before, the last two
// waited for the master and failed at the first message or at the end.
// The error of an existing file names no flag: the caller adds its own.
func TestNewChecksOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "run.bag")
	for _, p := range []string{file, filepath.Join(dir, "split_0.mcap")} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d.bag"), 0o755); err != nil {
		t.Fatal(err)
	}
	topics := []string{"/a"}
	for _, c := range []struct {
		name string
		o    Options
		want error
	}{
		{"exists", Options{Output: file, Topics: topics}, fs.ErrExist},
		{"first split exists", Options{Output: filepath.Join(dir, "split.mcap"), Topics: topics, Split: true, Duration: 1e9}, fs.ErrExist},
		{"a directory", Options{Output: filepath.Join(dir, "d.bag"), Topics: topics, Force: true}, nil},
		{"under a file", Options{Output: filepath.Join(file, "x.bag"), Topics: topics, Force: true}, nil},
	} {
		_, err := New(c.o)
		if err == nil || errors.Is(err, ErrUsage) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v, want an output error (%v)", c.name, err, c.want)
		}
	}
	if _, err := New(Options{Output: file, Topics: topics}); err == nil || err.Error() != file+": file already exists" {
		t.Errorf("exists: %v", err)
	}
	if _, err := New(Options{Output: file, Topics: topics, Force: true}); err != nil {
		t.Errorf("exists, Force: %v", err)
	}
}
