package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/internal/testkit/testenv"
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

// serveCount serves with args (serve's flags and inputs, at speed 100 on
// a free port), subscribes to every channel and counts the messages that
// arrive until want have, or 20 s pass; then it stops the server as
// Ctrl-C does and checks that it ends without error.
func serveCount(t *testing.T, want int, args ...string) int {
	t.Helper()
	stderr := &lockedBuffer{}
	g := &globalOptions{stdout: &bytes.Buffer{}, stderr: stderr}
	cmd := newServeCmd(g)
	cmd.SetArgs(append([]string{"--port", "0", "--speed", "100"}, args...))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	addr := regexp.MustCompile(`on ws://(\S+)`)
	var url string
	for deadline := time.Now().Add(20 * time.Second); url == ""; time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			url = "ws://" + m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve %v: %v\n%s", args, err, stderr.String())
		default:
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
	conn.SetReadLimit(64 << 20)
	rctx, rcancel := context.WithTimeout(ctx, 20*time.Second)
	defer rcancel()
	var got int
	var nextSub uint32 // subscription ids are the client's, unique across advertisements
	for got < want {
		typ, b, err := conn.Read(rctx)
		if err != nil {
			t.Errorf("after %d of %d messages: %v\n%s", got, want, err, stderr.String())
			break
		}
		if typ == websocket.MessageText {
			var m struct {
				Op       string
				Channels []struct{ ID uint32 }
			}
			json.Unmarshal(b, &m)
			if m.Op == "advertise" {
				var subs []map[string]uint32
				for _, ch := range m.Channels {
					subs = append(subs, map[string]uint32{"id": nextSub, "channelId": ch.ID})
					nextSub++
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
		t.Errorf("serve %v: %v", args, err)
	}
	return got
}

// TestServeInputs: baglab serve on inputs the Foxglove app cannot open
// itself — a bag rosbag record left unindexed when killed (.bag.active),
// a rosbag2 folder whose splits are zstd-compressed files, damaged bags
// and MCAP files read with --skip-bad, a folder of recordings — gives a
// subscribed client as many messages as cat prints from them.
func TestServeInputs(t *testing.T) {
	killed := filepath.Join("..", "..", "recording", "bag", "testdata", "rosbag-record-killed.bag.active")
	cases := []struct {
		name string
		args []string
	}{
		{"unindexed", []string{killed}},
		{"skip-bad truncated bag", []string{"--skip-bad", studyFile("broken/study-truncated.bag")}},
		{"skip-bad crc mcap", []string{"--skip-bad", studyFile("broken/study-crc.mcap")}},
		{"topics of a folder of recordings", []string{"--topics", "/rail_pick_and_place/**", filepath.Join("..", "..", "testdata", "sample")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"cat"}, c.args...)...)
			want := strings.Count(out, "\n")
			if code != 0 || want == 0 {
				t.Fatalf("cat %v: exit %d, %d messages\n%s", c.args, code, want, stderr)
			}
			if got := serveCount(t, want, c.args...); got != want {
				t.Errorf("serve %v: %d messages, cat prints %d", c.args, got, want)
			}
		})
	}
	t.Run("zstd rosbag2 folder", func(t *testing.T) {
		testenv.RequirePeer(t, "sqlite3", "zstd")
		_, z := fileCompressedRosbag2(t)
		if got := serveCount(t, 202, z); got != 202 {
			t.Errorf("serve %s: %d messages, the folder holds 202", z, got)
		}
	})
}

// TestServeUsage: --ros takes no recording, a recording needs no --ros,
// --client-publish and --buffsize apply with --ros (a positive one),
// standard input cannot be read again at a seek: each a usage error
// (exit 2).
func TestServeUsage(t *testing.T) {
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--ros", "x.bag"},
		{"serve", "--client-publish", "x.bag"},
		{"serve", "--buffsize", "64", "x.bag"},
		{"serve", "--ros", "--buffsize", "0"},
		{"serve", "--port", "70000", "x.bag"},
		{"serve", "-"},
	} {
		var stderr bytes.Buffer
		if code := Main(args, nil, &bytes.Buffer{}, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr.String())
		}
	}
}

// TestServeROS: serve --ros bridges Debian's roscore: the messages
// rostopic pub publishes reach a client.
func TestServeROS(t *testing.T) {
	rostest.Require(t, "rostopic", "ros-msgs")
	m := rostest.StartMaster(t)
	m.Setenv(t)
	m.Start(t, "chatter", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/chatter", "std_msgs/String", "data: hello")
	if got := serveCount(t, 5, "--ros"); got != 5 {
		t.Errorf("got %d messages", got)
	}
}
