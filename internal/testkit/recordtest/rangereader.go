package recordtest

import (
	"bytes"
	"sync"
)

// RangeReader is an io.ReaderAt over data that records the ranges read
// through it, to check that a reader touches only what it should.
type RangeReader struct {
	r      *bytes.Reader
	mu     sync.Mutex
	ranges [][2]int64
}

// NewRangeReader reads data.
func NewRangeReader(data []byte) *RangeReader { return &RangeReader{r: bytes.NewReader(data)} }

// ReadAt reads like bytes.Reader.ReadAt and records [off, off+len(p)).
func (r *RangeReader) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	r.ranges = append(r.ranges, [2]int64{off, off + int64(len(p))})
	r.mu.Unlock()
	return r.r.ReadAt(p, off)
}

// Ranges returns the ranges read so far, in the order read.
func (r *RangeReader) Ranges() [][2]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][2]int64(nil), r.ranges...)
}

// Reset forgets the ranges read so far.
func (r *RangeReader) Reset() {
	r.mu.Lock()
	r.ranges = nil
	r.mu.Unlock()
}
