package foxglove

import (
	"context"
	"encoding/binary"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/coder/websocket"
)

// writeBlobs writes n messages of size bytes on /blob, every step ms.
func writeBlobs(t testing.TB, n, size int, step int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blobs.bag")
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/blob", MessageEncoding: "ros1", Schema: stringDef,
		Metadata: map[string]string{"callerid": "/talker"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ns := t0 + int64(i)*step*1e6
		data := ros1String(strings.Repeat("x", size-4))
		binary.LittleEndian.PutUint32(data[4:], uint32(i))
		if err := w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSlowClient: a client that reads nothing loses messages — counted and
// told in a status message once it reads again — while another client gets
// every message on time.
func TestSlowClient(t *testing.T) {
	const n, size = 80, 256 << 10 // 20 MiB over 1.6 s
	path := writeBlobs(t, n, size, 20)
	url, _ := startServer(t, []string{path}, PlaybackOptions{Paused: true}, Options{QueueBytes: 4 << 20})
	ctx := context.Background()
	slow, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{SubprotocolSDK}})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	slow.SetReadLimit(64 << 20)
	// The slow client subscribes (channel 1), then reads nothing.
	if err := slow.Write(ctx, websocket.MessageText, []byte(`{"op":"subscribe","subscriptions":[{"id":1,"channelId":1}]}`)); err != nil {
		t.Fatal(err)
	}
	fast := dial(t, url, SubprotocolWebSocket)
	fast.handshake()
	fast.subscribe("/blob", 3)
	time.Sleep(100 * time.Millisecond)
	ctl := dial(t, url, SubprotocolSDK)
	ctl.handshake()
	start := time.Now()
	ctl.control(CommandPlay, 1, -1, "go")
	var got int
	for got < n {
		e := fast.next(5 * time.Second)
		if e.op == OpMessageData {
			if i := binary.LittleEndian.Uint32(e.data[4:]); int(i) != got {
				t.Fatalf("fast client: message %d, want %d", i, got)
			}
			got++
		}
		if e.op == OpPlaybackState {
			t.Fatalf("a foxglove.websocket.v1 client got a PlaybackState: %+v", e.state)
		}
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("the fast client took %v for 1.6 s of recording", el)
	}
	// Now the slow client reads: fewer messages, and a status saying so.
	var msgs int
	var status string
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for status == "" {
		typ, b, err := slow.Read(rctx)
		if err != nil {
			t.Fatalf("slow client: %v after %d messages", err, msgs)
		}
		if typ == websocket.MessageBinary && b[0] == byte(OpMessageData) {
			msgs++
		}
		if typ == websocket.MessageText && strings.Contains(string(b), `"op":"status"`) && strings.Contains(string(b), "dropped") {
			status = string(b)
		}
	}
	t.Logf("slow client: %d messages before %s", msgs, status)
	if msgs >= n {
		t.Errorf("slow client got all %d messages", msgs)
	}
}

// TestSubprotocol: a request without a Foxglove subprotocol gets 400; the
// SDK's is preferred when both are offered.
func TestSubprotocol(t *testing.T) {
	path := writeRecording(t, "in.bag", ticks(100, 200))
	url, _ := startServer(t, []string{path}, PlaybackOptions{Paused: true}, Options{})
	_, resp, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{Subprotocols: []string{"chat"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("subprotocol chat: %v, %v", resp, err)
	}
	conn, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{Subprotocols: []string{SubprotocolWebSocket, SubprotocolSDK}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if conn.Subprotocol() != SubprotocolSDK {
		t.Errorf("negotiated %q", conn.Subprotocol())
	}
}

// TestAutoplayMerged: without Paused, playback starts with the first
// subscription; two files play as one timeline, merged in log time order;
// a bad subscription gets an error status; the end comes as Ended.
func TestAutoplayMerged(t *testing.T) {
	a := writeRecording(t, "a.bag", []msg{{"/x", 0, "a0"}, {"/x", 200, "a2"}})
	b := writeRecording(t, "b.bag", []msg{{"/x", 100, "b1"}, {"/x", 300, "b3"}})
	url, _ := startServer(t, []string{a, b}, PlaybackOptions{}, Options{})
	c := dial(t, url, SubprotocolSDK)
	c.handshake()
	if len(c.chans) != 1 {
		t.Errorf("channels %v, want one for /x", c.chans)
	}
	c.sendJSON(map[string]any{"op": "subscribe", "subscriptions": []map[string]any{{"id": 1, "channelId": 99}}})
	c.subscribe("/x", 1)
	var texts, statuses []string
	got := c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.Status == Ended })
	for _, e := range got {
		if e.op == OpMessageData {
			texts = append(texts, string(e.data[4:]))
		}
		if e.json["op"] == "status" {
			statuses = append(statuses, e.json["message"].(string))
		}
	}
	if strings.Join(texts, " ") != "a0 b1 a2 b3" {
		t.Errorf("merged: %q", texts)
	}
	if len(statuses) != 1 || !strings.Contains(statuses[0], "no channel 99") {
		t.Errorf("statuses %q", statuses)
	}
}

// TestHostileClient: a message over the size bound closes that client's
// connection (1009, message too big) and nothing else; garbage is answered
// with an error status and the client stays; a client that sends requests
// but never reads the answers is disconnected once its control backlog
// is full, and the server serves the next client as before.
func TestHostileClient(t *testing.T) {
	path := writeRecording(t, "in.bag", ticks(100, 200))
	url, srv := startServer(t, []string{path}, PlaybackOptions{Paused: true}, Options{MaxClientMessage: 1 << 10, ControlBacklog: 16})
	ctx := context.Background()

	big := dial(t, url, SubprotocolSDK)
	big.handshake()
	big.conn.Write(ctx, websocket.MessageText, []byte(`{"op":"subscribe","subscriptions":[],"pad":"`+strings.Repeat("x", 2<<10)+`"}`))
	for e := range big.events {
		_ = e // drained until the server closes the connection
	}

	junk := dial(t, url, SubprotocolSDK)
	junk.handshake()
	for _, m := range []string{`{`, `[]`, `{"op":7}`, `{"op":"subscribe","subscriptions":[{"id":-1}]}`} {
		junk.conn.Write(ctx, websocket.MessageText, []byte(m))
	}
	junk.conn.Write(ctx, websocket.MessageBinary, []byte{0x09, 1, 2})
	got := junk.until(5*time.Second, func(e event) bool {
		return e.json["op"] == "status" && strings.Contains(e.json["message"].(string), "opcode")
	})
	var errs int
	for _, e := range got {
		if e.json["op"] == "status" && e.json["level"] == float64(LevelError) {
			errs++
		}
	}
	if errs != 5 {
		t.Errorf("%d error statuses for 5 bad messages", errs)
	}

	// A client that writes and never reads.
	deaf, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{SubprotocolSDK}})
	if err != nil {
		t.Fatal(err)
	}
	defer deaf.CloseNow()
	for srv.Clients() < 2 { // junk and deaf
		time.Sleep(time.Millisecond)
	}
	var sent int
	for deadline := time.Now().Add(30 * time.Second); srv.Clients() == 2; sent++ {
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		deaf.Write(wctx, websocket.MessageText, []byte(`{"op":"getParameters","parameterNames":[]}`))
		cancel()
		if time.Now().After(deadline) {
			t.Fatal("a client that reads nothing is still connected")
		}
	}
	t.Logf("the deaf client was disconnected after %d requests", sent)
	ok := dial(t, url, SubprotocolSDK)
	ok.handshake()
	if ok.info["name"] != "test" {
		t.Errorf("serverInfo after the hostile clients: %v", ok.info)
	}
}
