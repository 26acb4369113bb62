package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/coder/websocket"
)

// listeningPorts are the TCP ports process pid listens on, from the
// sockets among its file descriptors.
func listeningPorts(t *testing.T, pid int) []int {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if ino, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		t.Fatal(err)
	}
	var ports []int
	for _, l := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(l)
		if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
			continue
		}
		_, hexPort, _ := strings.Cut(f[1], ":")
		p, _ := strconv.ParseInt(hexPort, 16, 32)
		ports = append(ports, int(p))
	}
	return ports
}

// flood opens k connections to addr from the loopback address ip and
// leaves them silent until the test ends.
func flood(t *testing.T, ip, addr string, k int) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	for range k {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %s from %s: %v", addr, ip, err)
		}
		t.Cleanup(func() { c.Close() })
	}
}

// wsTopics reads a Foxglove WebSocket client's messages, subscribing to
// every channel advertised, and counts the messages per topic (and their
// largest size) until ctx ends.
type wsTopics struct {
	mu    sync.Mutex
	count map[string]int
	last  map[string]string
	max   int
}

func (w *wsTopics) run(ctx context.Context, t *testing.T, conn *websocket.Conn) {
	topics := map[uint32]string{} // subscription id -> topic
	next := uint32(0)
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageText {
			var m struct {
				Op       string
				Channels []struct {
					ID    uint32
					Topic string
				}
			}
			json.Unmarshal(b, &m)
			if m.Op != "advertise" {
				continue
			}
			var subs []map[string]uint32
			for _, ch := range m.Channels {
				topics[next] = ch.Topic
				subs = append(subs, map[string]uint32{"id": next, "channelId": ch.ID})
				next++
			}
			req, _ := json.Marshal(map[string]any{"op": "subscribe", "subscriptions": subs})
			if err := conn.Write(ctx, websocket.MessageText, req); err != nil {
				return
			}
			continue
		}
		if len(b) < 13 || b[0] != 1 {
			continue
		}
		topic := topics[binary.LittleEndian.Uint32(b[1:])]
		w.mu.Lock()
		w.count[topic]++
		w.last[topic] = string(b[min(len(b), 17):min(len(b), 200)])
		w.max = max(w.max, len(b))
		w.mu.Unlock()
	}
}

func (w *wsTopics) get(topic string) (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count[topic], w.last[topic]
}

// baglab serve --ros --buffsize 64, as a process of its own, with a
// Foxglove client subscribed to every topic, against hostile peers: a
// publisher sending a 300 MB message (dropped as it arrives, never held;
// its small messages after it are forwarded), three publishers of 50 MB
// messages at once, 300 silent TCPROS and 300 silent XML-RPC connections
// and six 60 MB XML-RPC bodies. The real publisher (rostopic pub) keeps
// reaching the client, and serve's peak RSS stays under 64 MB + 150 MB.
func TestServeROSHostilePeers(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Start(t, "real", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/real", "std_msgs/String", "data: real")
	ctx := context.Background()
	const big = 300 << 20
	evil := newEvilPublisher(t, "/evil", hugeFrame(big))
	if _, err := rosnode.NewMaster(m.URI, "/evil").RegisterPublisher(ctx, "/evil", "std_msgs/String", evil.uri); err != nil {
		t.Fatal(err)
	}
	many := registerMany(t, ctx, m.URI)

	srv := startBaglab(t, m, "serve", "serve", "--ros", "--port", "0", "--buffsize", "64")
	re := regexp.MustCompile(`as (/baglab_serve_\d+) on ws://(\S+)`)
	var name, wsAddr string
	for deadline := time.Now().Add(60 * time.Second); name == ""; time.Sleep(50 * time.Millisecond) {
		if f := re.FindStringSubmatch(m.Log("serve")); f != nil {
			name, wsAddr = f[1], f[2]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not up\n%s", m.Log("serve"))
		}
	}
	conn, _, err := websocket.Dial(ctx, "ws://"+wsAddr, &websocket.DialOptions{Subprotocols: []string{"foxglove.sdk.v1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 30)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &wsTopics{count: map[string]int{}, last: map[string]string{}}
	go w.run(rctx, t, conn)
	evil.sent.Wait()
	for _, e := range many {
		e.sent.Wait()
	}

	// Connection floods on serve's node.
	slaveURI, err := rosnode.NewMaster(m.URI, "/probe").LookupNode(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(slaveURI)
	slavePort, _ := strconv.Atoi(u.Port())
	_, wsPort, _ := net.SplitHostPort(wsAddr)
	var tcprosPort int
	for _, p := range listeningPorts(t, srv.Cmd.Process.Pid) {
		if p != slavePort && strconv.Itoa(p) != wsPort {
			tcprosPort = p
		}
	}
	if tcprosPort == 0 {
		t.Fatalf("no TCPROS port among %v", listeningPorts(t, srv.Cmd.Process.Pid))
	}
	flood(t, "127.0.0.2", net.JoinHostPort("127.0.0.1", strconv.Itoa(tcprosPort)), 300)
	flood(t, "127.0.0.2", u.Host, 300)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if resp, err := http.Post(slaveURI, "text/xml", io60MB()); err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()

	before, _ := w.get("/real")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		n, _ := w.get("/real")
		e, last := w.get("/evil")
		if n >= before+20 && e >= 5 {
			if !strings.Contains(last, "after 4") {
				t.Errorf("last /evil message %q, want \"after 4\"", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("client got /real %d (%d before the floods), /evil %d\n%s", n, before, e, m.Log("serve"))
		}
	}
	hwm := peakRSS(t, srv.Cmd.Process.Pid)
	if err := srv.Stop(syscall.SIGINT, 30*time.Second); err != nil {
		t.Errorf("serve: %v", err)
	}
	cancel()
	log := m.Log("serve")
	w.mu.Lock()
	largest, nmany := w.max, w.count["/many"]
	w.mu.Unlock()
	t.Logf("peak RSS %d MB; largest message to the client %d bytes, /many %d; stderr %d bytes:\n%s", hwm>>20, largest, nmany, len(log), log)
	if hwm > (64+150)<<20 {
		t.Errorf("peak RSS %d MB with --buffsize 64, want under 214 MB", hwm>>20)
	}
	if largest > 64<<20 {
		t.Errorf("a message of %d bytes reached the client past --buffsize 64", largest)
	}
	for _, want := range []string{
		"dropped a message of 314572800 bytes from /evil",
		"TCPROS connection from 127.0.0.2",
		"slave API: connection from 127.0.0.2",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
}
