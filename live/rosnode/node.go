package rosnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/live/tcpros"
	"github.com/baglab/baglab/live/xmlrpc"
)

// MaxSlaveRequest bounds a slave API request body: the largest call the
// API takes is a publisherUpdate, about 40 bytes per publisher URI.
const MaxSlaveRequest = 1 << 20

// maxSlaveConcurrent bounds the slave API requests read at once.
const maxSlaveConcurrent = 4

// Node is a running ROS1 node.
type Node struct {
	opts   Options
	master *Master
	uri    string // slave API URI

	httpLn  net.Listener
	httpS   *http.Server
	tcpLn   net.Listener
	tcpPort int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	pubs     map[string]*Publisher
	subs     map[string]*Subscriber
	srvs     map[string]*Service
	closed   bool
	shutOnce sync.Once

	connIDs atomic.Int64
	pool    bufPool

	// Open TCPROS connections: in total, in handshake per remote host,
	// and after the handshake per callerid and topic or service.
	tcpConns, handshakes, callers connLimit

	rosout atomic.Pointer[Publisher] // AdvertiseRosout's
	logSeq atomic.Uint32
}

// New starts a node: its slave XML-RPC server and TCPROS listener, both
// on Options.Host. It does not contact the master until the first
// Advertise or Subscribe; use Master().GetURI to check it is up.
func New(ctx context.Context, o Options) (*Node, error) {
	o, err := o.resolved()
	if err != nil {
		return nil, err
	}
	bind := bindAddr(o.Host)
	httpLn, err := net.Listen("tcp", net.JoinHostPort(bind, "0"))
	if err != nil {
		return nil, fmt.Errorf("rosnode: listening for XML-RPC on %s: %w", o.Host, err)
	}
	tcpLn, err := net.Listen("tcp", net.JoinHostPort(bind, "0"))
	if err != nil {
		httpLn.Close()
		return nil, fmt.Errorf("rosnode: listening for TCPROS on %s: %w", o.Host, err)
	}
	n := &Node{
		opts:    o,
		uri:     "http://" + net.JoinHostPort(o.Host, strconv.Itoa(httpLn.Addr().(*net.TCPAddr).Port)) + "/",
		httpLn:  httpLn,
		tcpLn:   tcpLn,
		tcpPort: tcpLn.Addr().(*net.TCPAddr).Port,
		pubs:    map[string]*Publisher{},
		subs:    map[string]*Subscriber{},
		srvs:    map[string]*Service{},

		tcpConns:   connLimit{total: o.MaxConns},
		handshakes: connLimit{perKey: maxHandshakesPerHost},
		callers:    connLimit{perKey: maxConnsPerCaller},
	}
	n.master = NewMaster(o.MasterURI, o.Name)
	n.master.client.HTTP = &http.Client{Timeout: o.Timeout}
	n.master.peers.HTTP = n.master.client.HTTP
	n.ctx, n.cancel = context.WithCancel(context.WithoutCancel(ctx))
	n.httpS = &http.Server{
		Handler: &xmlrpc.Server{Handle: n.handleSlave, OnError: func(remote string, err error) {
			o.Logf("slave API: bad request from %s: %v", remote, err)
		}, MaxBody: MaxSlaveRequest, MaxConcurrent: maxSlaveConcurrent},
		ReadHeaderTimeout: o.Timeout,
		ReadTimeout:       4 * o.Timeout,
		IdleTimeout:       o.Timeout,
	}
	slaveLn := &limitListener{Listener: httpLn, lim: &connLimit{perKey: maxSlaveConnsPerHost, total: maxSlaveConns},
		refused: func(c net.Conn, err error) {
			o.Logf("slave API: connection from %s refused: %v", c.RemoteAddr(), err)
		}}
	n.wg.Add(3)
	go func() {
		defer n.wg.Done()
		_ = n.httpS.Serve(slaveLn)
	}()
	go func() {
		defer n.wg.Done()
		n.watchMaster()
	}()
	go func() {
		defer n.wg.Done()
		n.serveTCPROS()
	}()
	return n, nil
}

// Name is the node's resolved name.
func (n *Node) Name() string { return n.opts.Name }

// URI is the node's slave API URI.
func (n *Node) URI() string { return n.uri }

// MaxMessage is the node's bound on one received message
// (Options.MaxMessage).
func (n *Node) MaxMessage() int { return n.opts.MaxMessage }

// Master is the node's master client.
func (n *Node) Master() *Master { return n.master }

// Namespace is the node's namespace ("/" for the root).
func (n *Node) Namespace() string { return n.opts.Namespace }

// Resolve resolves a topic name against the node's namespace.
func (n *Node) Resolve(name string) string { return Resolve(n.opts.Namespace, name) }

