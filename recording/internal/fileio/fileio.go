// Package fileio opens recording files for the container readers, with
// their bytes mapped into memory when a reading asks for data in place.
package fileio

import (
	"errors"
	"io"
	"os"
	"sync"
)

// Open opens the file at path and reads it with newReader; keep hands the
// file to the reader, which closes it when it closes. The file is closed
// when newReader fails. With inPlace the file is also mapped into memory
// read-only (where the platform can; see Mapped), and the io.ReaderAt
// newReader gets is a *Mapped whose Bytes serve slices of it; its reads
// stay system calls.
func Open[R any](path string, inPlace bool, newReader func(ra io.ReaderAt, size int64) (R, error), keep func(R, io.Closer)) (R, error) {
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
	var ra interface {
		io.ReaderAt
		io.Closer
	} = f
	if inPlace && st.Mode().IsRegular() {
		if m := mapFile(f, st.Size()); m != nil {
			ra = m
		}
	}
	r, err := newReader(ra, st.Size())
	if err != nil {
		ra.Close()
		return zero, err
	}
	keep(r, ra)
	return r, nil
}

// Mapped is a file read through system calls (ReadAt) that is also mapped
// into memory, read-only, for Bytes. The mapping lives until Close.
//
// A program that cuts the file short while it is mapped makes reading a
// mapped page past the new end fault (SIGBUS). Each goroutine that reads
// Bytes' slices sets debug.SetPanicOnFault and turns the panic into an
// error with Fault.
type Mapped struct {
	f    *os.File
	data []byte // nil once closed (under window's lock)
}

// keepMapped is how many bytes of the ranges last released, over every
// mapped file, stay mapped, for a consumer that renders them a little
// behind the reader.
const keepMapped = 32 << 20

// window holds the ranges released and still mapped, over every mapped
// file, oldest first: a reading that merges many files keeps no more of
// them mapped than a reading of one.
var window struct {
	sync.Mutex
	ranges []released
	held   int64 // their bytes
}

type released struct {
	m      *Mapped
	off, n int64
}

// ReadAt reads from the file.
func (m *Mapped) ReadAt(p []byte, off int64) (int, error) { return m.f.ReadAt(p, off) }

// Bytes returns the n bytes at off, in place, or false when they are not
// all within the mapping.
func (m *Mapped) Bytes(off, n int64) ([]byte, bool) {
	if off < 0 || n < 0 || off > int64(len(m.data)) || n > int64(len(m.data))-off {
		return nil, false
	}
	return m.data[off : off+n : off+n], true
}

// Release says that the n bytes at off were read. Once more than
// keepMapped bytes (of any mapped file) were released after them, their
// pages leave the process's memory (its RSS): they stay in the page
// cache, the slices of them stay valid, and a later read of them maps them
// again. Without this a reading of large files would hold all of them.
func (m *Mapped) Release(off, n int64) {
	window.Lock()
	defer window.Unlock()
	window.ranges = append(window.ranges, released{m, off, n})
	window.held += n
	for window.held > keepMapped && len(window.ranges) > 1 {
		r := window.ranges[0]
		window.ranges = window.ranges[1:]
		window.held -= r.n
		if r.m.data != nil {
			drop(r.m.data, r.off, r.n)
		}
	}
}

// Close unmaps the file and closes it.
func (m *Mapped) Close() error {
	window.Lock()
	kept := window.ranges[:0]
	for _, r := range window.ranges {
		if r.m == m {
			window.held -= r.n
		} else {
			kept = append(kept, r)
		}
	}
	clear(window.ranges[len(kept):])
	window.ranges = kept
	data := m.data
	m.data = nil
	window.Unlock()
	return errors.Join(unmap(data), m.f.Close())
}

// ErrCut is the error of a fault reading mapped bytes: another program cut
// the file short while it was being read.
var ErrCut = errors.New("the file was cut short while being read")

// Fault returns ErrCut when r, a value recovered from a panic, is the
// runtime's panic for a memory fault, which debug.SetPanicOnFault makes of
// reading a mapped page past the file's end, and nil when r is nil; any
// other panic goes on.
func Fault(r any) error {
	if r == nil {
		return nil
	}
	if _, ok := r.(interface{ Addr() uintptr }); ok {
		return ErrCut
	}
	panic(r)
}
