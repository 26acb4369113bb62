package rosnode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
	"github.com/baglab/baglab/live/xmlrpc"
)

// fakeMaster answers registrations (of topics and services);
// registerSubscriber names publishers.
func fakeMaster(t *testing.T, publishers ...string) string {
	t.Helper()
	pubs := make([]any, len(publishers))
	for i, p := range publishers {
		pubs[i] = p
	}
	s := httptest.NewServer(&xmlrpc.Server{Handle: func(method string, params []any) (any, error) {
		switch method {
		case "registerSubscriber":
			return []any{1, "", pubs}, nil
		case "registerPublisher":
			return []any{1, "", []any{}}, nil
		case "registerService":
			return []any{1, "", 1}, nil
		case "unregisterSubscriber", "unregisterPublisher", "unregisterService":
			return []any{1, "", 1}, nil
		case "getUri":
			return []any{1, "", "http://fake/"}, nil
		case "getPid":
			return []any{1, "", 4242}, nil
		}
		return nil, fmt.Errorf("fake master: no %s", method)
	}})
	t.Cleanup(s.Close)
	return s.URL + "/"
}

type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) waitFor(t *testing.T, sub string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		l.mu.Lock()
		for _, s := range l.lines {
			if strings.Contains(s, sub) {
				l.mu.Unlock()
				return
			}
		}
		l.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("no log line contains %q; got %q", sub, l.lines)
}

// tcprosPort asks the node's slave API for its TCPROS endpoint.
func tcprosPort(t *testing.T, n *rosnode.Node, topic string) string {
	t.Helper()
	var c xmlrpc.Client
	v, err := c.Call(context.Background(), n.URI(), "requestTopic", "/peer", topic, []any{[]any{"TCPROS"}})
	if err != nil {
		t.Fatal(err)
	}
	ep := v.([]any)[2].([]any)
	return net.JoinHostPort(ep[1].(string), fmt.Sprint(ep[2].(int)))
}

// Malformed headers from a subscriber close only that connection, with a
// logged reason; a well-formed subscriber is still served.
func TestPublisherSurvivesMalformedHeaders(t *testing.T) {
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/pub", MasterURI: fakeMaster(t), Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	pub, err := n.Advertise("/x", rosnode.TopicInfo{Type: "std_msgs/String", MD5: "992ce8a1687cec8c8bd883ec73ca41d1", Definition: "string data\n"})
	if err != nil {
		t.Fatal(err)
	}
	addr := tcprosPort(t, n, "/x")
	for _, tc := range []struct {
		name, log string
		send      []byte
	}{
		{"huge length", "length over limit", []byte{0xff, 0xff, 0xff, 0x7f}},
		{"field past end", "claims 100 bytes", append(binary.LittleEndian.AppendUint32(nil, 8), 100, 0, 0, 0, 'a', '=', 'b', 'c')},
		{"no equals sign", "no key=value", append(binary.LittleEndian.AppendUint32(nil, 7), 3, 0, 0, 0, 'a', 'b', 'c')},
		{"cut short", "unexpected EOF", binary.LittleEndian.AppendUint32(nil, 50)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write(tc.send)
			if tc.name == "cut short" {
				c.(*net.TCPConn).CloseWrite()
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadAll(c); err != nil {
				t.Fatalf("connection not closed by the node: %v", err)
			}
			l.waitFor(t, tc.log)
		})
	}
	// A subscriber asking for the wrong md5sum gets an error header.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: "/bad"}, {Key: "topic", Value: "/x"}, {Key: "md5sum", Value: "0123"}, {Key: "type", Value: "other/Type"}})
	h, err := tcpros.ReadHeader(c)
	c.Close()
	if err != nil || !strings.Contains(h.Value("error"), "datatype/md5sum") {
		t.Fatalf("wrong md5sum: header %v, %v", h, err)
	}
	// A good subscriber still gets messages.
	c, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: "/good"}, {Key: "topic", Value: "/x"}, {Key: "md5sum", Value: "*"}, {Key: "type", Value: "*"}, {Key: "tcp_nodelay", Value: "1"}})
	if h, err = tcpros.ReadHeader(c); err != nil || h.Value("type") != "std_msgs/String" || h.Value("callerid") != "/pub" {
		t.Fatalf("good subscriber: header %v, %v", h, err)
	}
	if err := pub.WaitForSubscribers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	pub.Publish([]byte{2, 0, 0, 0, 'h', 'i'})
	frame, err := tcpros.ReadFrame(c, nil, 100)
	if err != nil || string(frame) != "\x02\x00\x00\x00hi" {
		t.Fatalf("frame %q, %v", frame, err)
	}
}

