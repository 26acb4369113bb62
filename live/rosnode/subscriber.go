package rosnode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/live/tcpros"
)

// Connection is one publisher's TCPROS connection to a subscriber.
type Connection struct {
	// ID is unique within the node.
	ID    int64
	Topic string
	// PublisherURI is the publisher node's slave API URI.
	PublisherURI string
	// Header is the publisher's connection header, verbatim: callerid,
	// latching, md5sum, message_definition, topic, type and whatever else
	// it sent.
	Header tcpros.Header
}

// Message is one received message.
type Message struct {
	Conn *Connection
	// Data is the serialized message (its first SubscribeOptions.Prefix
	// bytes when that is set); it belongs to the receiver until Release.
	Data []byte
	// Size is the message's length on the wire (len(Data) unless Prefix
	// cut it).
	Size int
	// Received is when its last byte was read.
	Received time.Time

	link *link
}

// Release hands Data back to its connection for the next message to be
// read into, once the receiver is done with the bytes (they are written
// elsewhere, or copied). Without it Data is left to the garbage collector;
// after it Data must not be used. It does not give back Budget bytes.
func (m *Message) Release() {
	if m.link == nil {
		return
	}
	m.link.sub.node.pool.put(m.link, m.Data)
	m.link, m.Data = nil, nil
}

// SubscribeOptions configure a subscriber.
type SubscribeOptions struct {
	// Type and MD5 are what the subscriber asks for; "" means "*" (any), as
	// rosbag record does.
	Type, MD5 string
	// OnMessage receives every message, from the connection's goroutine:
	// it must not block for long (the publisher's queue fills meanwhile).
	OnMessage func(*Message)
	// OnConnect, when set, is called when a publisher connection opens and
	// OnDisconnect when it closes (with the reason).
	OnConnect    func(*Connection)
	OnDisconnect func(c *Connection, err error)
	// OnDrop, when set, is told about each message that was not kept: one
	// over MaxMessage (its bytes are read and discarded as they arrive,
	// never held) or one Budget had no room for. err wraps
	// tcpros.ErrTooLarge or tcpros.ErrNoRoom. The drop is also counted
	// on the connection (getBusStats) and logged.
	OnDrop func(c *Connection, size int, err error)
	// MaxMessage bounds one kept message in bytes, below the node's
	// Options.MaxMessage (which applies when 0).
	MaxMessage int
	// Prefix, when > 0, keeps only the first Prefix bytes of each message
	// (rate control reads a Header stamp); the rest is discarded as it
	// arrives.
	Prefix int
	// Budget, when set, is asked for room before bytes of a message are
	// read into memory; a message it refuses is dropped (OnDrop). The
	// bytes of a delivered message stay reserved: the receiver gives them
	// back with Budget.Release(len(m.Data)) once it no longer holds them.
	Budget Budget
	// ReserveWhole, with Budget, asks it for each message's whole length
	// before the message's first byte is read, and reads the message into
	// one buffer of that size: no buffer grows, so none is copied or left
	// to the garbage collector, and of messages competing for room the
	// first announced is kept whole, rather than each read part-way and
	// all dropped. A publisher then holds room for the length it
	// announced, not only for the bytes it sent. Without it a message is
	// reserved as its bytes arrive, into a buffer that grows with them
	// (but for a length its publisher delivered before).
	ReserveWhole bool
}

// Budget is memory shared by subscribers, such as a recorder's buffer:
// messages are read into memory only as far as it grants room.
type Budget interface {
	// Reserve asks for n more bytes; false refuses them.
	Reserve(n int) bool
	// Release gives back n bytes.
	Release(n int)
}

// Subscriber receives one topic from every publisher the master knows.
type Subscriber struct {
	node  *Node
	topic string
	opts  SubscribeOptions

	mu     sync.Mutex
	links  map[string]*link
	closed bool
	wg     sync.WaitGroup
}

type link struct {
	sub    *Subscriber
	uri    string
	ctx    context.Context
	cancel context.CancelFunc
	cur    atomic.Pointer[linkStats]
	free   chan []byte // released buffers (bufPool)
	// delivered is the largest message this publisher delivered whole,
	// read only by the link's goroutine.
	delivered int
}

type linkStats struct {
	id    int64
	bytes atomic.Int64
	msgs  atomic.Int64
	drops atomic.Int64
}

// Subscribe registers a subscriber of topic (resolved against the node's
// namespace) and connects to its publishers, now and as they come.
func (n *Node) Subscribe(topic string, o SubscribeOptions) (*Subscriber, error) {
	if o.Type == "" {
		o.Type = "*"
	}
	if o.MD5 == "" {
		o.MD5 = "*"
	}
	if o.OnMessage == nil {
		return nil, fmt.Errorf("rosnode: subscribe %s: OnMessage required", topic)
	}
	topic = n.Resolve(topic)
	s := &Subscriber{node: n, topic: topic, opts: o, links: map[string]*link{}}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, ErrClosed
	}
	if n.subs[topic] != nil {
		n.mu.Unlock()
		return nil, fmt.Errorf("rosnode: %s is already subscribed by this node", topic)
	}
	n.subs[topic] = s
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	uris, err := n.master.RegisterSubscriber(ctx, topic, o.Type, n.uri)
	if err != nil {
		n.mu.Lock()
		delete(n.subs, topic)
		n.mu.Unlock()
		return nil, fmt.Errorf("rosnode: subscribe %s at master %s: %w", topic, n.opts.MasterURI, err)
	}
	s.update(uris)
	return s, nil
}

