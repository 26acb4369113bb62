package export

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// poolAllocator is an Arrow allocator that keeps the large buffers of
// finished row groups and hands them to the next ones. Under the soft memory
// limit the export runs with, freshly allocated buffers would otherwise be
// returned to the OS after each GC and faulted in again, costing more system
// time than the export's own work. Small buffers go to the Go allocator.
// Buffers come back zeroed, as the Go allocator gives them.
type poolAllocator struct {
	mu      sync.Mutex
	free    [64][][]byte // by size class: cap 1<<class
	held    int          // bytes in free lists
	maxHeld int
}

// minPooled is the smallest buffer kept: Go allocates it page-aligned, so it
// meets Arrow's 64-byte alignment.
const minPooled = 64 << 10

func newPoolAllocator(maxHeld int) *poolAllocator { return &poolAllocator{maxHeld: maxHeld} }

func sizeClass(n int) int { return bits.Len(uint(n - 1)) }

func (a *poolAllocator) Allocate(size int) []byte {
	if size < minPooled {
		return memory.DefaultAllocator.Allocate(size)
	}
	c := sizeClass(size)
	a.mu.Lock()
	if l := a.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		a.free[c] = l[:len(l)-1]
		a.held -= cap(b)
		a.mu.Unlock()
		b = b[:size]
		clear(b)
		return b
	}
	a.mu.Unlock()
	return make([]byte, size, 1<<c)
}

func (a *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && (size >= minPooled || cap(b) < minPooled) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *poolAllocator) Free(b []byte) {
	c := cap(b)
	if c < minPooled || c&(c-1) != 0 {
		return // the Go allocator's: the GC takes it
	}
	a.mu.Lock()
	if a.held+c <= a.maxHeld {
		a.free[sizeClass(c)] = append(a.free[sizeClass(c)], b[:0])
		a.held += c
	}
	a.mu.Unlock()
}
