package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/baglab/baglab/recording"
	"github.com/coder/websocket"
)

// lockedBuffer is a bytes.Buffer written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeUnindexed: baglab serve on a bag rosbag record left unindexed
// when it was killed (.bag.active, which the Foxglove app cannot open):
// every message it holds reaches a subscribed client, and Ctrl-C (the
// context ending) stops the server with exit 0.
func TestServeUnindexed(t *testing.T) {
	path := filepath.Join("..", "..", "recording", "bag", "testdata", "rosbag-record-killed.bag.active")
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := int(in.Summary().MessageCount)
	in.Close()
	stderr := &lockedBuffer{}
	g := &globalOptions{stdout: &bytes.Buffer{}, stderr: stderr}
	o := &serveOptions{g: g, port: 0, address: "127.0.0.1", speed: 100}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, o, []string{path}) }()
	addr := regexp.MustCompile(`on ws://(\S+)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			url = "ws://" + m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address on stderr: %s", stderr.String())
		}
	}
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"foxglove.sdk.v1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	rctx, rcancel := context.WithTimeout(ctx, 20*time.Second)
	defer rcancel()
	var got int
	for got < want {
		typ, b, err := conn.Read(rctx)
		if err != nil {
			t.Fatalf("after %d of %d messages: %v\n%s", got, want, err, stderr.String())
		}
		if typ == websocket.MessageText {
			var m struct {
				Op       string
				Channels []struct{ ID uint32 }
			}
			json.Unmarshal(b, &m)
			if m.Op == "advertise" {
				var subs []map[string]uint32
				for i, ch := range m.Channels {
					subs = append(subs, map[string]uint32{"id": uint32(i), "channelId": ch.ID})
				}
				req, _ := json.Marshal(map[string]any{"op": "subscribe", "subscriptions": subs})
				if err := conn.Write(rctx, websocket.MessageText, req); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if b[0] == 1 {
			got++
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if got != want || want == 0 {
		t.Errorf("got %d messages, the recording holds %d", got, want)
	}
}

// TestServeUsage: --ros takes no recording, a recording needs no --ros,
// --client-publish applies with --ros: each a usage error (exit 2).
func TestServeUsage(t *testing.T) {
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--ros", "x.bag"},
		{"serve", "--client-publish", "x.bag"},
		{"serve", "--port", "70000", "x.bag"},
	} {
		var stderr bytes.Buffer
		if code := Main(args, nil, &bytes.Buffer{}, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr.String())
		}
	}
}
