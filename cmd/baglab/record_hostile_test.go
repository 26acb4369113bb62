package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
	"github.com/baglab/baglab/live/xmlrpc"
)

// startBaglab runs this test binary as the baglab command (TestMain) with
// args, as a process of its own beside the master, logging to NAME.log.
func startBaglab(t *testing.T, m *rostest.Master, name string, args ...string) *rostest.Proc {
	t.Helper()
	return m.StartEnv(t, name, []string{"BAGLAB_TEST_MAIN=1"}, os.Args[0], args...)
}

// peakRSS is a process's peak resident set (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// evilPublisher is a publisher node written from the protocol: its slave
// API offers a TCPROS endpoint whose connections get a valid header and
// then whatever send writes.
type evilPublisher struct {
	uri  string
	sent sync.WaitGroup
}

// hugeFrame sends a frame that announces n bytes and has them, then five
// small std_msgs/String messages, "after 0" to "after 4".
func hugeFrame(n int) func(net.Conn) {
	return func(c net.Conn) {
		c.Write(binary.LittleEndian.AppendUint32(nil, uint32(n)))
		chunk := make([]byte, 1<<20)
		for sent := 0; sent < n; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
		for i := range 5 {
			tcpros.WriteFrame(c, stringMsg(fmt.Sprintf("after %d", i)))
		}
	}
}

// registerMany registers, with the master at masterURI, three publishers
// of /many, each sending one 50 MB message and then "small <i>".
func registerMany(t *testing.T, ctx context.Context, masterURI string) []*evilPublisher {
	t.Helper()
	var many []*evilPublisher
	for i := range 3 {
		e := newEvilPublisher(t, "/many", func(c net.Conn) {
			tcpros.WriteFrame(c, stringMsg(strings.Repeat("m", 50<<20)))
			tcpros.WriteFrame(c, stringMsg(fmt.Sprintf("small %d", i)))
		})
		if _, err := rosnode.NewMaster(masterURI, fmt.Sprintf("/many%d", i)).RegisterPublisher(ctx, "/many", "std_msgs/String", e.uri); err != nil {
			t.Fatal(err)
		}
		many = append(many, e)
	}
	return many
}

func newEvilPublisher(t *testing.T, topic string, send func(c net.Conn)) *evilPublisher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	e := &evilPublisher{}
	e.sent.Add(1)
	var once sync.Once
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				if _, err := tcpros.ReadHeader(c); err != nil {
					return
				}
				tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: "/evil"}, {Key: "latching", Value: "0"},
					{Key: "md5sum", Value: "992ce8a1687cec8c8bd883ec73ca41d1"}, {Key: "message_definition", Value: "string data\n"},
					{Key: "topic", Value: topic}, {Key: "type", Value: "std_msgs/String"}})
				send(c)
				once.Do(e.sent.Done)
			}()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	slave := httptest.NewServer(&xmlrpc.Server{Handle: func(method string, params []any) (any, error) {
		switch method {
		case "requestTopic":
			return []any{1, "", []any{"TCPROS", "127.0.0.1", port}}, nil
		case "getPid":
			return []any{1, "", 1}, nil
		}
		return []any{1, "", 0}, nil
	}})
	t.Cleanup(slave.Close)
	e.uri = slave.URL + "/"
	return e
}

