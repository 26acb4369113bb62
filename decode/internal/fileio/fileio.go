// Package fileio opens recording files for the container readers.
package fileio

import "os"

// Open opens the file at path and gives it, with its size, to newReader,
// which keeps it open (and closes it when the reader closes). The file is
// closed when newReader fails.
func Open[R any](path string, newReader func(f *os.File, size int64) (R, error)) (R, error) {
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
	return r, nil
}