// Topic is the resolved topic name.
func (s *Subscriber) Topic() string { return s.topic }

// NumPublishers is the number of publishers currently connected.
func (s *Subscriber) NumPublishers() int {
	k := 0
	for _, l := range s.linkList() {
		if l.stats() != nil {
			k++
		}
	}
	return k
}

// Stop closes the subscriber's connections without unregistering it:
// when Stop returns, OnMessage is not called again. It is idempotent.
func (s *Subscriber) Stop() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return
	}
	s.closed = true
	for _, l := range s.links {
		l.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Close stops the subscriber and unregisters it from the master; it is
// idempotent.
func (s *Subscriber) Close() error {
	s.Stop()
	n := s.node
	n.mu.Lock()
	if n.subs[s.topic] != s {
		n.mu.Unlock()
		return nil
	}
	delete(n.subs, s.topic)
	n.mu.Unlock()
	ctx, cancel := n.unregisterCtx()
	defer cancel()
	if _, err := n.master.UnregisterSubscriber(ctx, s.topic, n.uri); err != nil {
		return fmt.Errorf("rosnode: unregister subscriber %s: %w", s.topic, err)
	}
	return nil
}

// update makes the set of publisher links equal to uris and returns the
// publishers it removed.
func (s *Subscriber) update(uris []string) (removed []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	want := map[string]bool{}
	for _, u := range uris {
		want[u] = true
		if s.links[u] == nil {
			l := &link{sub: s, uri: u, free: make(chan []byte, perLink)}
			l.ctx, l.cancel = context.WithCancel(s.node.ctx)
			s.links[u] = l
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				l.run()
			}()
		}
	}
	for u, l := range s.links {
		if !want[u] {
			l.cancel()
			delete(s.links, u)
			removed = append(removed, u)
		}
	}
	sort.Strings(removed)
	return removed
}

func (s *Subscriber) linkList() []*link {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*link, 0, len(s.links))
	for _, l := range s.links {
		out = append(out, l)
	}
	return out
}

func (l *link) stats() *linkStats { return l.cur.Load() }

