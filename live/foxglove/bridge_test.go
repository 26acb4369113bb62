package foxglove

import (
	"context"
	"testing"
	"time"

	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
)

// The bridge's budget holds a message's bytes, not copied, until every
// client queue it went to sent or dropped it and, for a latched message,
// which the server keeps, until the next latched message of the same
// publisher replaces it.
func TestBridgeBudgetHoldsQueuedAndLatched(t *testing.T) {
	b := NewBridge(nil, BridgeOptions{Buffer: 100})
	b.srv = NewServer(Options{Name: "test"})
	c := &bchan{ch: Channel{ID: 1, Topic: "/x"}, md5: "m", slots: map[string]int{}}
	b.srv.Advertise(c.ch)
	cl := &Client{s: b.srv, q: newQueue(b.srv.o), subs: map[uint32]uint32{}, byChannel: map[uint32]uint32{}}
	for _, s := range []struct {
		caller, latching string
		n                int   // bytes sent by caller, 0: the client subscribes
		sent             int   // messages the client sends then
		used             int64 // bytes reserved after it
	}{
		{"/a", "0", 90, 0, 0},  // nobody takes it: given back
		{"/a", "1", 30, 0, 30}, // kept by the server
		{"/a", "1", 20, 0, 20}, // replaces /a's
		{"/b", "1", 50, 0, 70}, // /b's own slot
		{"/c", "0", 30, 0, 70},
		{"", "", 0, 0, 70},     // the client gets the latched ones, already held
		{"/a", "1", 10, 0, 80}, // /a's 20 bytes stay queued
		{"/c", "0", 15, 0, 95}, // queued
		{"/c", "0", 6, 0, 95},  // no room: dropped as it arrives
		{"", "", 0, 2, 75},     // /b's 50 and /a's 20 sent: /b's still latched
		{"", "", 0, 2, 60},     // /a's 10 and /c's 15 sent
	} {
		switch {
		case s.n == 0 && s.sent == 0:
			cl.subscribe([]Subscription{{ID: 7, ChannelID: 1}})
		case s.n == 0:
			for range s.sent {
				f, ok := cl.q.next(context.Background())
				if !ok {
					t.Fatal("queue closed")
				}
				f.p.drop()
			}
		case b.budget.Reserve(s.n): // as the subscriber does while reading
			b.forward(c, &rosnode.Message{Conn: &rosnode.Connection{Header: tcpros.Header{
				{Key: "callerid", Value: s.caller}, {Key: "latching", Value: s.latching}, {Key: "md5sum", Value: "m"}}},
				Data: make([]byte, s.n), Size: s.n, Received: time.Now()})
		}
		if got := b.budget.used.Load(); got != s.used {
			t.Fatalf("after %d bytes from %q (latching %q), %d sent: %d bytes reserved, want %d", s.n, s.caller, s.latching, s.sent, got, s.used)
		}
	}
	// A queue closed with a message in it gives it back.
	if !b.budget.Reserve(5) {
		t.Fatal("no room for 5 bytes")
	}
	b.forward(c, &rosnode.Message{Conn: &rosnode.Connection{Header: tcpros.Header{{Key: "md5sum", Value: "m"}}},
		Data: make([]byte, 5), Received: time.Now()})
	if got := b.budget.used.Load(); got != 65 {
		t.Fatalf("%d bytes reserved with 5 queued, want 65", got)
	}
	cl.q.close()
	if got := b.budget.used.Load(); got != 60 {
		t.Fatalf("%d bytes reserved after the queue closed, want 60 (the latched ones)", got)
	}
}