// Malformed XML-RPC to the slave API gets a fault and a log line; the node
// keeps answering.
func TestSlaveAPISurvivesMalformedXML(t *testing.T) {
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/n", MasterURI: fakeMaster(t), Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	for _, body := range []string{"garbage", "<methodCall><methodName>getPid</methodName><params><param><value><array><data>" + strings.Repeat("<value><array><data>", 100),
		"<methodCall><methodName>x</methodName><params><param><value><i4>nope</i4></value></param></params></methodCall>"} {
		resp, err := http.Post(n.URI(), "text/xml", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, err = xmlrpc.DecodeResponse(resp.Body)
		resp.Body.Close()
		if _, ok := err.(*xmlrpc.Fault); !ok {
			t.Fatalf("malformed call %.30q: got %v, want a fault", body, err)
		}
	}
	l.waitFor(t, "slave API: bad request")
	var c xmlrpc.Client
	v, err := c.Call(context.Background(), n.URI(), "getPid", "/peer")
	if err != nil || v.([]any)[0] != 1 {
		t.Fatalf("getPid after bad requests: %v, %v", v, err)
	}
}

// fakePublisher serves TCPROS for topic /y: each connection gets a
// publisher header, then script(i, c) for the i-th connection. Its slave
// API (the returned URI) names that endpoint.
func fakePublisher(t *testing.T, script func(i int, c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				tcpros.ReadHeader(c)
				tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: "/evil"}, {Key: "latching", Value: "0"}, {Key: "md5sum", Value: "abc"},
					{Key: "message_definition", Value: "string data\n"}, {Key: "topic", Value: "/y"}, {Key: "type", Value: "std_msgs/String"}})
				script(i, c)
			}()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	slave := httptest.NewServer(&xmlrpc.Server{Handle: func(method string, params []any) (any, error) {
		return []any{1, "", []any{"TCPROS", "127.0.0.1", port}}, nil
	}})
	t.Cleanup(slave.Close)
	return slave.URL + "/"
}

// budget is a rosnode.Budget of a fixed size; asks are the sizes it was
// asked for.
type budget struct {
	mu         sync.Mutex
	used, size int
	asks       []int
}

func (b *budget) Reserve(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asks = append(b.asks, n)
	if b.used+n > b.size {
		return false
	}
	b.used += n
	return true
}

