package rosnode

import (
	"context"
	"testing"
)

// A buffer released after its connection ended is not kept: the pool's
// count of bytes goes back to what live connections keep.
func TestPoolLetsGoAfterLinkEnds(t *testing.T) {
	var p bufPool
	l := &link{free: make(chan []byte, perLink)}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	p.put(l, make([]byte, 10))
	if n := p.bytes.Load(); n != 10 {
		t.Fatalf("%d bytes pooled, want 10", n)
	}
	l.cancel()
	p.drain(l) // as l.run does when it ends
	p.put(l, make([]byte, 20))
	if n := p.bytes.Load(); n != 0 || len(l.free) != 0 {
		t.Fatalf("%d bytes pooled (%d buffers) after the link ended, want 0", n, len(l.free))
	}
}
