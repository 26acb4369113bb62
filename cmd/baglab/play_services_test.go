package main

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// TestPlayServicesCLI: `baglab play --pause` as a process of its own on
// Debian's roscore lists every player service in rosservice list, and
// rosservice call answers is_paused, get_rate, resume and is_paused
// again as documented.
func TestPlayServicesCLI(t *testing.T) {
	rostest.Require(t, "rostopic", "services")
	m := rostest.StartMaster(t)
	bag := writeChatterBag(t, 600) // 60 s: playback outlives the calls
	p := startBaglab(t, m, "play", "play", "--pause", "-r", "2", bag, "__name:=/play_cli")
	defer p.Stop(syscall.SIGINT, 10*time.Second)
	call := func(args ...string) string {
		t.Helper()
		out, err := m.Output(t, 30*time.Second, rostest.Python, append([]string{"/usr/bin/rosservice"}, args...)...)
		if err != nil {
			t.Fatalf("rosservice %v: %v\n%s\n%s", args, err, out, m.Log("play"))
		}
		return strings.TrimSpace(out)
	}
	var list string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(list, "/play_cli/burst"); time.Sleep(200 * time.Millisecond) {
		list, _ = m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "list")
		if time.Now().After(deadline) {
			t.Fatalf("rosservice list: %s\n%s", list, m.Log("play"))
		}
	}
	for _, s := range []string{"pause_playback", "pause", "resume", "toggle_paused", "is_paused", "get_rate", "play_next", "set_rate", "seek", "burst"} {
		if !strings.Contains(list, "/play_cli/"+s+"\n") {
			t.Errorf("rosservice list lacks /play_cli/%s", s)
		}
	}
	for _, c := range [][2]string{
		{"is_paused", "success: True\nmessage: \"paused\""},
		{"get_rate", "success: True\nmessage: \"2\""},
		{"resume", "success: True\nmessage: \"Playback is now resumed\""},
		{"is_paused", "success: False\nmessage: \"playing\""},
	} {
		if got := call("call", "/play_cli/"+c[0]); got != c[1] {
			t.Errorf("rosservice call /play_cli/%s: %q, want %q", c[0], got, c[1])
		}
	}
	if got := call("type", "/play_cli/seek"); got != "baglab_msgs/Seek" {
		t.Errorf("rosservice type /play_cli/seek: %q", got)
	}
}

// writeChatterBag writes n std_msgs/String messages on /chatter, 10 Hz.
func writeChatterBag(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chatter.bag")
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/chatter", MessageEncoding: "ros1", Metadata: map[string]string{"callerid": "/talker"},
		Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: "992ce8a1687cec8c8bd883ec73ca41d1"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ns := int64(1_700_000_000e9) + int64(i)*100e6
		data := binary.LittleEndian.AppendUint32(nil, 5)
		if err := w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: append(data, "hello"...)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
