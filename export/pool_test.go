package export

import (
	"testing"
	"unsafe"
)

func TestPoolAllocator(t *testing.T) {
	a := newPoolAllocator(1 << 20)
	b := a.Allocate(100 << 10)
	if len(b) != 100<<10 || cap(b) != 128<<10 || uintptr(unsafe.Pointer(&b[0]))%64 != 0 {
		t.Fatalf("len %d cap %d addr %p", len(b), cap(b), &b[0])
	}
	for i := range b {
		b[i] = 0xff
	}
	a.Free(b)
	c := a.Allocate(90 << 10)
	if &c[0] != &b[0] {
		t.Error("a freed buffer of the same class was not reused")
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("reused buffer not zeroed at %d", i)
		}
	}
	// Growing in place zeroes the new part; growing past the class moves.
	c = c[:10]
	c[9] = 7
	d := a.Reallocate(120<<10, c)
	if &d[0] != &c[0] || d[9] != 7 || d[10] != 0 || len(d) != 120<<10 {
		t.Error("in-place reallocation")
	}
	e := a.Reallocate(300<<10, d)
	if e[9] != 7 || len(e) != 300<<10 || cap(e) != 512<<10 {
		t.Error("moving reallocation")
	}
	// Small buffers are the Go allocator's; the pool holds at most maxHeld.
	if s := a.Allocate(100); len(s) != 100 {
		t.Error("small allocation")
	}
	a.Free(e)
	a.Free(a.Allocate(1 << 20))
	if a.held > 1<<20 {
		t.Errorf("pool holds %d bytes, limit %d", a.held, 1<<20)
	}
}
