package rosnode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/baglab/baglab/live/tcpros"
)

// ServiceInfo is what a service server announces in its connection
// header.
type ServiceInfo struct {
	// Type is the service type ("std_srvs/SetBool"); MD5 is its ROS1 MD5
	// sum (msgdef.ServiceMD5 of the request and response types).
	Type, MD5 string
	// RequestType and ResponseType name the request and response messages;
	// "" means Type+"Request" and Type+"Response", as genmsg names them.
	RequestType, ResponseType string
	// MaxRequest bounds a request in bytes (DefaultMaxRequest when 0); a
	// longer one closes the connection before it is read into memory.
	MaxRequest int
}

// DefaultMaxRequest is the default bound on a service request (1 MiB;
// the services baglab serves take a few bytes).
const DefaultMaxRequest = 1 << 20

// ServiceHandler answers one call: req is the serialized request, valid
// only until the handler returns; resp is the serialized response. A
// non-nil error is sent to the client instead of a response (rospy raises
// it as a ServiceException). ctx ends when the service closes. Calls on
// different connections run concurrently.
type ServiceHandler func(ctx context.Context, req []byte) (resp []byte, err error)

// Service is a service server of a node.
type Service struct {
	node   *Node
	name   string
	info   ServiceInfo
	handle ServiceHandler
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// AdvertiseService registers a service server of name (resolved against
// the node's namespace) with the master. Clients connect to the node's
// TCPROS listener; each request is handed to h. A second AdvertiseService
// of the same name fails.
func (n *Node) AdvertiseService(name string, info ServiceInfo, h ServiceHandler) (*Service, error) {
	if info.Type == "" || info.MD5 == "" || h == nil {
		return nil, fmt.Errorf("rosnode: advertise service %s: type, md5sum and handler required", name)
	}
	if info.MaxRequest <= 0 {
		info.MaxRequest = DefaultMaxRequest
	}
	if info.RequestType == "" {
		info.RequestType = info.Type + "Request"
	}
	if info.ResponseType == "" {
		info.ResponseType = info.Type + "Response"
	}
	name = n.Resolve(name)
	s := &Service{node: n, name: name, info: info, handle: h, conns: map[net.Conn]struct{}{}}
	s.ctx, s.cancel = context.WithCancel(n.ctx)
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		s.cancel()
		return nil, ErrClosed
	}
	if n.srvs[name] != nil {
		n.mu.Unlock()
		s.cancel()
		return nil, fmt.Errorf("rosnode: service %s is already advertised by this node", name)
	}
	n.srvs[name] = s
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	if err := n.master.RegisterService(ctx, name, s.URI(), n.uri); err != nil {
		n.mu.Lock()
		delete(n.srvs, name)
		n.mu.Unlock()
		s.cancel()
		return nil, fmt.Errorf("rosnode: advertise service %s at master %s: %w", name, n.opts.MasterURI, err)
	}
	return s, nil
}

// Name is the resolved service name.
func (s *Service) Name() string { return s.name }

// URI is the service's rosrpc://host:port URI (the node's TCPROS
// listener), as registered with the master.
func (s *Service) URI() string {
	return "rosrpc://" + net.JoinHostPort(s.node.opts.Host, strconv.Itoa(s.node.tcpPort))
}

// Close unregisters the service, ends the context of running calls and
// closes its client connections. It is idempotent.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.cancel()
	n := s.node
	n.mu.Lock()
	if n.srvs[s.name] == s {
		delete(n.srvs, s.name)
	}
	n.mu.Unlock()
	ctx, cancel := n.unregisterCtx()
	defer cancel()
	if _, err := n.master.UnregisterService(ctx, s.name, s.URI()); err != nil {
		return fmt.Errorf("rosnode: unregister service %s: %w", s.name, err)
	}
	return nil
}

// acceptServiceClient runs the server side of a service connection whose
// header h asked for service name: the reply header (and nothing more
// for a probe, as rosservice sends to learn the type), then requests and
// responses until the client closes, or after one call when the client
// did not ask for a persistent connection (as roscpp does).
func (n *Node) acceptServiceClient(c net.Conn, h tcpros.Header, name string, refuse func(string, ...any)) {
	n.mu.Lock()
	s := n.srvs[name]
	n.mu.Unlock()
	if s == nil {
		refuse("no service [%s] on this node", name)
		return
	}
	if md5 := h.Value("md5sum"); md5 != "*" && md5 != s.info.MD5 {
		refuse("client [%s] wants service [%s] to have md5sum [%s], but it has [%s]. Dropping connection.",
			h.Value("callerid"), name, md5, s.info.MD5)
		return
	}
	resp := tcpros.Header{
		{Key: "callerid", Value: n.opts.Name},
		{Key: "md5sum", Value: s.info.MD5},
		{Key: "request_type", Value: s.info.RequestType},
		{Key: "response_type", Value: s.info.ResponseType},
		{Key: "type", Value: s.info.Type},
	}
	if err := tcpros.WriteHeader(c, resp); err != nil {
		n.opts.Logf("service %s: connection from %s closed: writing header: %v", name, c.RemoteAddr(), err)
		c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{}) // a persistent client may idle between calls
	if h.Value("probe") == "1" {
		c.Close()
		return
	}
	s.serve(c, h.Value("callerid"), h.Value("persistent") == "1")
}

// serve answers the calls on one client connection. A request longer
// than ServiceInfo.MaxRequest closes the connection before anything that
// size is allocated, and so does a request cut off for Options.Timeout.
func (s *Service) serve(c net.Conn, peer string, persistent bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	o := s.node.opts
	var buf []byte
	r := &stallReader{c: c, d: o.Timeout}
	for {
		r.idle = true
		req, err := tcpros.ReadFrame(r, buf, s.info.MaxRequest)
		if err != nil {
			if !errors.Is(err, io.EOF) && s.ctx.Err() == nil {
				o.Logf("service %s: connection from %s (%s) closed: request: %v", s.name, c.RemoteAddr(), peer, err)
			}
			return
		}
		buf = req
		resp, herr := s.handle(s.ctx, req)
		_ = c.SetWriteDeadline(time.Now().Add(o.Timeout))
		if herr != nil {
			err = tcpros.WriteServiceResponse(c, false, []byte(herr.Error()))
		} else {
			err = tcpros.WriteServiceResponse(c, true, resp)
		}
		if err != nil {
			if s.ctx.Err() == nil {
				o.Logf("service %s: connection from %s (%s) closed: response: %v", s.name, c.RemoteAddr(), peer, err)
			}
			return
		}
		if !persistent {
			return
		}
	}
}