// stringMsg is a serialized std_msgs/String.
func stringMsg(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// baglab record --buffsize 64 against hostile peers, as a process of its
// own: a publisher sending a 300 MB message (over the buffer: dropped as it
// arrives, never held), then small messages on the same connection (kept);
// six 60 MB XML-RPC bodies at once (refused past 1 MiB); a publisherUpdate
// removing a publisher (logged with its caller); three publishers of 50 MB
// messages at once (kept while the buffer has room, else dropped as they
// arrive); a flood of malformed
// requests (logged at most 5 times per 10 s, then counted). Meanwhile the
// real publisher (rostopic pub) keeps being recorded, and the recorder's
// peak RSS stays under 64 MB + 150 MB (831 MB before, for the frame alone).
func TestRecordHostilePeers(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Start(t, "real", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/real", "std_msgs/String", "data: real")
	out := filepath.Join(t.TempDir(), "hostile.bag")
	rec := startBaglab(t, m, "rec", "record", "-O", out, "--buffsize", "64", "/real", "/evil", "/many", "__name:=/rec_hostile")
	mc := rosnode.NewMaster(m.URI, "/evil")
	ctx := context.Background()
	var recURI string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if uri, err := mc.LookupNode(ctx, "/rec_hostile"); err == nil && strings.Contains(m.Log("rec"), "/real: connected to") {
			recURI = uri
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("recorder not up\n%s", m.Log("rec"))
		}
	}

	const big = 300 << 20
	evil := newEvilPublisher(t, "/evil", hugeFrame(big))
	if _, err := mc.RegisterPublisher(ctx, "/evil", "std_msgs/String", evil.uri); err != nil {
		t.Fatal(err)
	}
	evil.sent.Wait()
	// Three publishers of 50 MB messages at once, each under the buffer
	// but not all three within it: those the buffer has no room for are
	// dropped as they arrive.
	many := registerMany(t, ctx, m.URI)
	for _, e := range many {
		e.sent.Wait()
	}

	// Six 60 MB bodies at once.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			body := io60MB()
			resp, err := http.Post(recURI, "text/xml", body)
			if err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	// A flood of malformed requests.
	for range 500 {
		if resp, err := http.Post(recURI, "text/xml", strings.NewReader("<garbage")); err == nil {
			resp.Body.Close()
		}
	}
	var c xmlrpc.Client
	if _, err := c.Call(ctx, recURI, "publisherUpdate", "/intruder", "/evil", []any{}); err != nil {
		t.Fatal(err)
	}
	// /real goes on being recorded; the suppressed lines are counted when
	// their 10 s window ends.
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(m.Log("rec"), "more like this") && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	hwm := peakRSS(t, rec.Cmd.Process.Pid)
	if err := rec.Stop(syscall.SIGINT, 30*time.Second); err != nil {
		t.Logf("record exited: %v", err) // exit 1: it dropped a message
	}
	log := m.Log("rec")
	t.Logf("peak RSS %d MB; stderr %d bytes:\n%s", hwm>>20, len(log), log)
	if hwm > (64+150)<<20 {
		t.Errorf("peak RSS %d MB with --buffsize 64, want under 214 MB", hwm>>20)
	}
	for _, want := range []string{
		"dropped a message of 314572800 bytes from /evil",
		"length over limit: 314572800 bytes, limit 67108864",
		"publisherUpdate from /intruder removed publishers [" + evil.uri + "]",
		"slave API: bad request",
		"more like this in the last 10s",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if n := strings.Count(log, "slave API: bad request"); n > 20 {
		t.Errorf("%d bad-request lines: not rate-limited", n)
	}
	got := readTopics(t, out)
	evilMsgs, real := got["/evil"], got["/real"]
	if len(evilMsgs) != 5 || string(evilMsgs[0].Data[4:]) != "after 0" {
		t.Errorf("/evil: %d messages, want the 5 after the dropped one", len(evilMsgs))
	}
	// Of the three 50 MB messages, those kept and those dropped add up,
	// and the small ones after them are all kept.
	var large, small int
	for _, m := range got["/many"] {
		if len(m.Data) > 1<<20 {
			large++
		} else {
			small++
		}
	}
	if large == 3 || small != 3 {
		t.Errorf("/many: %d large and %d small messages kept, want fewer than 3 and 3", large, small)
	}
	if len(real) < 40 {
		t.Fatalf("/real: %d messages", len(real))
	}
	// /real was recorded after the large message, not only before.
	if len(evilMsgs) > 0 && real[len(real)-1].LogTime < evilMsgs[0].LogTime+2e9 {
		t.Errorf("/real not recorded after the hostile peers")
	}
}

// io60MB is an XML-RPC call whose body is 60 MB.
func io60MB() *bytes.Reader {
	var b bytes.Buffer
	b.WriteString("<methodCall><methodName>getPid</methodName><params><param><value><string>")
	b.Write(bytes.Repeat([]byte("x"), 60<<20))
	b.WriteString("</string></value></param></params></methodCall>")
	return bytes.NewReader(b.Bytes())
}

// baglab record left running while roscore restarts on the same port
// registers again and records a publisher started after the restart
// (rosbag record records nothing of it).
func TestRecordMasterRestart(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	out := filepath.Join(t.TempDir(), "restart.bag")
	rec := startBaglab(t, m, "rec", "record", "-O", out, "/before", "/after", "__name:=/rec_restart")
	before := m.Start(t, "before", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "10", "/before", "std_msgs/String", "data: before")
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(m.Log("rec"), "/before: connected to"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("recorder not connected\n%s", m.Log("rec"))
		}
	}
	time.Sleep(time.Second)
	before.Stop(syscall.SIGINT, 10*time.Second)
	m.Restart(t)
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(m.Log("rec"), "registered 2 subscriptions"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("recorder did not register again\n%s", m.Log("rec"))
		}
	}
	m.Start(t, "after", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "10", "/after", "std_msgs/String", "data: after")
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(m.Log("rec"), "/after: connected to"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("recorder not connected to the new publisher\n%s", m.Log("rec"))
		}
	}
	time.Sleep(2 * time.Second)
	if err := rec.Stop(syscall.SIGINT, 30*time.Second); err != nil {
		t.Fatalf("record: %v\n%s", err, m.Log("rec"))
	}
	got := readTopics(t, out)
	if len(got["/before"]) == 0 || len(got["/after"]) < 5 {
		t.Fatalf("/before %d, /after %d messages\n%s", len(got["/before"]), len(got["/after"]), m.Log("rec"))
	}
	if !strings.Contains(m.Log("rec"), "registering again") {
		t.Errorf("no log line about the restart\n%s", m.Log("rec"))
	}
}
