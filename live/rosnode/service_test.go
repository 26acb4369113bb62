package rosnode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
)

// echoService advertises /echo on a node of its own: the response is the
// request reversed; a request "fail" fails; a request "wait" waits for the
// service to close.
func echoService(t *testing.T, o rosnode.Options) (*rosnode.Node, *rosnode.Service) {
	t.Helper()
	o.Name = "/srv"
	if o.MasterURI == "" {
		o.MasterURI = fakeMaster(t)
	}
	n, err := rosnode.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	s, err := n.AdvertiseService("echo", rosnode.ServiceInfo{Type: "test_srvs/Echo", MD5: "0123456789abcdef0123456789abcdef"},
		func(ctx context.Context, req []byte) ([]byte, error) {
			switch string(req) {
			case "fail":
				return nil, errors.New("asked to fail")
			case "wait":
				<-ctx.Done()
				return nil, ctx.Err()
			}
			out := make([]byte, len(req))
			for i, b := range req {
				out[len(req)-1-i] = b
			}
			return out, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "/echo" {
		t.Fatalf("name %s", s.Name())
	}
	return n, s
}

// dialService opens a client connection to s asking for service with
// header fields kv and returns it with the reply header.
func dialService(t *testing.T, s *rosnode.Service, service string, kv ...string) (net.Conn, tcpros.Header) {
	t.Helper()
	u, err := url.Parse(s.URI())
	if err != nil || u.Scheme != "rosrpc" {
		t.Fatalf("service URI %s: %v", s.URI(), err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	h := tcpros.Header{{Key: "callerid", Value: "/client"}, {Key: "service", Value: service}}
	for i := 0; i+1 < len(kv); i += 2 {
		h = append(h, tcpros.Field{Key: kv[i], Value: kv[i+1]})
	}
	if err := tcpros.WriteHeader(c, h); err != nil {
		t.Fatal(err)
	}
	reply, err := tcpros.ReadHeader(c)
	if err != nil {
		t.Fatalf("reply header: %v", err)
	}
	return c, reply
}

// call sends one request and reads the ok byte and the response.
func call(c net.Conn, req string) (ok bool, resp string, err error) {
	if err := tcpros.WriteFrame(c, []byte(req)); err != nil {
		return false, "", err
	}
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return false, "", err
	}
	data, err := tcpros.ReadFrame(c, nil, 1<<20)
	return b[0] == 1, string(data), err
}

// closed reports whether the node closed c: reading ends with EOF, or with
// a reset when the node closed with bytes of ours unread, not with the
// deadline.
func closed(c net.Conn) bool {
	_, err := io.ReadAll(c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

func TestServiceCalls(t *testing.T) {
	_, s := echoService(t, rosnode.Options{})
	t.Run("probe", func(t *testing.T) {
		c, h := dialService(t, s, "/echo", "md5sum", "*", "probe", "1")
		want := tcpros.Header{{Key: "callerid", Value: "/srv"}, {Key: "md5sum", Value: "0123456789abcdef0123456789abcdef"},
			{Key: "request_type", Value: "test_srvs/EchoRequest"}, {Key: "response_type", Value: "test_srvs/EchoResponse"},
			{Key: "type", Value: "test_srvs/Echo"}}
		if !slicesEqual(h, want) {
			t.Errorf("probe reply %v, want %v", h, want)
		}
		if !closed(c) {
			t.Error("probe connection not closed after the header")
		}
	})
	t.Run("one call", func(t *testing.T) {
		c, h := dialService(t, s, "/echo", "md5sum", "0123456789abcdef0123456789abcdef")
		if _, bad := h.Get("error"); bad {
			t.Fatalf("refused: %v", h)
		}
		if ok, resp, err := call(c, "abc"); !ok || resp != "cba" || err != nil {
			t.Fatalf("call: %v %q %v", ok, resp, err)
		}
		if !closed(c) {
			t.Error("non-persistent connection not closed after one call")
		}
	})
	t.Run("persistent", func(t *testing.T) {
		c, _ := dialService(t, s, "/echo", "md5sum", "*", "persistent", "1")
		for _, req := range []string{"first", "", "fail", strings.Repeat("x", 100000)} {
			ok, resp, err := call(c, req)
			switch {
			case err != nil:
				t.Fatalf("call %.10q: %v", req, err)
			case req == "fail":
				if ok || resp != "asked to fail" {
					t.Errorf("failing call: ok %v, %q", ok, resp)
				}
			case !ok || len(resp) != len(req) || (req == "first" && resp != "tsrif"):
				t.Errorf("call %.10q: ok %v, %.10q", req, ok, resp)
			}
		}
		c.(*net.TCPConn).CloseWrite()
		if !closed(c) {
			t.Error("not closed after the client's EOF")
		}
	})
	for _, tc := range []struct{ name, service, md5, want string }{
		{"no such service", "/other", "*", "no service [/other]"},
		{"wrong md5sum", "/echo", "ffff", "wants service [/echo] to have md5sum [ffff]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, h := dialService(t, s, tc.service, "md5sum", tc.md5)
			if !strings.Contains(h.Value("error"), tc.want) {
				t.Errorf("reply %v, want an error containing %q", h, tc.want)
			}
			if !closed(c) {
				t.Error("not closed after the error header")
			}
		})
	}
	// Close ends a call in progress and the connection.
	c, _ := dialService(t, s, "/echo", "md5sum", "*", "persistent", "1")
	tcpros.WriteFrame(c, []byte("wait"))
	time.Sleep(50 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if !closed(c) {
		t.Error("connection open after Close")
	}
}

func slicesEqual(a, b tcpros.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Requests whose length is over MaxRequest, or that are cut short, close
// that connection with a log line before anything that size is
// allocated; the service goes on serving.
func TestServiceSurvivesHostileRequests(t *testing.T) {
	var l logs
	_, s := echoService(t, rosnode.Options{Logf: l.logf})
	for _, tc := range []struct {
		name, log string
		send      []byte
	}{
		{"length 4 GiB", "frame of 4294967295 bytes, limit 1048576", []byte{0xff, 0xff, 0xff, 0xff}},
		{"length over MaxRequest", "frame of 1048577 bytes, limit 1048576", append(binary.LittleEndian.AppendUint32(nil, rosnode.DefaultMaxRequest+1), 'x')},
		{"cut short", "unexpected EOF", append(binary.LittleEndian.AppendUint32(nil, 1000), 'x')},
		{"length cut short", "unexpected EOF", []byte{1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := dialService(t, s, "/echo", "md5sum", "*", "persistent", "1")
			c.Write(tc.send)
			c.(*net.TCPConn).CloseWrite()
			if !closed(c) {
				t.Fatal("connection not closed by the node")
			}
			l.waitFor(t, tc.log)
		})
	}
	c, _ := dialService(t, s, "/echo", "md5sum", "*")
	if ok, resp, err := call(c, "ok"); !ok || resp != "ko" || err != nil {
		t.Fatalf("good call after hostile ones: %v %q %v", ok, resp, err)
	}
}

// A request announced at just under the default MaxRequest that never
// comes costs only what arrived, not the announced size.
func TestServiceRequestLengthDoesNotAllocate(t *testing.T) {
	var l logs
	_, s := echoService(t, rosnode.Options{Logf: l.logf})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 8 {
		c, _ := dialService(t, s, "/echo", "md5sum", "*")
		c.Write(append(binary.LittleEndian.AppendUint32(nil, rosnode.DefaultMaxRequest-1), bytes.Repeat([]byte{7}, 100)...))
		c.(*net.TCPConn).CloseWrite()
		if !closed(c) {
			t.Fatal("connection not closed by the node")
		}
	}
	l.waitFor(t, "unexpected EOF")
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<20 {
		t.Errorf("8 requests announcing 1 MiB allocated %d KiB", grew>>10)
	}
}
