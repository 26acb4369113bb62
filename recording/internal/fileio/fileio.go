// Package fileio opens recording files for the container readers.
package fileio

import (
	"io"
	"os"
)

// Open opens the file at path and reads it with newReader; keep hands the
// file to the reader, which closes it when it closes. The file is closed
// when newReader fails.
func Open[R any](path string, newReader func(ra io.ReaderAt, size int64) (R, error), keep func(R, io.Closer)) (R, error) {
	var zero R
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return zero, err
	}
	r, err := newReader(f, st.Size())
	if err != nil {
		f.Close()
		return zero, err
	}
	keep(r, f)
	return r, nil
}
