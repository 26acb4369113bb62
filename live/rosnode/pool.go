package rosnode

import "sync/atomic"

// maxPooled bounds the bytes of released message buffers a node keeps
// for reuse, over all its subscriber connections.
const maxPooled = 32 << 20

// perLink is how many released buffers one connection keeps.
const perLink = 4

// bufPool keeps buffers released by receivers (Message.Release) per
// connection, so that a publisher's next message of about the same size is
// read into memory already allocated instead of a fresh, zeroed one.
type bufPool struct {
	bytes atomic.Int64
}

// get returns a released buffer of l that holds n bytes without wasting
// more than half of it, or nil.
func (p *bufPool) get(l *link, n int) []byte {
	select {
	case b := <-l.free:
		p.bytes.Add(-int64(cap(b)))
		if cap(b) >= n && cap(b)/2 <= n {
			return b[:0]
		}
	default:
	}
	return nil
}

// put keeps b for l's next messages while the pool has room. A buffer
// released after its connection ended is let go (a receiver may hold a
// message longer than the connection lasts).
func (p *bufPool) put(l *link, b []byte) {
	c := int64(cap(b))
	if c == 0 || p.bytes.Add(c) > maxPooled {
		p.bytes.Add(-c)
		return
	}
	select {
	case l.free <- b:
		if l.ctx.Err() != nil { // l.run may have emptied l.free before
			p.drain(l)
		}
	default:
		p.bytes.Add(-c)
	}
}

// drain lets go of l's kept buffers.
func (p *bufPool) drain(l *link) {
	for {
		select {
		case b := <-l.free:
			p.bytes.Add(-int64(cap(b)))
		default:
			return
		}
	}
}
