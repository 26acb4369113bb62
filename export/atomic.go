package export

import (
	"bufio"
	"errors"
	"sync"

	"github.com/baglab/baglab/internal/atomicfile"
)

// outFile is an output file written under a temporary name in its final
// directory (internal/atomicfile) and renamed into place by commit; abort
// removes it. Writes are buffered and the first error sticks. The files of
// one input (or of one unpartitioned run) are synced together by
// closeOuts before they are renamed.
type outFile struct {
	path     string // final path
	f        *atomicfile.File
	w        *bufio.Writer // nil once finished
	err      error         // first write or close error
	finished bool          // buffer flushed
}

// writeBuffers are the outFiles' buffers, reused from file to file: a
// fleet export writes thousands of small files.
var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// createOut creates the temporary file for path, creating missing parent
// directories (recorded in dirs, so that an abort can remove them).
func createOut(path string, dirs *atomicfile.DirSet) (*outFile, error) {
	f, err := atomicfile.Create(path, atomicfile.WithDirs(dirs))
	if err != nil {
		return nil, err
	}
	w := writeBuffers.Get().(*bufio.Writer)
	w.Reset(f)
	return &outFile{path: path, f: f, w: w}, nil
}

// Write buffers p; the first error sticks.
func (o *outFile) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if o.w == nil {
		o.err = errors.New("export: write after finish")
		return 0, o.err
	}
	n, err := o.w.Write(p)
	o.err = err
	return n, err
}

// finish flushes the buffer into the temporary file, which stays open
// for closeOuts (or commit).
func (o *outFile) finish() error {
	if o.finished {
		return o.err
	}
	o.finished = true
	if err := o.w.Flush(); o.err == nil {
		o.err = err
	}
	o.release()
	return o.err
}

// release hands the buffer back for the next file.
func (o *outFile) release() {
	if o.w != nil {
		o.w.Reset(nil)
		writeBuffers.Put(o.w)
		o.w = nil
	}
}

// closeOuts finishes outs and syncs and closes their temporary files
// together (atomicfile.CloseAll), keeping them for commit.
func closeOuts(outs []*outFile) error {
	files := make([]*atomicfile.File, 0, len(outs))
	var errs []error
	for _, o := range outs {
		if err := o.finish(); err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, o.f)
	}
	errs = append(errs, atomicfile.CloseAll(files))
	return errors.Join(errs...)
}

// commit renames the finished temporary file to its final path, syncing
// and closing it first unless closeOuts did.
func (o *outFile) commit() error {
	if err := o.finish(); err != nil {
		o.f.Abort()
		return err
	}
	return o.f.Commit()
}

// abort closes and removes the temporary file.
func (o *outFile) abort() {
	o.release()
	o.f.Abort()
}
