//go:build unix

package fileio

import (
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps f's size bytes read-only, or returns nil when it cannot
// (an empty file, one larger than the address space can map).
func mapFile(f *os.File, size int64) *Mapped {
	if size <= 0 || size > math.MaxInt {
		return nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	return &Mapped{f: f, data: data}
}

func unmap(data []byte) error {
	if data == nil {
		return nil
	}
	return unix.Munmap(data)
}

// drop takes the pages of data[off:off+n] out of the process's memory
// (MADV_DONTNEED: the mapping is of a file, so they stay in the page
// cache and a later read faults them back in).
func drop(data []byte, off, n int64) {
	page := int64(os.Getpagesize())
	start, end := off&^(page-1), min(off+n, int64(len(data)))
	if start >= end {
		return
	}
	_ = unix.Madvise(data[start:end], unix.MADV_DONTNEED) // advice: nothing to do when refused
}
