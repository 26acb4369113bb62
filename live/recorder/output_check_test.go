package recorder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

// TestOutputModes: a recording and the folders made for it get the modes
// of every output (0666 and 0777 less the umask: 0664 and 0775 under umask
// 002), not a fixed 0644 and 0755.
func TestOutputModes(t *testing.T) {
	old := syscall.Umask(0o002)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "new")
	o := Options{Output: filepath.Join(dir, "run.bag"), Topics: []string{"/a"}}
	out, err := o.openOutput(o.Output, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := out.finish(Stats{Started: out.start, Closed: out.start}, "/test"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o775}, {o.Output, 0o664}} {
		if st, err := os.Stat(c.path); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != c.want {
			t.Errorf("%s: mode %v, want %v", c.path, st.Mode().Perm(), c.want)
		}
	}
}
