package rosnode

import (
	"net"
	"testing"
	"time"
)

// connLimit refuses past its per-key and total bounds and takes back what
// is released.
func TestConnLimit(t *testing.T) {
	l := connLimit{perKey: 2, total: 3}
	for _, c := range []struct {
		key string
		ok  bool
	}{{"a", true}, {"a", true}, {"a", false}, {"b", true}, {"c", false}} {
		if err := l.acquire(c.key); (err == nil) != c.ok {
			t.Fatalf("acquire(%q): %v, want ok %v", c.key, err, c.ok)
		}
	}
	l.release("a")
	if err := l.acquire("c"); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if l.n != 3 || l.keys["a"] != 1 || l.keys["b"] != 1 || l.keys["c"] != 1 {
		t.Fatalf("counts %d %v", l.n, l.keys)
	}
	for _, k := range []string{"a", "b", "c"} {
		l.release(k)
	}
	if l.n != 0 || len(l.keys) != 0 {
		t.Fatalf("all released: %d %v", l.n, l.keys)
	}
}

// A limitListener closes connections past its bounds at once and frees a
// slot when a connection it handed out is closed (twice is once).
func TestLimitListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 10)
	ll := &limitListener{Listener: ln, lim: &connLimit{perKey: 1}, refused: func(_ net.Conn, err error) { refused <- err }}
	defer ll.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ll.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	first := <-accepted
	second := dial()
	select {
	case err := <-refused:
		t.Logf("second connection refused: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("second connection from the host not refused")
	}
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := second.Read(make([]byte, 1)); err == nil {
		t.Fatal("refused connection not closed")
	}
	first.Close()
	first.Close()
	dial()
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("no slot after the first connection closed")
	}
	if ll.lim.n != 1 {
		t.Fatalf("%d slots taken, want 1", ll.lim.n)
	}
}