func (b *budget) Release(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// A publisher's frame over MaxMessage is read and discarded, counted and
// logged, and the connection goes on; so is one the budget has no room
// for. A frame stopping mid-way closes the connection after Timeout with a
// log line, and the subscriber reconnects.
func TestSubscriberSkipsOversizedAndStalledFrames(t *testing.T) {
	big := bytes.Repeat([]byte{1}, 2000)
	uri := fakePublisher(t, func(i int, c net.Conn) {
		if i == 0 {
			tcpros.WriteFrame(c, big)                                         // over MaxMessage
			tcpros.WriteFrame(c, []byte("first"))                             // kept
			tcpros.WriteFrame(c, bytes.Repeat([]byte{2}, 600))                // over the budget
			tcpros.WriteFrame(c, []byte("second"))                            // kept
			c.Write(append(binary.LittleEndian.AppendUint32(nil, 500), 1, 2)) // stalls
		} else {
			tcpros.WriteFrame(c, []byte("third"))
		}
		io.Copy(io.Discard, c)
	})
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/sub", MasterURI: fakeMaster(t, uri), MaxMessage: 1024,
		Timeout: 300 * time.Millisecond, Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	got := make(chan *rosnode.Message, 10)
	var drops []string
	var dmu sync.Mutex
	b := &budget{size: 512}
	_, err = n.Subscribe("/y", rosnode.SubscribeOptions{Budget: b,
		OnMessage: func(m *rosnode.Message) { b.Release(len(m.Data)); got <- m },
		OnDrop: func(c *rosnode.Connection, size int, err error) {
			dmu.Lock()
			drops = append(drops, fmt.Sprintf("%d %v", size, err))
			dmu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	var conn1 *rosnode.Connection
	for _, want := range []string{"first", "second", "third"} {
		select {
		case m := <-got:
			if string(m.Data) != want || m.Size != len(want) || m.Conn.Header.Value("callerid") != "/evil" {
				t.Fatalf("message %q (size %d) header %v; want %q", m.Data, m.Size, m.Conn.Header, want)
			}
			if want == "first" {
				conn1 = m.Conn
			}
			if (want == "second") != (m.Conn == conn1) && want != "first" {
				t.Fatalf("%q on connection %d, first on %d", want, m.Conn.ID, conn1.ID)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no message %q", want)
		}
	}
	l.waitFor(t, "dropped a message of 2000 bytes from /evil")
	l.waitFor(t, "length over limit: 2000 bytes, limit 1024")
	l.waitFor(t, "dropped a message of 600 bytes from /evil")
	l.waitFor(t, "no bytes for 300ms in the middle of a message")
	dmu.Lock()
	defer dmu.Unlock()
	if len(drops) != 2 || !strings.HasPrefix(drops[0], "2000 ") || !strings.HasPrefix(drops[1], "600 ") {
		t.Fatalf("drops %q", drops)
	}
	if b.used != 0 {
		t.Fatalf("%d budget bytes not given back", b.used)
	}
}

// With ReserveWhole, a message's length is asked of the budget in one
// piece before its bytes are read: a frame it has no room for is dropped
// (and logged) with nothing of it reserved, and the next one, which fits,
// costs one ask of exactly its length, not one per growth of its buffer.
func TestSubscriberReservesWhole(t *testing.T) {
	const over, fits = 500 << 10, 300<<10 + 7
	uri := fakePublisher(t, func(i int, c net.Conn) {
		tcpros.WriteFrame(c, bytes.Repeat([]byte{1}, over))
		tcpros.WriteFrame(c, bytes.Repeat([]byte{2}, fits))
		io.Copy(io.Discard, c)
	})
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/sub", MasterURI: fakeMaster(t, uri), Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	b := &budget{size: 400 << 10}
	got := make(chan int, 1)
	if _, err := n.Subscribe("/y", rosnode.SubscribeOptions{Budget: b, ReserveWhole: true,
		OnMessage: func(m *rosnode.Message) { b.Release(len(m.Data)); got <- len(m.Data) }}); err != nil {
		t.Fatal(err)
	}
	select {
	case k := <-got:
		if k != fits {
			t.Fatalf("message of %d bytes, want %d", k, fits)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no message")
	}
	l.waitFor(t, fmt.Sprintf("dropped a message of %d bytes from /evil", over))
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Equal(b.asks, []int{over, fits}) || b.used != 0 {
		t.Fatalf("budget asked for %v, %d bytes still used; want [%d %d], 0", b.asks, b.used, over, fits)
	}
}

// A publisherUpdate that removes publishers is logged with its caller.
func TestPublisherUpdateRemovalLogged(t *testing.T) {
	uri := fakePublisher(t, func(i int, c net.Conn) { io.Copy(io.Discard, c) })
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/sub", MasterURI: fakeMaster(t, uri), Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	sub, err := n.Subscribe("/y", rosnode.SubscribeOptions{OnMessage: func(*rosnode.Message) {}})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); sub.NumPublishers() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not connected")
		}
	}
	var c xmlrpc.Client
	if _, err := c.Call(context.Background(), n.URI(), "publisherUpdate", "/intruder", "/y", []any{}); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "subscriber /y: publisherUpdate from /intruder removed publishers ["+uri+"] (0 remain)")
}

// Slave API bodies are bounded: one over MaxSlaveRequest is refused with a
// fault, and the node keeps answering.
func TestSlaveAPIBodyBound(t *testing.T) {
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/n", MasterURI: fakeMaster(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	body := "<methodCall><methodName>getPid</methodName><params><param><value><string>" +
		strings.Repeat("x", rosnode.MaxSlaveRequest) + "</string></value></param></params></methodCall>"
	resp, err := http.Post(n.URI(), "text/xml", strings.NewReader(body))
	if err == nil {
		_, err = xmlrpc.DecodeResponse(resp.Body)
		resp.Body.Close()
		if f, ok := err.(*xmlrpc.Fault); !ok || !strings.Contains(f.String, "too large") {
			t.Fatalf("over-long body: %v", err)
		}
	}
	var c xmlrpc.Client
	if v, err := c.Call(context.Background(), n.URI(), "getPid", "/peer"); err != nil || v.([]any)[0] != 1 {
		t.Fatalf("getPid after: %v, %v", v, err)
	}
}

// With no ROS_IP/ROS_HOSTNAME and a master on loopback, the node listens
// on 127.0.0.1 only: its ports do not answer on the machine's other
// addresses.
func TestListensOnConfiguredHostOnly(t *testing.T) {
	t.Setenv("ROS_IP", "")
	t.Setenv("ROS_HOSTNAME", "")
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/n", MasterURI: fakeMaster(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Advertise("/x", rosnode.TopicInfo{Type: "std_msgs/String", MD5: "*"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(n.URI(), "http://127.0.0.1:") {
		t.Fatalf("URI %s", n.URI())
	}
	tcp := tcprosPort(t, n, "/x")
	host, _, _ := net.SplitHostPort(tcp)
	if host != "127.0.0.1" {
		t.Fatalf("TCPROS endpoint %s", tcp)
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		_, xmlPort, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(n.URI(), "http://"), "/"))
		_, tcpPort, _ := net.SplitHostPort(tcp)
		for _, port := range []string{xmlPort, tcpPort} {
			if c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), port), time.Second); err == nil {
				c.Close()
				t.Fatalf("port %s answers on %s", port, ipn.IP)
			}
		}
		return
	}
	t.Log("no non-loopback IPv4 address to check against")
}

