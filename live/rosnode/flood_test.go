package rosnode_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
	"github.com/baglab/baglab/live/xmlrpc"
)

// dialFrom opens k connections to addr from the loopback address ip, each
// sending hello (if any) first; it fails t if the kernel refuses one.
func dialFrom(t *testing.T, ip, addr string, k int, hello func(c net.Conn)) []net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	conns := make([]net.Conn, 0, k)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range k {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %s from %s: %v", addr, ip, err)
		}
		if hello != nil {
			hello(c)
		}
		conns = append(conns, c)
	}
	return conns
}

// stillOpen counts the connections the node has not closed: a read from
// them times out or returns data, from a closed one it fails at once.
func stillOpen(conns []net.Conn) int {
	open := 0
	buf := make([]byte, 1)
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := c.Read(buf)
		var ne net.Error
		if err == nil || errors.As(err, &ne) && ne.Timeout() {
			open++
		}
	}
	return open
}

// waitOpen waits until the node has closed all but want of conns (it may
// still be accepting them on a loaded machine) and fails t if it does not
// within 15 s.
func waitOpen(t *testing.T, what string, conns []net.Conn, want int) {
	t.Helper()
	got := stillOpen(conns)
	for deadline := time.Now().Add(15 * time.Second); got != want && time.Now().Before(deadline); got = stillOpen(conns) {
		time.Sleep(200 * time.Millisecond)
	}
	if got != want {
		t.Errorf("%s left open: %d of %d, want %d", what, got, len(conns), want)
	}
}

func subscriberHeader(caller string) func(c net.Conn) {
	return func(c net.Conn) {
		tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: caller}, {Key: "topic", Value: "/x"}, {Key: "md5sum", Value: "*"}, {Key: "type", Value: "*"}})
	}
}

// A fake peer opening 300 silent TCPROS connections, 300 subscriptions
// under one callerid that never read, and 300 silent XML-RPC connections
// holds 256, 8 and 128 of them open; the others are closed at once with
// rate-limited log lines. The node's goroutines and heap stay bounded,
// and real peers on another address — a rostopic echo subscribed before
// the flood and one started during it, and a getPid call — are served.
func TestConnectionFlood(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	var l logs
	node, err := rosnode.New(context.Background(), rosnode.Options{Name: "/flooded", MasterURI: m.URI, Host: "127.0.0.1",
		Timeout: 60 * time.Second, Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	pub, err := node.Advertise("/x", rosnode.TopicInfo{Type: "std_msgs/String", MD5: stringMD5, Definition: stringDef})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				pub.Publish(stringMsg(fmt.Sprint("tick ", k)))
			}
		}
	}()
	echo := m.Start(t, "echo", rostest.Python, "/usr/bin/rostopic", "echo", "/x")
	ticks := func() int { return strings.Count(m.Log("echo"), "data: \"tick") }
	waitTicks := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ticks() < n; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("rostopic echo got %d ticks, want %d\n%s", ticks(), n, m.Log("echo"))
			}
		}
	}
	waitTicks(1)
	_ = echo

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	baseG, baseHeap := runtime.NumGoroutine(), ms.HeapInuse

	u, err := url.Parse(node.URI())
	if err != nil {
		t.Fatal(err)
	}
	tcp := tcprosPort(t, node, "/x")
	silent := dialFrom(t, "127.0.0.2", tcp, 300, nil)
	subs := dialFrom(t, "127.0.0.3", tcp, 300, subscriberHeader("/flood"))
	slave := dialFrom(t, "127.0.0.2", u.Host, 300, nil)
	waitOpen(t, "silent TCPROS connections", silent, 256)
	waitOpen(t, "subscriptions of /flood", subs, 8)
	waitOpen(t, "silent XML-RPC connections", slave, 128)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	g, heap := runtime.NumGoroutine(), ms.HeapInuse
	// 256 handshakes, 8 subscribers (writer and reader), 128 HTTP
	// connections, and slack for the runtime and the test.
	if g-baseG > 256+2*8+128+40 {
		t.Errorf("goroutines %d -> %d under the flood", baseG, g)
	}
	if heap > baseHeap+16<<20 {
		t.Errorf("heap in use %d -> %d MiB under the flood", baseHeap>>20, heap>>20)
	}
	t.Logf("flood of 900 connections: goroutines %d -> %d, heap in use %.1f -> %.1f MiB", baseG, g,
		float64(baseHeap)/(1<<20), float64(heap)/(1<<20))
	l.waitFor(t, "refused: 256 connections open from it (limit 256) before their header")
	l.waitFor(t, "refused: /flood to /x: 8 connections open from it (limit 8)")
	l.waitFor(t, "slave API: connection from 127.0.0.2")
	l.mu.Lock()
	refused := 0
	for _, s := range l.lines {
		if strings.Contains(s, "refused") {
			refused++
		}
	}
	l.mu.Unlock()
	if refused > 20 {
		t.Errorf("%d log lines about refused connections, want at most 5 per kind", refused)
	}

	// Real peers are served during the flood.
	before := ticks()
	waitTicks(before + 5)
	var c xmlrpc.Client
	if v, err := c.Call(context.Background(), node.URI(), "getPid", "/peer"); err != nil || v.([]any)[2] != os.Getpid() {
		t.Fatalf("getPid during the flood: %v, %v", v, err)
	}
	if out, err := m.Output(t, 60*time.Second, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "2", "/x"); err != nil || !strings.Contains(out, "tick") {
		t.Fatalf("rostopic echo started during the flood: %v\n%s", err, out)
	}
}

// No more than Options.MaxConns TCPROS connections are open at once, even
// from callers that each stay within their own bound.
func TestMaxConns(t *testing.T) {
	var l logs
	n, err := rosnode.New(context.Background(), rosnode.Options{Name: "/pub", MasterURI: fakeMaster(t), MaxConns: 20, Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Advertise("/x", rosnode.TopicInfo{Type: "std_msgs/String", MD5: stringMD5, Definition: stringDef}); err != nil {
		t.Fatal(err)
	}
	addr := tcprosPort(t, n, "/x")
	served := 0
	for i := range 40 {
		conns := dialFrom(t, "127.0.0.1", addr, 1, subscriberHeader(fmt.Sprint("/caller", i)))
		conns[0].SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := tcpros.ReadHeader(conns[0]); err == nil {
			served++
		}
	}
	if served != 20 {
		t.Fatalf("%d of 40 subscribers served, want MaxConns = 20", served)
	}
	l.waitFor(t, "refused: 20 connections open (limit 20)")
}
