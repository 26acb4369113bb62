package export

import (
	"bufio"

	"github.com/baglab/baglab/internal/atomicfile"
)

// outFile is an output file written under a temporary name in its final
// directory (internal/atomicfile) and renamed into place by commit; abort
// removes it. Writes are buffered and the first error sticks.
type outFile struct {
	path     string // final path
	f        *atomicfile.File
	w        *bufio.Writer
	err      error // first write or close error
	finished bool  // temporary file closed
}

// dirSet creates directories and remembers the ones it created, so that
// a failed export takes away those it left empty.
type dirSet struct{ atomicfile.DirSet }

func (d *dirSet) mkdirAll(dir string) error { return d.MkdirAll(dir) }
func (d *dirSet) removeEmpty()              { d.RemoveEmpty() }

// createOut creates the temporary file for path, creating missing parent
// directories (recorded in dirs, so that an abort can remove them).
func createOut(path string, dirs *dirSet) (*outFile, error) {
	f, err := atomicfile.Create(path, atomicfile.WithDirs(&dirs.DirSet))
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
	if err := o.finish(); err != nil {
		o.f.Abort()
		return err
	}
	return o.f.Commit()
}

// abort closes and removes the temporary file.
func (o *outFile) abort() { o.f.Abort() }