// Fake subscribers: one that never sends its header is closed after
// Timeout with a log line; one that sends a header and never reads has its
// queue's oldest messages dropped and counted, while a good subscriber
// gets every message.
func TestPublisherSurvivesStalledSubscribers(t *testing.T) {
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/pub", MasterURI: fakeMaster(t), Timeout: 300 * time.Millisecond,
		PublishQueue: 10, Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	pub, err := n.Advertise("/x", rosnode.TopicInfo{Type: "std_msgs/String", MD5: "992ce8a1687cec8c8bd883ec73ca41d1", Definition: "string data\n"})
	if err != nil {
		t.Fatal(err)
	}
	addr := tcprosPort(t, n, "/x")
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(silent); err != nil {
		t.Fatalf("silent subscriber not closed: %v", err)
	}
	l.waitFor(t, "i/o timeout")
	subscribe := func(name string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: name}, {Key: "topic", Value: "/x"}, {Key: "md5sum", Value: "*"}, {Key: "type", Value: "*"}})
		if _, err := tcpros.ReadHeader(c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	stuck := subscribe("/stuck")
	stuck.(*net.TCPConn).SetReadBuffer(4096)
	good := subscribe("/good")
	if err := pub.WaitForSubscribers(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	msg := stringMsg(strings.Repeat("m", 64<<10))
	received := make(chan int, 1)
	go func() {
		k := 0
		for {
			if _, err := tcpros.ReadFrame(good, nil, 1<<20); err != nil {
				break
			}
			k++
			if k == 300 {
				break
			}
		}
		received <- k
	}()
	for range 300 {
		pub.Publish(msg)
		time.Sleep(time.Millisecond)
	}
	select {
	case k := <-received:
		if k != 300 {
			t.Fatalf("good subscriber got %d of 300", k)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("good subscriber stalled with the stuck one")
	}
	if pub.Drops() == 0 {
		t.Fatal("no drops counted for the stuck subscriber")
	}
}

// A publisher whose slave API answers requestTopic with a 50 MB body is
// read no further than MaxSlaveRequest bytes: the connection attempt fails
// with a log line, and what the node allocates stays small.
func TestRequestTopicResponseBound(t *testing.T) {
	slave := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<?xml version=\"1.0\"?><methodResponse><params><param><value><string>")
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 50 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, "</string></value></param></params></methodResponse>")
	}))
	defer slave.Close()
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/sub", MasterURI: fakeMaster(t, slave.URL+"/"), Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := n.Subscribe("/y", rosnode.SubscribeOptions{OnMessage: func(*rosnode.Message) {}}); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "subscriber /y: connection to "+slave.URL+"/ closed: xmlrpc requestTopic")
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("a 50 MB requestTopic answer allocated %d MiB", grew>>20)
	}
}

// Messages of one size, released by the receiver, are read into the
// buffers they came in: 40 clouds of 1 MiB + 111 B allocate a few
// buffers, not 40 (and not the 2 MiB each that growing a 1 MiB buffer
// cost before).
func TestSubscriberReusesBuffers(t *testing.T) {
	const size, count = 1<<20 + 111, 40
	uri := fakePublisher(t, func(i int, c net.Conn) {
		msg := bytes.Repeat([]byte{7}, size)
		for range count {
			if tcpros.WriteFrame(c, msg) != nil {
				return
			}
		}
		io.Copy(io.Discard, c)
	})
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/sub", MasterURI: fakeMaster(t, uri)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	done := make(chan struct{})
	k := 0
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := n.Subscribe("/y", rosnode.SubscribeOptions{OnMessage: func(m *rosnode.Message) {
		if len(m.Data) != size {
			t.Errorf("message of %d bytes", len(m.Data))
		}
		m.Release()
		if k++; k == count {
			close(done)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%d of %d messages", k, count)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("%d messages of %d bytes allocated %d MiB", count, size, grew>>20)
	}
}

// A publisher that accepts the connection and never sends its header is
// dropped after Timeout with a log line, and tried again with backoff.
func TestSubscriberDropsSilentPublisher(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	accepted := 0
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	slave := httptest.NewServer(&xmlrpc.Server{Handle: func(string, []any) (any, error) {
		return []any{1, "", []any{"TCPROS", "127.0.0.1", port}}, nil
	}})
	defer slave.Close()
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/sub", MasterURI: fakeMaster(t, slave.URL+"/"),
		Timeout: 200 * time.Millisecond, Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Subscribe("/y", rosnode.SubscribeOptions{OnMessage: func(*rosnode.Message) {}}); err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "subscriber /y: connection to "+slave.URL+"/ closed: tcpros: reading header")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		k := accepted
		mu.Unlock()
		if k >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not tried again")
		}
	}
}