// Close unregisters every publisher, subscriber and service, closes every
// connection and stops the servers. It is idempotent.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	pubs := make([]*Publisher, 0, len(n.pubs))
	for _, p := range n.pubs {
		pubs = append(pubs, p)
	}
	subs := make([]*Subscriber, 0, len(n.subs))
	for _, s := range n.subs {
		subs = append(subs, s)
	}
	srvs := make([]*Service, 0, len(n.srvs))
	for _, s := range n.srvs {
		srvs = append(srvs, s)
	}
	n.mu.Unlock()
	// Unregister in parallel: with the master gone, Close then takes one
	// Timeout, not one per topic.
	errs := make([]error, len(pubs)+len(subs)+len(srvs))
	var wg sync.WaitGroup
	for i, p := range pubs {
		wg.Go(func() { errs[i] = p.Close() })
	}
	for i, s := range subs {
		wg.Go(func() { errs[len(pubs)+i] = s.Close() })
	}
	for i, s := range srvs {
		wg.Go(func() { errs[len(pubs)+len(subs)+i] = s.Close() })
	}
	wg.Wait()
	n.cancel()
	n.tcpLn.Close()
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = n.httpS.Shutdown(sctx)
	n.wg.Wait()
	return errors.Join(errs...)
}

// unregisterCtx bounds an unregistration, which also runs during Close
// after the node's context is gone.
func (n *Node) unregisterCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), n.opts.Timeout)
}

// serveTCPROS accepts subscriber connections to this node's publishers
// and client connections to its services.
func (n *Node) serveTCPROS() {
	for {
		c, err := n.tcpLn.Accept()
		if err != nil {
			if n.ctx.Err() == nil {
				n.opts.Logf("TCPROS listener stopped: %v", err)
			}
			return
		}
		host := hostOf(c.RemoteAddr())
		if err := n.tcpConns.acquire(""); err != nil {
			n.refuseConn(c, err)
			continue
		}
		if err := n.handshakes.acquire(host); err != nil {
			n.tcpConns.release("")
			n.refuseConn(c, fmt.Errorf("%w before their header", err))
			continue
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			defer n.tcpConns.release("")
			n.acceptConn(c, host)
		}()
	}
}

// refuseConn closes a TCPROS connection beyond a bound of Options.MaxConns,
// maxHandshakesPerHost or maxConnsPerCaller, with a log line.
func (n *Node) refuseConn(c net.Conn, err error) {
	n.opts.Logf("TCPROS connection from %s refused: %v", c.RemoteAddr(), err)
	c.Close()
}

// acceptConn runs the server side of one TCPROS handshake and hands the
// connection to its publisher or, for a header naming a service, to its
// service.
func (n *Node) acceptConn(c net.Conn, host string) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	_ = c.SetDeadline(time.Now().Add(n.opts.Timeout))
	// Close does not wait for a peer that never sends its header.
	stop := context.AfterFunc(n.ctx, func() { c.Close() })
	h, err := tcpros.ReadHeader(c)
	n.handshakes.release(host)
	if !stop() {
		c.Close()
		return
	}
	if err != nil {
		n.opts.Logf("TCPROS connection from %s closed: %v", c.RemoteAddr(), err)
		c.Close()
		return
	}
	refuse := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		n.opts.Logf("TCPROS connection from %s (%s) refused: %s", c.RemoteAddr(), h.Value("callerid"), msg)
		_ = tcpros.WriteHeader(c, tcpros.Header{{Key: "error", Value: msg}})
		c.Close()
	}
	name, isService := h.Get("service")
	if !isService {
		name = h.Value("topic")
	}
	caller := h.Value("callerid") + " " + name
	if err := n.callers.acquire(caller); err != nil {
		n.refuseConn(c, fmt.Errorf("%s to %s: %w", h.Value("callerid"), name, err))
		return
	}
	defer n.callers.release(caller)
	if isService {
		n.acceptServiceClient(c, h, name, refuse)
		return
	}
	topic := name
	n.mu.Lock()
	p := n.pubs[topic]
	n.mu.Unlock()
	if p == nil {
		refuse("no publisher for topic [%s]", topic)
		return
	}
	md5 := h.Value("md5sum")
	if md5 != "*" && p.info.MD5 != "*" && md5 != p.info.MD5 {
		refuse("Client [%s] wants topic %s to have datatype/md5sum [%s/%s], but our version has [%s/%s]. Dropping connection.",
			h.Value("callerid"), topic, h.Value("type"), md5, p.info.Type, p.info.MD5)
		return
	}
	latching := "0"
	if p.info.Latching {
		latching = "1"
	}
	resp := tcpros.Header{
		{Key: "callerid", Value: n.opts.Name},
		{Key: "latching", Value: latching},
		{Key: "md5sum", Value: p.info.MD5},
		{Key: "message_definition", Value: p.info.Definition},
		{Key: "topic", Value: topic},
		{Key: "type", Value: p.info.Type},
	}
	if err := tcpros.WriteHeader(c, resp); err != nil {
		n.opts.Logf("TCPROS connection from %s closed: writing header: %v", c.RemoteAddr(), err)
		c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	p.serve(c, h.Value("callerid"), n.connIDs.Add(1))
}
