package foxglove

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// BenchmarkFanOut publishes 1 KiB messages on one channel to 4 clients
// that subscribed to it and read everything; it reports the messages
// every client received per second.
func BenchmarkFanOut(b *testing.B) {
	const clients, size = 4, 1024
	srv := NewServer(Options{Name: "bench", QueueMessages: 1 << 20, QueueBytes: 1 << 30})
	srv.Advertise(Channel{ID: 1, Topic: "/x", Encoding: "ros1", SchemaName: "std_msgs/String", Schema: "string data\n", SchemaEncoding: "ros1msg"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, ln)
	counts := make(chan int, clients)
	for range clients {
		conn, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String(), &websocket.DialOptions{Subprotocols: []string{SubprotocolWebSocket}})
		if err != nil {
			b.Fatal(err)
		}
		defer conn.CloseNow()
		if err := conn.Write(ctx, websocket.MessageText, []byte(`{"op":"subscribe","subscriptions":[{"id":1,"channelId":1}]}`)); err != nil {
			b.Fatal(err)
		}
		go func() {
			n := 0
			for {
				typ, _, err := conn.Read(ctx)
				if err != nil {
					counts <- n
					return
				}
				if typ == websocket.MessageBinary {
					n++
				}
			}
		}()
	}
	for srv.subscriptions(1) < clients {
		time.Sleep(time.Millisecond)
	}
	data := make([]byte, size)
	b.SetBytes(size * clients)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		srv.Publish(1, int64(i), data, false, 0)
	}
	// Wait until every queue is empty.
	for srv.queued() > 0 {
		time.Sleep(time.Millisecond)
	}
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "msgs/s/client")
	cancel()
	for range clients {
		<-counts
	}
}

// subscriptions is the number of subscriptions of a channel.
func (s *Server) subscriptions(ch uint32) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.subs[ch])
}

// queued is the number of frames waiting in every client's queue.
func (s *Server) queued() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for c := range s.clients {
		c.q.mu.Lock()
		n += len(c.q.frames)
		c.q.mu.Unlock()
	}
	return n
}
