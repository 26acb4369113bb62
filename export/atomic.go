package export

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
)

// outFile is an output file written under a temporary name in its final
// directory and renamed into place by commit; abort removes it.
type outFile struct {
	path     string // final path
	f        *os.File
	w        *bufio.Writer
	err      error // first write or close error
	finished bool  // temporary file closed
	done     bool  // committed or aborted
}

// createOut creates the temporary file for path, creating missing parent
// directories (recorded in dirs, so that an abort can remove them).
func createOut(path string, dirs *dirSet) (*outFile, error) {
	if err := dirs.mkdirAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &outFile{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Write buffers p; the first error sticks.
func (o *outFile) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.err = err
	return n, err
}

// finish flushes and closes the temporary file, keeping it for commit.
func (o *outFile) finish() error {
	if o.finished {
		return o.err
	}
	o.finished = true
	err := o.w.Flush()
	if o.err == nil {
		o.err = err
	}
	if err := o.f.Close(); o.err == nil {
		o.err = err
	}
	return o.err
}

// commit renames the finished temporary file to its final path.
func (o *outFile) commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if err := o.finish(); err != nil {
		os.Remove(o.f.Name())
		return err
	}
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		os.Remove(o.f.Name())
		return err
	}
	return nil
}

// abort closes and removes the temporary file.
func (o *outFile) abort() {
	if o.done {
		return
	}
	o.done = true
	o.f.Close()
	os.Remove(o.f.Name())
}

// dirSet creates directories and remembers the ones it created.
type dirSet struct {
	created []string
}

func (d *dirSet) mkdirAll(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return &os.PathError{Op: "mkdir", Path: dir, Err: errors.New("not a directory")}
		}
		return nil
	}
	if err := d.mkdirAll(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	d.created = append(d.created, dir)
	return nil
}

// removeEmpty removes the directories it created that are empty, deepest
// first.
func (d *dirSet) removeEmpty() {
	for i := len(d.created) - 1; i >= 0; i-- {
		os.Remove(d.created[i]) // fails, harmlessly, when not empty
	}
	d.created = nil
}
