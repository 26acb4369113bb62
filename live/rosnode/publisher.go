package rosnode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/live/tcpros"
)

// TopicInfo is what a publisher advertises: the recording's type, MD5 and
// full definition (with its MSG: dependencies), and whether it latches.
type TopicInfo struct {
	Type, MD5, Definition string
	Latching              bool
}

// Publisher publishes pre-serialized messages on one topic.
type Publisher struct {
	node  *Node
	topic string
	info  TopicInfo

	mu   sync.Mutex
	subs map[*pubConn]struct{}
	// latched holds each source's latched message, in the order the
	// sources first latched one.
	latched []latchedMsg
	changed chan struct{} // closed and replaced when subs changes
	closed  bool

	drops atomic.Int64
}

// latchedMsg is the message a source of a publisher latched.
type latchedMsg struct {
	source string
	data   []byte
}

// pubConn is one subscriber connected to a publisher.
type pubConn struct {
	id    int64
	peer  string // the subscriber's callerid
	c     net.Conn
	queue chan []byte
	done  chan struct{}
	once  sync.Once
	bytes atomic.Int64
	msgs  atomic.Int64
	// pending counts messages queued or being written.
	pending atomic.Int64
}

// Advertise registers a publisher of topic (resolved against the node's
// namespace) with the master. A second Advertise of the same topic fails.
func (n *Node) Advertise(topic string, info TopicInfo) (*Publisher, error) {
	if info.Type == "" || info.MD5 == "" {
		return nil, fmt.Errorf("rosnode: advertise %s: type and md5sum required", topic)
	}
	topic = n.Resolve(topic)
	p := &Publisher{node: n, topic: topic, info: info, subs: map[*pubConn]struct{}{}, changed: make(chan struct{})}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, ErrClosed
	}
	if n.pubs[topic] != nil {
		n.mu.Unlock()
		return nil, fmt.Errorf("rosnode: %s is already advertised by this node", topic)
	}
	n.pubs[topic] = p
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	if _, err := n.master.RegisterPublisher(ctx, topic, info.Type, n.uri); err != nil {
		n.mu.Lock()
		delete(n.pubs, topic)
		n.mu.Unlock()
		return nil, fmt.Errorf("rosnode: advertise %s at master %s: %w", topic, n.opts.MasterURI, err)
	}
	return p, nil
}

// Topic is the resolved topic name.
func (p *Publisher) Topic() string { return p.topic }

// Publish sends a pre-serialized message to every connected subscriber.
// The bytes are copied. A latched publisher keeps it for subscribers that
// connect later. It never blocks on a slow subscriber: that subscriber's
// oldest queued message is dropped instead (counted in Drops).
func (p *Publisher) Publish(payload []byte) error {
	return p.PublishFrom("", p.info.Latching, payload)
}

// PublishFrom is Publish on behalf of one of several sources that share
// the topic, as a roscpp node's several publishers of one topic share it
// (rosbag play advertises one per recorded callerid): with latch, payload
// replaces source's latched message, and a subscriber that connects later
// receives the latched message of every source, in the order the sources
// first latched one; without, nothing is kept. TopicInfo.Latching is
// what the connection header says.
func (p *Publisher) PublishFrom(source string, latch bool, payload []byte) error {
	b := append([]byte(nil), payload...)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if latch {
		i := slices.IndexFunc(p.latched, func(l latchedMsg) bool { return l.source == source })
		if i < 0 {
			p.latched = append(p.latched, latchedMsg{source: source})
			i = len(p.latched) - 1
		}
		p.latched[i].data = b
	}
	for c := range p.subs {
		p.enqueue(c, b)
	}
	return nil
}

// enqueue queues b for c, dropping c's oldest message when its queue is
// full. p.mu is held, so there is one producer per queue.
func (p *Publisher) enqueue(c *pubConn, b []byte) {
	for {
		select {
		case c.queue <- b:
			c.pending.Add(1)
			return
		default:
		}
		select {
		case <-c.queue:
			c.pending.Add(-1)
			p.drops.Add(1)
		default:
		}
	}
}

// Flush waits until every message published so far has been written to
// every connected subscriber (or dropped), or ctx ends.
func (p *Publisher) Flush(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		idle := true
		for _, c := range p.conns() {
			if c.pending.Load() > 0 {
				idle = false
			}
		}
		if idle {
			return nil
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// NumSubscribers is the number of connected subscribers.
func (p *Publisher) NumSubscribers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.subs)
}

// Drops counts messages dropped because a subscriber's queue was full.
func (p *Publisher) Drops() int64 { return p.drops.Load() }

// WaitForSubscribers waits until at least n subscribers are connected or
// ctx ends.
func (p *Publisher) WaitForSubscribers(ctx context.Context, n int) error {
	for {
		p.mu.Lock()
		have, ch, closed := len(p.subs), p.changed, p.closed
		p.mu.Unlock()
		if closed {
			return ErrClosed
		}
		if have >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close unregisters the publisher and disconnects its subscribers. It is
// idempotent.
func (p *Publisher) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	conns := p.connsLocked()
	close(p.changed)
	p.mu.Unlock()
	for _, c := range conns {
		c.stop()
	}
	n := p.node
	n.mu.Lock()
	if n.pubs[p.topic] == p {
		delete(n.pubs, p.topic)
	}
	n.mu.Unlock()
	ctx, cancel := n.unregisterCtx()
	defer cancel()
	if _, err := n.master.UnregisterPublisher(ctx, p.topic, n.uri); err != nil {
		return fmt.Errorf("rosnode: unregister publisher %s: %w", p.topic, err)
	}
	return nil
}

func (p *Publisher) conns() []*pubConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connsLocked()
}

func (p *Publisher) connsLocked() []*pubConn {
	out := make([]*pubConn, 0, len(p.subs))
	for c := range p.subs {
		out = append(out, c)
	}
	return out
}

func (p *Publisher) signalLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// serve runs a subscriber connection after its handshake: the latched
// message first, then whatever is published, until either side closes.
func (p *Publisher) serve(c net.Conn, peer string, id int64) {
	pc := &pubConn{id: id, peer: peer, c: c, queue: make(chan []byte, p.node.opts.PublishQueue), done: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.Close()
		return
	}
	for _, l := range p.latched {
		p.enqueue(pc, l.data)
	}
	p.subs[pc] = struct{}{}
	p.signalLocked()
	p.mu.Unlock()

	// A subscriber sends nothing after its header: a read returning means
	// it went away.
	go func() {
		_, _ = io.Copy(io.Discard, c)
		pc.stop()
	}()
	for {
		select {
		case b := <-pc.queue:
			err := tcpros.WriteFrame(c, b)
			pc.pending.Add(-1)
			if err != nil {
				// net.ErrClosed: this side closed the link, because the
				// subscriber went away (the read above ended) or the node
				// is shutting down; neither is worth a line.
				if !errors.Is(err, net.ErrClosed) {
					p.node.opts.Logf("publisher %s: subscriber %s disconnected: %v", p.topic, peer, err)
				}
				pc.stop()
				p.remove(pc)
				return
			}
			pc.bytes.Add(int64(len(b)))
			pc.msgs.Add(1)
		case <-pc.done:
			p.remove(pc)
			return
		}
	}
}

func (p *Publisher) remove(pc *pubConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.subs[pc]; ok {
		delete(p.subs, pc)
		if !p.closed {
			p.signalLocked()
		}
	}
}

func (c *pubConn) stop() {
	c.once.Do(func() {
		close(c.done)
		c.c.Close()
	})
}
