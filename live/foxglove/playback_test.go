package foxglove

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/coder/websocket"
)

var stringDef = &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: "992ce8a1687cec8c8bd883ec73ca41d1"}

func ros1String(s string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(s)))
	return append(b, s...)
}

// msg is a message of a test recording: topic, log time in ms, text.
type msg struct {
	topic string
	ms    int64
	text  string
}

const t0 = int64(1_700_000_000) * 1e9

// writeRecording writes msgs (std_msgs/String) to a temporary bag; topics
// in latched get latching=1.
func writeRecording(t testing.TB, name string, msgs []msg, latched ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]uint32{}
	for _, m := range msgs {
		if _, ok := ids[m.topic]; ok {
			continue
		}
		latch := "0"
		for _, l := range latched {
			if l == m.topic {
				latch = "1"
			}
		}
		id, err := w.AddChannel(&record.Channel{Topic: m.topic, MessageEncoding: "ros1", Schema: stringDef,
			Metadata: map[string]string{"callerid": "/talker", "latching": latch}})
		if err != nil {
			t.Fatal(err)
		}
		ids[m.topic] = id
	}
	for i, m := range msgs {
		ns := t0 + m.ms*1e6
		if err := w.WriteMessage(ids[m.topic], &record.Message{LogTime: ns, PublishTime: ns, Sequence: uint64(i), Data: ros1String(m.text)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// ticks is /tick every step ms from 0 to last ms, text its time in ms.
func ticks(step, last int64) []msg {
	var msgs []msg
	for ms := int64(0); ms <= last; ms += step {
		msgs = append(msgs, msg{"/tick", ms, itoa(ms)})
	}
	return msgs
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// startServer serves paths with o on a free loopback port and returns its
// URL; the server stops with the test.
func startServer(t testing.TB, paths []string, o PlaybackOptions, so Options) (string, *Server) {
	t.Helper()
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	pb, err := NewPlayback(in, o)
	if err != nil {
		t.Fatal(err)
	}
	so.Name = "test"
	so.SessionID = "s1"
	srv := NewServer(pb.ServerOptions(so))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { srv.Serve(ctx, ln); done <- struct{}{} }()
	go func() {
		if err := pb.Run(ctx, srv); err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- struct{}{}
	}()
	t.Cleanup(func() { cancel(); <-done; <-done })
	return "ws://" + ln.Addr().String(), srv
}

// event is what a test client received.
type event struct {
	at    time.Time
	json  map[string]any
	op    ServerOp
	sub   uint32
	ns    int64
	data  []byte
	state PlaybackState
}

// testClient is a minimal client over coder/websocket.
type testClient struct {
	t      testing.TB
	conn   *websocket.Conn
	events chan event
	chans  map[string]uint32 // topic -> channel id
	info   map[string]any
}

func dial(t testing.TB, url, proto string) *testClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{proto}})
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(64 << 20)
	c := &testClient{t: t, conn: conn, events: make(chan event, 100000), chans: map[string]uint32{}}
	go c.readLoop()
	t.Cleanup(func() { conn.CloseNow() })
	return c
}

func (c *testClient) readLoop() {
	defer close(c.events)
	for {
		typ, b, err := c.conn.Read(context.Background())
		if err != nil {
			return
		}
		e := event{at: time.Now()}
		if typ == websocket.MessageText {
			json.Unmarshal(b, &e.json)
		} else {
			e.op = ServerOp(b[0])
			switch e.op {
			case OpMessageData:
				e.sub = binary.LittleEndian.Uint32(b[1:])
				e.ns = int64(binary.LittleEndian.Uint64(b[5:]))
				e.data = b[13:]
			case OpTime:
				e.ns = int64(binary.LittleEndian.Uint64(b[1:]))
			case OpPlaybackState:
				e.state = PlaybackState{Status: PlaybackStatus(b[1]), CurrentTime: int64(binary.LittleEndian.Uint64(b[2:])),
					Speed: math.Float32frombits(binary.LittleEndian.Uint32(b[10:])), DidSeek: b[14] != 0}
				n := binary.LittleEndian.Uint32(b[15:])
				e.state.RequestID = string(b[19 : 19+n])
			}
		}
		c.events <- e
	}
}

// next returns the next event, failing after timeout.
func (c *testClient) next(timeout time.Duration) event {
	c.t.Helper()
	select {
	case e, ok := <-c.events:
		if !ok {
			c.t.Fatal("connection closed")
		}
		return e
	case <-time.After(timeout):
		c.t.Fatalf("nothing received in %v", timeout)
	}
	return event{}
}

// handshake reads serverInfo and the advertisement.
func (c *testClient) handshake() {
	c.t.Helper()
	for c.info == nil || len(c.chans) == 0 {
		e := c.next(5 * time.Second)
		switch e.json["op"] {
		case "serverInfo":
			c.info = e.json
		case "advertise":
			for _, ch := range e.json["channels"].([]any) {
				m := ch.(map[string]any)
				c.chans[m["topic"].(string)] = uint32(m["id"].(float64))
			}
		}
	}
}

func (c *testClient) sendJSON(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if err := c.conn.Write(context.Background(), websocket.MessageText, b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *testClient) subscribe(topic string, id uint32) {
	c.t.Helper()
	ch, ok := c.chans[topic]
	if !ok {
		c.t.Fatalf("no channel %s in %v", topic, c.chans)
	}
	c.sendJSON(map[string]any{"op": "subscribe", "subscriptions": []map[string]any{{"id": id, "channelId": ch}}})
}

func (c *testClient) control(cmd PlaybackCommand, speed float32, seek int64, id string) {
	c.t.Helper()
	b := []byte{byte(OpPlaybackControlRequest), byte(cmd)}
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(speed))
	if seek >= 0 {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(max(seek, 0)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	if err := c.conn.Write(context.Background(), websocket.MessageBinary, b); err != nil {
		c.t.Fatal(err)
	}
}

// until reads events until one satisfies stop, returning all read.
func (c *testClient) until(timeout time.Duration, stop func(e event) bool) []event {
	c.t.Helper()
	var got []event
	deadline := time.Now().Add(timeout)
	for {
		e := c.next(time.Until(deadline))
		got = append(got, e)
		if stop(e) {
			return got
		}
	}
}

func isState(e event) bool { return e.op == OpPlaybackState }

// TestPlaybackControl: paused at the start, play, pause, seek back with a
// new speed, and the end: each answered with its request id, messages at
// their recorded pace, the latched topic re-sent after the seek, Ended.
func TestPlaybackControl(t *testing.T) {
	msgs := append([]msg{{"/map", 0, "map0"}, {"/map", 500, "map1"}}, ticks(100, 1500)...)
	path := writeRecording(t, "in.bag", msgs, "/map")
	url, _ := startServer(t, []string{path}, PlaybackOptions{Paused: true}, Options{})
	c := dial(t, url, SubprotocolSDK)
	c.handshake()
	if caps := c.info["capabilities"]; !strings.Contains(jsonString(caps), `"playbackControl"`) || !strings.Contains(jsonString(caps), `"time"`) {
		t.Errorf("capabilities %v", caps)
	}
	if got := jsonString(c.info["dataStartTime"]); got != `{"nsec":0,"sec":1700000000}` {
		t.Errorf("dataStartTime %s", got)
	}
	if got := jsonString(c.info["dataEndTime"]); got != `{"nsec":500000000,"sec":1700000001}` {
		t.Errorf("dataEndTime %s", got)
	}
	c.subscribe("/tick", 7)
	c.subscribe("/map", 8)
	// Paused: nothing but the initial Time, state and the latched /map
	// (none yet at the start).
	c.control(CommandPlay, 1, -1, "play-1")
	got := c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.RequestID == "play-1" })
	if st := got[len(got)-1].state; st.Status != Playing || st.CurrentTime != t0 || st.Speed != 1 || st.DidSeek {
		t.Errorf("after play: %+v", st)
	}
	for _, e := range got {
		if e.op == OpMessageData {
			t.Errorf("message before play: %+v", e)
		}
	}
	start := time.Now()
	// Messages up to 600 ms, at their pace.
	got = c.until(5*time.Second, func(e event) bool { return e.op == OpMessageData && e.ns == t0+600e6 })
	if el := time.Since(start); el < 550*time.Millisecond || el > 1500*time.Millisecond {
		t.Errorf("600 ms of recording took %v", el)
	}
	var last int64
	for _, e := range got {
		if e.op == OpTime {
			if e.ns < last {
				t.Errorf("time went back: %d after %d", e.ns, last)
			}
			last = e.ns
		}
		if e.op == OpMessageData && e.ns > last {
			t.Errorf("message at %d before Time reached it (%d)", e.ns, last)
		}
	}
	c.control(CommandPause, 1, -1, "pause-1")
	got = c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.RequestID == "pause-1" })
	st := got[len(got)-1].state
	if st.Status != Paused || st.CurrentTime < t0+600e6 || st.CurrentTime > t0+800e6 {
		t.Errorf("after pause: %+v", st)
	}
	select {
	case e := <-c.events:
		if e.op == OpMessageData {
			t.Errorf("message while paused: %+v", e)
		}
	case <-time.After(300 * time.Millisecond):
	}
	// Seek back to 1.05 s at speed 4: the latched /map's last message
	// before it (map1 at 500 ms) comes again.
	c.control(CommandPlay, 4, t0+1050e6, "seek-1")
	got = c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.RequestID == "seek-1" })
	st = got[len(got)-1].state
	if st.Status != Playing || st.CurrentTime != t0+1050e6 || st.Speed != 4 || !st.DidSeek {
		t.Errorf("after seek: %+v", st)
	}
	start = time.Now()
	got = c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.Status == Ended })
	el := time.Since(start)
	var texts []string
	for _, e := range got {
		if e.op == OpMessageData {
			texts = append(texts, string(e.data[4:]))
		}
	}
	if strings.Join(texts, " ") != "map1 1100 1200 1300 1400 1500" {
		t.Errorf("after the seek: %q", texts)
	}
	// 1.05 s → 1.5 s at speed 4: 112 ms.
	if el < 90*time.Millisecond || el > 600*time.Millisecond {
		t.Errorf("450 ms at speed 4 took %v", el)
	}
	if st := got[len(got)-1].state; st.CurrentTime != t0+1500e6 || st.RequestID != "" {
		t.Errorf("Ended state: %+v", st)
	}
	// Play without a seek stays Ended, as in the SDK's player; a seek
	// back plays again.
	c.control(CommandPlay, 4, -1, "play-2")
	got = c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.RequestID == "play-2" })
	if st := got[len(got)-1].state; st.Status != Ended {
		t.Errorf("play after the end: %+v", st)
	}
	c.control(CommandPlay, 4, t0+1350e6, "seek-2")
	got = c.until(5*time.Second, func(e event) bool { return isState(e) && e.state.Status == Ended })
	texts = texts[:0]
	for _, e := range got {
		if e.op == OpMessageData {
			texts = append(texts, string(e.data[4:]))
		}
		if isState(e) && e.state.RequestID == "seek-2" && (e.state.Status != Playing || !e.state.DidSeek) {
			t.Errorf("seek after the end: %+v", e.state)
		}
	}
	if strings.Join(texts, " ") != "map1 1400 1500" {
		t.Errorf("after the seek back from the end: %q", texts)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
