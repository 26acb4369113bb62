package foxglove

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/coder/websocket"
)

// startBridge bridges m's graph on a node of its own and returns the
// server's URL.
func startBridge(t *testing.T, m *rostest.Master, o BridgeOptions) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	node, err := rosnode.New(ctx, rosnode.Options{Name: "/baglab_serve_test", MasterURI: m.URI, Host: "127.0.0.1", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	o.Poll = 200 * time.Millisecond
	o.Warn = func(s string) { t.Log(s) }
	br := NewBridge(node, o)
	srv := NewServer(br.ServerOptions(Options{Name: "test"}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{}, 2)
	go func() { srv.Serve(ctx, ln); done <- struct{}{} }()
	go func() { br.Run(ctx, srv); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done; node.Close() })
	return "ws://" + ln.Addr().String()
}

// subscribedBy reports whether rostopic info lists node as a subscriber of
// topic.
func subscribedBy(t *testing.T, m *rostest.Master, topic, node string) bool {
	t.Helper()
	out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rostopic", "info", topic)
	if err != nil {
		t.Fatalf("rostopic info %s: %v\n%s", topic, err, out)
	}
	_, subs, _ := strings.Cut(out, "Subscribers:")
	return strings.Contains(subs, " "+node+" ")
}

// TestBridgeROS: serve --ros on Debian's roscore. Foxglove's npm client
// decodes /chatter (rostopic pub) and the latched /fixed; the bridge
// subscribes to /chatter only while a client does; a topic published later
// is advertised, and unadvertised when its publisher goes; a client
// publishes onto a ROS topic that rostopic echo prints.
func TestBridgeROS(t *testing.T) {
	rostest.Require(t, "rospy", "rostopic", "ros-msgs")
	testenv.RequirePeer(t, "node", "ws-protocol")
	m := rostest.StartMaster(t)
	m.Start(t, "chatter", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/chatter", "std_msgs/String", "data: hello")
	m.Start(t, "fixed", rostest.Python, "/usr/bin/rostopic", "pub", "-l", "/fixed", "std_msgs/String", "data: fixed")
	waitTopics(t, m, "/chatter", "/fixed")
	url := startBridge(t, m, BridgeOptions{ClientPublish: true})

	t.Run("npm client", func(t *testing.T) {
		var chatter, fixed int
		for _, l := range npmClient(t, url, 30) {
			if l.Topic == "" {
				continue
			}
			if l.Same != true {
				t.Errorf("%s: written back, the decoded message differs from the bytes sent", l.Topic)
			}
			var msg struct{ Data string }
			json.Unmarshal(l.Message, &msg)
			switch {
			case l.Topic == "/chatter" && msg.Data == "hello":
				chatter++
			case l.Topic == "/fixed" && msg.Data == "fixed":
				fixed++
			}
		}
		if chatter < 10 || fixed != 1 {
			t.Errorf("/chatter %d messages, /fixed %d, want ≥ 10 and 1", chatter, fixed)
		}
	})

	c := dial(t, url, SubprotocolSDK)
	c.handshake()
	if caps := jsonString(c.info["capabilities"]); caps != `["clientPublish"]` {
		t.Errorf("capabilities %s", caps)
	}
	for deadline := time.Now().Add(15 * time.Second); subscribedBy(t, m, "/chatter", "/baglab_serve_test"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("subscribed to /chatter with no client subscribed")
		}
	}
	c.subscribe("/chatter", 1)
	c.until(15*time.Second, func(e event) bool { return e.op == OpMessageData && string(e.data[4:]) == "hello" })
	if !subscribedBy(t, m, "/chatter", "/baglab_serve_test") {
		t.Error("a client subscribes to /chatter, the bridge does not")
	}
	c.sendJSON(map[string]any{"op": "unsubscribe", "subscriptionIds": []int{1}})
	for deadline := time.Now().Add(15 * time.Second); subscribedBy(t, m, "/chatter", "/baglab_serve_test"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still subscribed to /chatter after the last client left it")
		}
	}

	// A topic that appears later is advertised, and unadvertised when
	// its publisher goes.
	late := m.Start(t, "late", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "5", "/late", "std_msgs/Int32", "data: 7")
	var lateID float64
	c.until(20*time.Second, func(e event) bool {
		if e.json["op"] != "advertise" {
			return false
		}
		for _, ch := range e.json["channels"].([]any) {
			if m := ch.(map[string]any); m["topic"] == "/late" {
				lateID = m["id"].(float64)
				if m["schemaName"] != "std_msgs/Int32" || !strings.Contains(m["schema"].(string), "int32 data") {
					t.Errorf("/late advertised as %v", m)
				}
				return true
			}
		}
		return false
	})
	late.Stop(syscall.SIGINT, 10*time.Second)
	c.until(20*time.Second, func(e event) bool {
		return e.json["op"] == "unadvertise" && strings.Contains(jsonString(e.json["channelIds"]), jsonString(lateID))
	})

	// Client publishing: rostopic echo prints what the client sends.
	echo := make(chan string, 1)
	go func() {
		out, _ := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "1", "/from_client")
		echo <- out
	}()
	c.sendJSON(map[string]any{"op": "advertise", "channels": []map[string]any{{"id": 5, "topic": "/from_client",
		"encoding": "ros1", "schemaName": "std_msgs/String", "schema": "string data\n"}}})
	var got string
	for deadline := time.Now().Add(30 * time.Second); got == ""; {
		b := append([]byte{byte(OpClientMessageData), 5, 0, 0, 0}, ros1String("from the client")...)
		if err := c.conn.Write(context.Background(), websocket.MessageBinary, b); err != nil {
			t.Fatal(err)
		}
		select {
		case got = <-echo:
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("rostopic echo got nothing")
		}
	}
	if !strings.Contains(got, `data: "from the client"`) {
		t.Errorf("rostopic echo /from_client: %s", got)
	}
}

// waitTopics waits until the master lists every topic as published.
func waitTopics(t *testing.T, m *rostest.Master, topics ...string) {
	t.Helper()
	mc := rosnode.NewMaster(m.URI, "/probe")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tts, err := mc.GetPublishedTopics(context.Background(), "")
		have := map[string]bool{}
		for _, tt := range tts {
			have[tt.Topic] = true
		}
		all := err == nil
		for _, tp := range topics {
			all = all && have[tp]
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("topics %v not published: %v", topics, err)
		}
	}
}
