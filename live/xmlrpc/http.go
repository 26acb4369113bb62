package xmlrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Client calls XML-RPC methods over HTTP.
type Client struct {
	// HTTP is the client used; nil means a client with a 10 s timeout.
	HTTP *http.Client
	// MaxBody bounds a response body in bytes (MaxBody when 0): a longer
	// one fails to decode after that many bytes.
	MaxBody int64
}

var defaultHTTP = &http.Client{Timeout: 10 * time.Second}

// Call invokes method at url with params and returns the decoded result.
func (c *Client) Call(ctx context.Context, url, method string, params ...any) (any, error) {
	var body bytes.Buffer
	if err := EncodeCall(&body, method, params...); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/xml")
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("xmlrpc %s at %s: HTTP %s", method, url, resp.Status)
	}
	limit := c.MaxBody
	if limit <= 0 {
		limit = MaxBody
	}
	v, err := DecodeResponse(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("xmlrpc %s at %s: %w", method, url, err)
	}
	return v, nil
}

// Handler answers one method call; a returned *Fault is sent as is, any
// other error as fault code 1.
type Handler func(method string, params []any) (any, error)

// Server is an http.Handler that decodes calls and dispatches them.
type Server struct {
	Handle Handler
	// OnError, when set, is told about requests that could not be decoded.
	OnError func(remote string, err error)
	// MaxBody bounds a request body in bytes (MaxBody when 0): a longer
	// one is refused as soon as that many bytes have been read.
	MaxBody int64
	// MaxConcurrent, when > 0, bounds the requests read and answered at
	// once; the others wait, so memory is bounded by MaxConcurrent bodies.
	MaxConcurrent int

	once sync.Once
	sem  chan struct{}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "XML-RPC wants POST", http.StatusMethodNotAllowed)
		return
	}
	if s.MaxConcurrent > 0 {
		s.once.Do(func() { s.sem = make(chan struct{}, s.MaxConcurrent) })
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		case <-r.Context().Done():
			return
		}
	}
	limit := s.MaxBody
	if limit <= 0 {
		limit = MaxBody
	}
	method, params, err := DecodeCall(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if s.OnError != nil {
			s.OnError(r.RemoteAddr, err)
		}
		w.Header().Set("Content-Type", "text/xml")
		_ = EncodeFault(w, &Fault{Code: 1, String: err.Error()})
		return
	}
	v, err := s.Handle(method, params)
	w.Header().Set("Content-Type", "text/xml")
	if err != nil {
		var f *Fault
		if !errors.As(err, &f) {
			f = &Fault{Code: 1, String: err.Error()}
		}
		_ = EncodeFault(w, f)
		return
	}
	var b bytes.Buffer
	if err := EncodeResponse(&b, v); err != nil {
		_ = EncodeFault(w, &Fault{Code: 1, String: err.Error()})
		return
	}
	_, _ = w.Write(b.Bytes())
}
