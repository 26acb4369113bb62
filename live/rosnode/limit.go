package rosnode

import (
	"fmt"
	"net"
	"sync"
)

// DefaultMaxConns is the default bound on the TCPROS connections a node
// accepts at once (Options.MaxConns).
const DefaultMaxConns = 1024

// Bounds on what one peer may hold open. Legitimate peers finish a
// handshake in milliseconds and open one connection per topic (roscpp and
// rospy share it among a node's subscribers of the topic), so these only
// stop floods; on one machine every peer is the same host, so the per-host
// bounds are generous.
const (
	// maxHandshakesPerHost bounds the TCPROS connections from one host
	// that have not sent their header yet.
	maxHandshakesPerHost = 256
	// maxConnsPerCaller bounds the TCPROS connections one callerid holds
	// to one topic or service (a restarted subscriber may briefly hold
	// two).
	maxConnsPerCaller = 8
	// maxSlaveConnsPerHost and maxSlaveConns bound the slave API's open
	// HTTP connections, from one host and in total.
	maxSlaveConnsPerHost = 128
	maxSlaveConns        = 256
)

// connLimit counts open connections per key and in total; acquire refuses
// one beyond either bound (a bound <= 0 is no bound).
type connLimit struct {
	perKey, total int

	mu   sync.Mutex
	n    int
	keys map[string]int
}

// acquire takes a slot for key, or says why there is none.
func (l *connLimit) acquire(key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total > 0 && l.n >= l.total {
		return fmt.Errorf("%d connections open (limit %d)", l.n, l.total)
	}
	if l.perKey > 0 {
		if k := l.keys[key]; k >= l.perKey {
			return fmt.Errorf("%d connections open from it (limit %d)", k, l.perKey)
		}
		if l.keys == nil {
			l.keys = map[string]int{}
		}
		l.keys[key]++
	}
	l.n++
	return nil
}

// release gives back a slot acquire took for key.
func (l *connLimit) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n--
	if l.perKey > 0 {
		if l.keys[key] <= 1 {
			delete(l.keys, key)
		} else {
			l.keys[key]--
		}
	}
}

// hostOf is the host part of a remote address, the key of per-host bounds.
func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

// limitListener accepts connections within lim (per remote host and in
// total) and closes the others at once, telling refused why.
type limitListener struct {
	net.Listener
	lim     *connLimit
	refused func(c net.Conn, err error)
}

// Accept returns the next connection within the bounds.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := hostOf(c.RemoteAddr())
		if err := l.lim.acquire(key); err != nil {
			l.refused(c, err)
			c.Close()
			continue
		}
		return &limitConn{Conn: c, release: func() { l.lim.release(key) }}, nil
	}
}

// limitConn gives its slot back when closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and releases its slot once.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
