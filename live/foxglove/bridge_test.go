package foxglove

import (
	"testing"
	"time"

	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
)

// The bridge's budget gets a message's bytes back once the server has its
// copy, but for a latched message, which the server keeps: its bytes stay
// reserved until the next latched message of the same publisher replaces
// it.
func TestBridgeBudgetHoldsLatched(t *testing.T) {
	b := NewBridge(nil, BridgeOptions{Buffer: 100})
	b.srv = NewServer(Options{Name: "test"})
	c := &bchan{ch: Channel{ID: 1, Topic: "/x"}, md5: "m", slots: map[string]int{}, held: map[int]int{}}
	send := func(caller, latching string, n int) {
		t.Helper()
		if !b.budget.Reserve(n) { // as the subscriber does while reading
			t.Fatalf("no room for %d bytes with %d used", n, b.budget.used.Load())
		}
		b.forward(c, &rosnode.Message{Conn: &rosnode.Connection{Header: tcpros.Header{
			{Key: "callerid", Value: caller}, {Key: "latching", Value: latching}, {Key: "md5sum", Value: "m"}}},
			Data: make([]byte, n), Size: n, Received: time.Now()})
	}
	for _, s := range []struct {
		caller, latching string
		n                int
		used             int64
	}{
		{"/a", "0", 90, 0},  // handed over and given back
		{"/a", "1", 30, 30}, // kept by the server
		{"/a", "1", 20, 20}, // replaces /a's
		{"/b", "1", 50, 70}, // /b's own slot
		{"/c", "0", 30, 70},
	} {
		send(s.caller, s.latching, s.n)
		if got := b.budget.used.Load(); got != s.used {
			t.Fatalf("after %d bytes from %s (latching %s): %d bytes reserved, want %d", s.n, s.caller, s.latching, got, s.used)
		}
	}
	if b.budget.Reserve(31) {
		t.Fatal("31 more bytes fit a 100-byte buffer holding 70 latched")
	}
}