// run keeps a connection to one publisher, reconnecting with backoff
// while the link is wanted.
func (l *link) run() {
	n := l.sub.node
	defer n.pool.drain(l)
	backoff := 100 * time.Millisecond
	for l.ctx.Err() == nil {
		start := time.Now()
		err := l.connectOnce()
		if l.ctx.Err() != nil {
			return
		}
		n.opts.Logf("subscriber %s: connection to %s closed: %v", l.sub.topic, l.uri, err)
		if time.Since(start) > 10*time.Second {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-time.After(backoff):
		case <-l.ctx.Done():
			return
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// connectOnce runs one TCPROS connection to the publisher until it fails.
func (l *link) connectOnce() error {
	n := l.sub.node
	ctx, cancel := context.WithTimeout(l.ctx, n.opts.Timeout)
	host, port, err := n.master.requestTopic(ctx, l.uri, l.sub.topic)
	if err != nil {
		cancel()
		return err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	cancel()
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(l.ctx, func() { c.Close() })
	defer stop()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	_ = c.SetDeadline(time.Now().Add(n.opts.Timeout))
	o := l.sub.opts
	req := tcpros.Header{
		{Key: "callerid", Value: n.opts.Name},
		{Key: "md5sum", Value: o.MD5},
		{Key: "message_definition", Value: ""},
		{Key: "tcp_nodelay", Value: "1"},
		{Key: "topic", Value: l.sub.topic},
		{Key: "type", Value: o.Type},
	}
	if err := tcpros.WriteHeader(c, req); err != nil {
		return fmt.Errorf("writing header: %w", err)
	}
	h, err := tcpros.ReadHeader(c)
	if err != nil {
		return err
	}
	if e, ok := h.Get("error"); ok {
		return fmt.Errorf("publisher refused: %s", e)
	}
	if h.Value("md5sum") == "" || h.Value("type") == "" {
		return fmt.Errorf("publisher header lacks md5sum or type")
	}
	if md5 := h.Value("md5sum"); o.MD5 != "*" && md5 != "*" && md5 != o.MD5 {
		return fmt.Errorf("publisher sends %s/%s, this subscriber wants %s/%s", h.Value("type"), md5, o.Type, o.MD5)
	}
	_ = c.SetDeadline(time.Time{})
	conn := &Connection{ID: n.connIDs.Add(1), Topic: l.sub.topic, PublisherURI: l.uri, Header: h}
	st := &linkStats{id: conn.ID}
	l.cur.Store(st)
	defer l.cur.Store(nil)
	if o.OnConnect != nil {
		o.OnConnect(conn)
	}
	err = l.receive(c, conn, st)
	if o.OnDisconnect != nil {
		o.OnDisconnect(conn, err)
	}
	return err
}

// receive reads messages until the connection fails. A message over the
// limit, or one the budget has no room for, is read and discarded as its
// bytes arrive, so memory follows what is kept, never what a publisher
// announces; a connection silent for Options.Timeout in the middle of a
// message is closed.
func (l *link) receive(c net.Conn, conn *Connection, st *linkStats) error {
	n := l.sub.node
	o := l.sub.opts
	limit := n.opts.MaxMessage
	if o.MaxMessage > 0 {
		limit = min(limit, o.MaxMessage)
	}
	var reserve func(int) bool
	if o.Budget != nil {
		reserve = o.Budget.Reserve
	}
	r := &stallReader{c: c, d: n.opts.Timeout}
	for {
		r.idle = true
		size, err := tcpros.ReadLength(r)
		if err != nil {
			return err
		}
		keep := size
		if o.Prefix > 0 {
			keep = min(size, o.Prefix)
		}
		if keep > limit {
			if err := tcpros.Discard(r, size); err != nil {
				return err
			}
			l.drop(conn, st, size, fmt.Errorf("%w: %d bytes, limit %d", tcpros.ErrTooLarge, size, limit))
			continue
		}
		b, reserved, err := l.read(r, keep, reserve)
		if err == nil || errors.Is(err, tcpros.ErrNoRoom) {
			if derr := tcpros.Discard(r, size-keep); derr != nil {
				err = derr
			}
		}
		if err != nil {
			if reserved > 0 {
				o.Budget.Release(reserved)
			}
			if errors.Is(err, tcpros.ErrNoRoom) {
				l.drop(conn, st, size, err)
				continue
			}
			return err
		}
		st.bytes.Add(int64(size))
		st.msgs.Add(1)
		l.delivered = max(l.delivered, keep)
		o.OnMessage(&Message{Conn: conn, Data: b, Size: size, Received: time.Now(), link: l})
	}
}

// read reads a message body of n bytes. With ReserveWhole, n bytes are
// reserved first (or the message is discarded, ErrNoRoom) and it is read
// into a released buffer that fits or a new one of exactly n bytes.
// Otherwise: into a released buffer that fits, reserved as the bytes
// arrive; else, when this publisher has already delivered a message that
// large, into a new buffer of exactly n bytes, reserved whole (a stream
// of same-sized messages then costs one allocation each, not a growing
// series); else into memory that grows as the bytes arrive.
func (l *link) read(r io.Reader, n int, reserve func(int) bool) ([]byte, int, error) {
	buf := l.sub.node.pool.get(l, n)
	switch {
	case n == 0:
		return tcpros.ReadBody(r, n, buf, reserve)
	case reserve != nil && l.sub.opts.ReserveWhole:
		if !reserve(n) {
			if err := tcpros.Discard(r, n); err != nil {
				return nil, 0, err
			}
			return nil, 0, fmt.Errorf("%w: frame of %d bytes dropped as it arrived", tcpros.ErrNoRoom, n)
		}
	case buf != nil || n > l.delivered:
		return tcpros.ReadBody(r, n, buf, reserve)
	case reserve != nil && !reserve(n):
		return tcpros.ReadBody(r, n, nil, reserve)
	}
	pre := 0
	if reserve != nil {
		pre = n
	}
	if buf == nil {
		buf = make([]byte, 0, n)
	}
	b, _, err := tcpros.ReadBody(r, n, buf, nil)
	return b, pre, err
}

// drop counts and reports a message that was not kept.
func (l *link) drop(conn *Connection, st *linkStats, size int, err error) {
	st.drops.Add(1)
	l.sub.node.opts.Logf("subscriber %s: dropped a message of %d bytes from %s (%s): %v",
		l.sub.topic, size, conn.Header.Value("callerid"), l.uri, err)
	if l.sub.opts.OnDrop != nil {
		l.sub.opts.OnDrop(conn, size, err)
	}
}

// stallReader reads a connection with a deadline of d between reads,
// except for the first read of a message (idle), which may wait for ever:
// a publisher may be quiet between messages, not in the middle of one.
type stallReader struct {
	c    net.Conn
	d    time.Duration
	idle bool
	set  bool // a deadline is set
}

func (s *stallReader) Read(p []byte) (int, error) {
	if s.idle {
		if s.set {
			_ = s.c.SetReadDeadline(time.Time{})
			s.set = false
		}
	} else {
		_ = s.c.SetReadDeadline(time.Now().Add(s.d))
		s.set = true
	}
	k, err := s.c.Read(p)
	if k > 0 {
		s.idle = false
	}
	var ne net.Error
	if err != nil && errors.As(err, &ne) && ne.Timeout() {
		err = fmt.Errorf("%w: no bytes for %s in the middle of a message", ErrStalled, s.d)
	}
	return k, err
}
