package play

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// fakeClock is a test clock: time moves only when the player wakes from a
// timer, to exactly the timer's deadline.
type fakeClock struct {
	mu sync.Mutex
	t  time.Duration
}

func (c *fakeClock) now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) timer(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	// Fire after a moment of real time, so that a message the read-ahead
	// goroutine is about to hand over wins over an idle tick.
	go func() { time.Sleep(200 * time.Microsecond); ch <- time.Time{} }()
	return ch
}

func (c *fakeClock) reached(until time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = max(c.t, until)
}

// sent is one message a fake publisher received.
type sent struct {
	topic string
	at    time.Duration
	data  []byte
}

// fakeNet is an Advertiser recording what is published and when.
type fakeNet struct {
	clk    *fakeClock
	mu     sync.Mutex
	topics []Topic
	sent   []sent
	subs   func() int
	// after is called after each publish with the number of non-clock
	// messages so far.
	after func(n int)
	n     int
	// afterClock is called after each /clock publish with their number.
	afterClock func(n int)
	nClock     int
}

type fakePub struct {
	net  *fakeNet
	name string
}

func (f *fakeNet) Advertise(t Topic) (Publisher, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.topics = append(f.topics, t)
	return &fakePub{net: f, name: t.Name}, nil
}

func (p *fakePub) Publish(data []byte) error {
	f := p.net
	f.mu.Lock()
	f.sent = append(f.sent, sent{topic: p.name, at: f.clk.now(), data: append([]byte(nil), data...)})
	if p.name != clockTopic {
		f.n++
	} else {
		f.nClock++
		if f.afterClock != nil {
			defer f.afterClock(f.nClock)
		}
	}
	n, after := f.n, f.after
	f.mu.Unlock()
	if after != nil && p.name != clockTopic {
		after(n)
	}
	return nil
}

func (p *fakePub) NumSubscribers() int {
	if p.net.subs == nil {
		return 1
	}
	return p.net.subs()
}

func (f *fakeNet) messages(topic string) []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sent
	for _, s := range f.sent {
		if topic == "" && s.topic != clockTopic || s.topic == topic {
			out = append(out, s)
		}
	}
	return out
}

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

// writeRecording writes msgs (std_msgs/String) to a temporary file of the
// given extension; topics in latched get latching=1.
func writeRecording(t *testing.T, ext string, msgs []msg, latched ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in"+ext)
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

// newPlayer prepares a player of paths with o on the clock clk.
func newPlayer(t *testing.T, o Options, clk *fakeClock, paths ...string) *Player {
	t.Helper()
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	p, err := New(FromInputs(in), decode.NewResolver(nil), o)
	if err != nil {
		t.Fatal(err)
	}
	p.clk = clk
	return p
}

// play runs a player over paths with o on a fake clock and network.
func play(t *testing.T, o Options, stopAfter int, paths ...string) (*fakeNet, Stats) {
	t.Helper()
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, paths...)
	net := &fakeNet{clk: clk}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if stopAfter > 0 {
		net.after = func(n int) {
			if n >= stopAfter {
				cancel()
			}
		}
	}
	st, err := p.Run(ctx, net)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatal("playback did not end")
	}
	return net, st
}

// offsets returns each message's send time relative to the first, in ms,
// and its text.
func offsets(ss []sent) ([]float64, []string) {
	var at []float64
	var text []string
	for _, s := range ss {
		at = append(at, float64(s.at-ss[0].at)/1e6)
		text = append(text, string(s.data[4:]))
	}
	return at, text
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}

var threeTopics = []msg{
	{"/a", 0, "a0"}, {"/b", 10, "b0"}, {"/a", 100, "a1"}, {"/c", 150, "c0"},
	{"/a", 200, "a2"}, {"/b", 1200, "b1"}, {"/a", 1300, "a3"},
}

func TestSchedule(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics, "/c")
	all := []string{"a0", "b0", "a1", "c0", "a2", "b1", "a3"}
	cases := []struct {
		name string
		set  func(*Options)
		at   []float64
		text []string
	}{
		{"rate 1", func(*Options) {}, []float64{0, 10, 100, 150, 200, 1200, 1300}, all},
		{"rate 5", func(o *Options) { o.Rate = 5 }, []float64{0, 2, 20, 30, 40, 240, 260}, all},
		{"rate 0.5", func(o *Options) { o.Rate = 0.5 }, []float64{0, 20, 200, 300, 400, 2400, 2600}, all},
		{"immediate", func(o *Options) { o.Immediate = true }, []float64{0, 0, 0, 0, 0, 0, 0}, all},
		{"skip-empty", func(o *Options) { o.SkipEmpty = 500 * time.Millisecond }, []float64{0, 10, 100, 150, 200, 200, 300}, all},
		// -s 0.1: latched /c (150 ms) is after START, so nothing is re-sent.
		{"start", func(o *Options) { o.Start = 100 * time.Millisecond }, []float64{0, 50, 100, 1100, 1200}, []string{"a1", "c0", "a2", "b1", "a3"}},
		// -s 0.18: latched c0 (150 ms) comes first, at once; then from a2.
		{"start re-sends latched", func(o *Options) { o.Start = 180 * time.Millisecond }, []float64{0, 0, 1000, 1100}, []string{"c0", "a2", "b1", "a3"}},
		{"start and duration", func(o *Options) { o.Start = 10 * time.Millisecond; o.Duration = 190 * time.Millisecond },
			[]float64{0, 90, 140, 190}, []string{"b0", "a1", "c0", "a2"}},
		{"topics", func(o *Options) { o.Topics = func(t string) bool { return t == "/b" } }, []float64{0, 1190}, []string{"b0", "b1"}},
		{"exclude", func(o *Options) { o.Exclude = regexp.MustCompile("/(a|c)") }, []float64{0, 1190}, []string{"b0", "b1"}},
		{"exclude matches whole names", func(o *Options) { o.Exclude = regexp.MustCompile("/") }, []float64{0, 10, 100, 150, 200, 1200, 1300}, all},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			c.set(&o)
			net, st := play(t, o, 0, bag)
			at, text := offsets(net.messages(""))
			if !equalFloats(at, c.at) || fmt.Sprint(text) != fmt.Sprint(c.text) {
				t.Errorf("sent %v at %v ms, want %v at %v ms", text, at, c.text, c.at)
			}
			if st.Messages != uint64(len(c.text)) || st.Loops != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestDelayBeforeFirstMessage(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.Delay = 750 * time.Millisecond
	net, _ := play(t, o, 0, bag)
	if got := net.messages("")[0].at; got != o.Delay {
		t.Errorf("first message at %v, want after the %v delay", got, o.Delay)
	}
}

func TestTopicsAdvertisedWithRecordedHeader(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics, "/c")
	o := DefaultOptions()
	o.Prefix = "replay"
	o.Remap = map[string]string{"/b": "/renamed/b"}
	o.Immediate = true
	net, st := play(t, o, 0, bag)
	want := map[string]bool{"/replay/a": false, "/replay/renamed/b": false, "/replay/c": true}
	if len(net.topics) != len(want) {
		t.Fatalf("advertised %+v", net.topics)
	}
	for _, tp := range net.topics {
		latch, ok := want[tp.Name]
		if !ok || tp.Latching != latch || tp.Type != "std_msgs/String" || tp.MD5 != stringDef.MD5 || tp.Definition != "string data\n" {
			t.Errorf("advertised %+v", tp)
		}
	}
	if st.PerTopic["/replay/renamed/b"] != 2 || st.PerTopic["/replay/a"] != 4 {
		t.Errorf("per topic %v", st.PerTopic)
	}
}

func TestOutputName(t *testing.T) {
	remap := map[string]string{"/a": "/x", "/b/c": "d", "/p/q": "/y"}
	for _, c := range []struct{ in, prefix, want string }{
		{"/a", "", "/x"}, {"/a", "p", "/p/x"}, {"/a", "/p/", "/p/x"}, {"/b/c", "", "/d"},
		{"/q", "", "/q"}, {"/q", "/robot1", "/robot1/q"}, {"/q", "robot1//", "/robot1/q"},
		{"/q", "/p", "/y"}, {"/q", "p/", "/y"},
	} {
		if got := OutputName(c.in, c.prefix, remap); got != c.want {
			t.Errorf("OutputName(%q, %q) = %q, want %q", c.in, c.prefix, got, c.want)
		}
	}
}

func TestLoopClockNeverGoesBack(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.Loop, o.Clock, o.ClockHz = true, true, 50
	net, st := play(t, o, 3*len(threeTopics), bag)
	if st.Loops < 2 {
		t.Fatalf("loops %d, want ≥ 2", st.Loops)
	}
	clock := net.messages(clockTopic)
	if len(clock) < 100 {
		t.Fatalf("only %d /clock messages over 3 loops of 1.3 s at 50 Hz", len(clock))
	}
	var prev int64
	for i, c := range clock {
		v := int64(binary.LittleEndian.Uint32(c.data))*1e9 + int64(binary.LittleEndian.Uint32(c.data[4:]))
		if v < prev {
			t.Fatalf("/clock %d went back: %d after %d", i, v, prev)
		}
		if i > 0 && c.at-clock[i-1].at < 20*time.Millisecond-time.Microsecond && c.at != clock[i-1].at {
			t.Fatalf("/clock %d only %v after the previous at 50 Hz", i, c.at-clock[i-1].at)
		}
		prev = v
	}
	// Three loops of 1.3 s: /clock ends about 2 × 1.3 s after the start.
	if end := prev - t0; end < 2*1300e6 || end > 3*1300e6 {
		t.Errorf("/clock ends %v after the recording's start", time.Duration(end))
	}
	// Message times in each loop repeat the first loop's.
	at, _ := offsets(net.messages(""))
	for i := len(threeTopics); i < len(at); i++ {
		loopStart := at[i-i%len(threeTopics)]
		if d := at[i] - loopStart - at[i%len(threeTopics)]; d > 1e-6 || d < -1e-6 {
			t.Errorf("message %d at %v ms into its loop, want %v", i, at[i]-loopStart, at[i%len(threeTopics)])
		}
	}
}

func TestClockFollowsSchedule(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.Clock, o.ClockHz, o.Rate = true, 100, 2
	net, _ := play(t, o, 0, bag)
	first := net.messages("")[0].at
	for _, c := range net.messages(clockTopic) {
		v := int64(binary.LittleEndian.Uint32(c.data))*1e9 + int64(binary.LittleEndian.Uint32(c.data[4:]))
		// At rate 2, bag time advances 2 ns per wall ns from the first message.
		want := t0 + 2*int64(c.at-first)
		if d := v - want; d > int64(time.Millisecond) || d < -int64(time.Millisecond) {
			t.Errorf("/clock at wall %v is %v into the bag, want %v", c.at-first, time.Duration(v-t0), time.Duration(want-t0))
		}
	}
}

func TestMergesFilesInTimeOrder(t *testing.T) {
	a := writeRecording(t, ".bag", []msg{{"/a", 0, "a0"}, {"/a", 300, "a1"}})
	b := writeRecording(t, ".mcap", []msg{{"/b", 100, "b0"}, {"/b", 200, "b1"}})
	net, _ := play(t, DefaultOptions(), 0, a, b)
	at, text := offsets(net.messages(""))
	if fmt.Sprint(text) != "[a0 b0 b1 a1]" || !equalFloats(at, []float64{0, 100, 200, 300}) {
		t.Errorf("sent %v at %v", text, at)
	}
}

func TestPauseAndStep(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.Pause = true
	keys := make(chan byte)
	o.Keys = keys
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	stepped := make(chan int, 10)
	net.after = func(n int) { stepped <- n }
	done := make(chan error)
	go func() { _, err := p.Run(context.Background(), net); done <- err }()
	// Paused: two steps publish a0 and b0 and nothing else.
	for i := 1; i <= 2; i++ {
		keys <- KeyStep
		if n := <-stepped; n != i {
			t.Fatalf("step %d published %d messages", i, n)
		}
	}
	keys <- 'x' // ignored
	select {
	case n := <-stepped:
		t.Fatalf("published message %d while paused", n)
	case <-time.After(50 * time.Millisecond):
	}
	keys <- KeyPause // resume from b0 (10 ms)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	at, text := offsets(net.messages(""))
	resumed := at[1]
	var rel []float64
	for _, a := range at[2:] {
		rel = append(rel, a-resumed)
	}
	if !equalFloats(rel, []float64{90, 140, 190, 1190, 1290}) || len(text) != 7 {
		t.Errorf("after resuming sent %v at %v ms after b0", text[2:], rel)
	}
}

func TestPauseTopics(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.PauseTopics = []string{"/c"}
	keys := make(chan byte)
	o.Keys = keys
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	published := make(chan int, 10)
	net.after = func(n int) { published <- n }
	done := make(chan error)
	go func() { _, err := p.Run(context.Background(), net); done <- err }()
	for i := 1; i <= 3; i++ {
		<-published
	}
	select {
	case n := <-published:
		t.Fatalf("published message %d (c0) without a pause", n)
	case <-time.After(50 * time.Millisecond):
	}
	keys <- KeyPauseTopics // pause-topics off
	keys <- KeyPause       // resume
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(net.messages("")); n != 7 {
		t.Errorf("published %d messages", n)
	}
}

func TestWaitForSubscribers(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.WaitForSubscribers, o.Delay = true, 0
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	// Subscribers appear after the recording's 3 s of fake time.
	net.subs = func() int {
		if clk.now() >= 3*time.Second {
			return 1
		}
		return 0
	}
	if _, err := p.Run(context.Background(), net); err != nil {
		t.Fatal(err)
	}
	if first := net.messages("")[0].at; first < 3*time.Second || first > 3100*time.Millisecond {
		t.Errorf("first message at %v, want when subscribers came (3 s)", first)
	}
}

func TestConflictingTypesOnOneTopic(t *testing.T) {
	a := writeRecording(t, ".bag", []msg{{"/a", 0, "a0"}})
	path := filepath.Join(t.TempDir(), "other.bag")
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	def := &record.Schema{Name: "std_msgs/UInt8", Encoding: "ros1msg", Data: []byte("uint8 data\n"), MD5: "7c8164229e7d2c17eb95e9231617fdee"}
	id, _ := w.AddChannel(&record.Channel{Topic: "/a", MessageEncoding: "ros1", Schema: def})
	_ = w.WriteMessage(id, &record.Message{LogTime: t0, Data: []byte{1}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in, err := recording.OpenInputs([]string{a, path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r := FromInputs(in)
	if _, err := New(r, decode.NewResolver(nil), DefaultOptions()); err == nil {
		t.Fatal("two types on /a accepted")
	}
	o := DefaultOptions()
	o.Remap = map[string]string{"/a": "/a_old"}
	if _, err := New(r, decode.NewResolver(nil), o); err == nil {
		t.Fatal("remapping both /a still gives one topic of two types; accepted")
	}
}

func TestCDRPlayedAsROS1(t *testing.T) {
	const db3 = "../../testdata/sample/all_types_ros2.db3"
	r, err := recording.Open(db3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := decode.NewResolver(nil)
	o := DefaultOptions()
	o.Immediate = true
	p, err := New(r, res, o)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{}
	p.clk = clk
	net := &fakeNet{clk: clk}
	if _, err := p.Run(context.Background(), net); err != nil {
		t.Fatal(err)
	}
	// Each advertised topic has a ROS1 type, an MD5 that matches its
	// definition, and every published message decodes as ROS1 under it.
	byName := map[string]Topic{}
	for _, tp := range net.topics {
		byName[tp.Name] = tp
		ty, err := msgdef.FromSchema(tp.Type, "ros1msg", []byte(tp.Definition), nil)
		if err != nil {
			t.Fatalf("%s: definition does not parse as ROS1: %v", tp.Name, err)
		}
		if msgdef.MD5(ty) != tp.MD5 {
			t.Errorf("%s: md5 %s, definition gives %s", tp.Name, tp.MD5, msgdef.MD5(ty))
		}
	}
	sum, _ := r.Summary()
	msgs := net.messages("")
	if uint64(len(msgs)) != sum.MessageCount || len(msgs) == 0 {
		t.Fatalf("published %d of %d messages", len(msgs), sum.MessageCount)
	}
	for _, m := range msgs {
		tp := byName[m.topic]
		ch := &record.Channel{Topic: m.topic, MessageEncoding: "ros1", Schema: &record.Schema{Name: tp.Type, Encoding: "ros1msg", Data: []byte(tp.Definition)}}
		dec, err := res.For(ch)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dec.DecodeValue(m.data); err != nil {
			t.Fatalf("%s: published bytes do not decode as %s: %v", m.topic, tp.Type, err)
		}
	}
}

// TestROS2MarkerPlayedAsROS1s: a ROS 2 Marker (Jazzy's, with texture
// fields) is played as ROS1's visualization_msgs/Marker, with the md5sum
// its ROS1 subscribers check, its ROS1 fields kept, and a warning naming
// the fields left out.
func TestROS2MarkerPlayedAsROS1s(t *testing.T) {
	jazzy := msgdef.Default()
	if err := jazzy.SetDistro("jazzy"); err != nil {
		t.Fatal(err)
	}
	marker, err := jazzy.Lookup("visualization_msgs/msg/Marker")
	if err != nil {
		t.Fatal(err)
	}
	v := value.New(marker)
	if err := v.Set("text", "cup"); err != nil {
		t.Fatal(err)
	}
	data, err := cdr.Encode(v, false)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "markers.mcap")
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/markers", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: marker.FullName, Encoding: "ros2msg", Data: []byte(decode.ROS2Bundle(marker))}})
	if err == nil {
		err = w.WriteMessage(id, &record.Message{LogTime: t0, Data: data})
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	o := DefaultOptions()
	o.Warn = func(msg string) { warned = append(warned, msg) }
	net, _ := play(t, o, 0, path)
	if len(warned) != 1 || !strings.Contains(warned[0], "is played as ROS1's visualization_msgs/Marker") ||
		!strings.Contains(warned[0], "texture_resource, texture, uv_coordinates, mesh_file") {
		t.Errorf("warnings %q", warned)
	}
	if len(net.topics) != 1 || net.topics[0].Type != "visualization_msgs/Marker" || net.topics[0].MD5 != "4048c9de2a16f4ae8e0538085ebf1b97" {
		t.Fatalf("advertised %+v", net.topics)
	}
	tp := net.topics[0]
	dec, err := decode.NewResolver(nil).For(&record.Channel{Topic: tp.Name, MessageEncoding: "ros1",
		Schema: &record.Schema{Name: tp.Type, Encoding: "ros1msg", Data: []byte(tp.Definition)}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := net.messages("")
	if len(msgs) != 1 {
		t.Fatalf("published %d messages", len(msgs))
	}
	got, err := dec.DecodeValue(msgs[0].data)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := got.Get("text"); err != nil || text != "cup" {
		t.Errorf("published text %v (%v), want cup", text, err)
	}
}

func TestUnindexedBag(t *testing.T) {
	// A bag cut before its index (as a killed recorder leaves it) still plays.
	full := writeRecording(t, ".bag", threeTopics)
	cut := cutIndex(t, full)
	net, _ := play(t, DefaultOptions(), 0, cut)
	at, text := offsets(net.messages(""))
	if fmt.Sprint(text) != "[a0 b0 a1 c0 a2 b1 a3]" || !equalFloats(at, []float64{0, 10, 100, 150, 200, 1200, 1300}) {
		t.Errorf("sent %v at %v", text, at)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, set := range []func(*Options){
		func(o *Options) { o.Rate = 0 },
		func(o *Options) { o.Rate = -1 },
		func(o *Options) { o.Start = -time.Second },
		func(o *Options) { o.Duration = -time.Second },
		func(o *Options) { o.Clock, o.ClockHz = true, 0 },
		func(o *Options) { o.SkipEmpty = -1 },
	} {
		o := DefaultOptions()
		set(&o)
		if err := o.validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// cutIndex copies a bag without its index, as a recorder killed before
// closing leaves it: cut at index_pos, with index_pos, conn_count and
// chunk_count zeroed in the bag header.
func cutIndex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const magic = len("#ROSBAG V2.0\n")
	hlen := int(binary.LittleEndian.Uint32(b[magic:]))
	h := b[magic+4 : magic+4+hlen]
	var indexPos uint64
	for len(h) > 4 {
		n := int(binary.LittleEndian.Uint32(h))
		field := h[4 : 4+n]
		name, value, _ := bytes.Cut(field, []byte("="))
		switch string(name) {
		case "index_pos":
			indexPos = binary.LittleEndian.Uint64(value)
			clear(value)
		case "conn_count", "chunk_count":
			clear(value)
		}
		h = h[4+n:]
	}
	if indexPos == 0 || indexPos > uint64(len(b)) {
		t.Fatalf("index_pos %d in a %d-byte bag", indexPos, len(b))
	}
	out := filepath.Join(t.TempDir(), "cut.bag.active")
	if err := os.WriteFile(out, b[:indexPos], 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStatusLineAtMostTenPerSecond(t *testing.T) {
	var msgs []msg
	for i := range 2000 { // 2 s at 1 kHz
		msgs = append(msgs, msg{"/fast", int64(i), fmt.Sprint(i)})
	}
	bag := writeRecording(t, ".bag", msgs)
	var status strings.Builder
	o := DefaultOptions()
	o.Status = &status
	net, _ := play(t, o, 0, bag)
	sent := net.messages("")
	span := sent[len(sent)-1].at - sent[0].at
	lines := strings.Count(status.String(), "\r")
	// From the start of the run (fake time 0: the delay comes first) to the end.
	if max := int(sent[len(sent)-1].at/(100*time.Millisecond)) + 2; lines > max || lines < int(span/(100*time.Millisecond))-2 {
		t.Errorf("%d status lines over %v, want about one per 100 ms (≤ %d)", lines, span, max)
	}
	last := status.String()[strings.LastIndex(status.String(), "\r")+1:]
	if !strings.Contains(last, "[RUNNING]") || !strings.Contains(last, "Duration: 1.9") || !strings.Contains(last, "/ 1.999000") {
		t.Errorf("last status line %q", last)
	}
	if !strings.HasSuffix(status.String(), "\n") {
		t.Error("status line not ended by a newline")
	}
}

func TestRateControlDelays(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.RateControlMaxDelay = 500 * time.Millisecond
	clk := &fakeClock{}
	// The controlling node is at 100 ms of bag time until 5 s of wall
	// time, then far ahead.
	o.RateControl = func() (int64, bool) {
		if clk.now() < 5*time.Second {
			return t0 + 100e6, true
		}
		return t0 + 10e9, true
	}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	if _, err := p.Run(context.Background(), net); err != nil {
		t.Fatal(err)
	}
	at, _ := offsets(net.messages(""))
	// a0..a2 (up to 200 ms) on schedule; b1 (1200 ms) waits until 5 s, when
	// the bag time is resumed from 600 ms (100 ms + the 500 ms allowed).
	if !equalFloats(at[:5], []float64{0, 10, 100, 150, 200}) {
		t.Errorf("before the delay: %v", at[:5])
	}
	first := net.messages("")[0].at
	b1 := float64(5*time.Second-first)/1e6 + 600
	if d := at[5] - b1; d < -20 || d > 20 { // the player looks every 10 ms
		t.Errorf("b1 at %v ms, want about %v", at[5], b1)
	}
	if d := at[6] - at[5]; d < 100-1e-6 || d > 100+1e-6 {
		t.Errorf("a3 %v ms after b1, want 100", d)
	}
}

// TestRateControlStartsWithoutStamp: until a stamp arrives on the
// rate-control topic, rosbag play counts the first message as the last
// stamp, so the first --rate-control-max-delay of the recording plays.
// Measured against Debian's rosbag play (t.bag /a every 100 ms,
// --rate-control-max-delay 0.5, nobody publishing the topic): it played
// 0..550 ms and stopped; baglab played nothing, waiting for a stamp, so a
// node that stamps its output only once it got input never got any.
func TestRateControlStartsWithoutStamp(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.RateControlMaxDelay = 500 * time.Millisecond
	o.RateControl = func() (int64, bool) { return 0, false }
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(time.Second, cancel).Stop() // a second of real time, minutes of fake time
	if _, err := p.Run(ctx, net); err != nil {
		t.Fatal(err)
	}
	at, names := offsets(net.messages(""))
	// a0..a2 (up to 200 ms) on schedule; b1 (1200 ms) is more than 500 ms
	// after the first message and waits for a stamp.
	if !equalFloats(at, []float64{0, 10, 100, 150, 200}) {
		t.Errorf("played %v at %v ms, want a0 b0 a1 c0 a2 on schedule, then a wait", names, at)
	}
}

// slowPass is a Source whose every pass takes cost of the player's clock
// to start, as reopening and seeking a file does.
type slowPass struct {
	Source
	clk  *fakeClock
	cost time.Duration
}

func (s slowPass) Messages(f record.Filter) (record.Iterator, error) {
	s.clk.reached(s.clk.now() + s.cost)
	return s.Source.Messages(f)
}

// TestLoopsDoNotDrift: each loop starts where the previous one ended on
// the schedule, so the time a pass takes to start is not added to every
// loop. rosbag play carries its clock over from the last message of a
// loop to the first of the next (runClock adds the wall time since it
// last ran): measured with Debian's rosbag play -l -r 10 -u 0.3 (a 30 ms
// loop), a loop took 30.3 ms at the median, baglab's 31.5 ms (83 loops
// in the time of rosbag's 97).
func TestLoopsDoNotDrift(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.Loop = true
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	p.r = slowPass{p.r, clk, 20 * time.Millisecond}
	net := &fakeNet{clk: clk}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	net.after = func(n int) {
		if n >= 5*len(threeTopics) {
			cancel()
		}
	}
	if _, err := p.Run(ctx, net); err != nil {
		t.Fatal(err)
	}
	at, names := offsets(net.messages(""))
	// The recording spans 1300 ms: each loop's a1 1300 ms after the last
	// one's (a0 and b0, the first 20 ms of a pass, are sent as soon as it
	// has started).
	for i := range 4 {
		k := (i+1)*len(threeTopics) + 2
		if names[k] != "a1" || math.Abs(at[k]-at[k-len(threeTopics)]-1300) > 1 {
			t.Errorf("loop %d: %s at %v ms, %v ms after the loop before; want a1 1300 ms after it", i+2, names[k], at[k], at[k]-at[k-len(threeTopics)])
		}
	}
}

// droppingPub is a publisher that says it dropped two messages.
type droppingPub struct{ fakePub }

func (droppingPub) Drops() int64 { return 2 }

type droppingNet struct{ *fakeNet }

func (d droppingNet) Advertise(t Topic) (Publisher, error) {
	p, err := d.fakeNet.Advertise(t)
	return &droppingPub{*p.(*fakePub)}, err
}

func TestStatsCountDrops(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.Immediate = true
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	st, err := p.Run(context.Background(), droppingNet{&fakeNet{clk: clk}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Dropped != 6 {
		t.Errorf("dropped %d, want 2 on each of 3 topics", st.Dropped)
	}
}

func TestKeepAliveKeepsClockRunning(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	o := DefaultOptions()
	o.KeepAlive, o.Clock, o.ClockHz = true, true, 10
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	net.afterClock = func(n int) {
		if n >= 50 { // 5 s of /clock at 10 Hz: well past the 1.3 s recording
			cancel()
		}
	}
	st, err := p.Run(ctx, net)
	if err != nil || ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("run: %v, %v", err, ctx.Err())
	}
	if st.Messages != uint64(len(threeTopics)) {
		t.Errorf("published %d messages", st.Messages)
	}
	clock := net.messages(clockTopic)
	last := clock[len(clock)-1]
	v := int64(binary.LittleEndian.Uint32(last.data))*1e9 + int64(binary.LittleEndian.Uint32(last.data[4:]))
	if since := time.Duration(v - t0); since < 4*time.Second {
		t.Errorf("/clock stopped at %v into the recording after the end, want it to keep running (~4.8 s)", since)
	}
}

func TestLatenessHistogram(t *testing.T) {
	var h lateHist
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond) // 1 µs .. 1 ms, uniform
	}
	s := h.summary()
	if s.Count != 1000 || s.Max != time.Millisecond {
		t.Fatalf("%+v", s)
	}
	for _, c := range []struct {
		got, want time.Duration
	}{{s.P50, 500 * time.Microsecond}, {s.P99, 990 * time.Microsecond}} {
		if c.got < c.want || float64(c.got) > 1.26*float64(c.want) {
			t.Errorf("quantile %v, want within +26%% of %v", c.got, c.want)
		}
	}
	// On the fake clock every message goes out exactly when due.
	bag := writeRecording(t, ".bag", threeTopics)
	_, st := play(t, DefaultOptions(), 0, bag)
	if st.Lateness.Count != uint64(len(threeTopics)) || st.Lateness.Max != 0 {
		t.Errorf("lateness %+v", st.Lateness)
	}
}

// writeCDR writes an MCAP of std_msgs/msg/String in CDR: "one", a cut
// message, "three".
func writeCDR(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cdr.mcap")
	w, err := recording.Create(path, recording.CreateOptions{Profile: "ros2"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/s", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")}})
	if err != nil {
		t.Fatal(err)
	}
	cdr := func(s string) []byte {
		b := binary.LittleEndian.AppendUint32([]byte{0, 1, 0, 0}, uint32(len(s)+1))
		return append(append(b, s...), 0)
	}
	for i, data := range [][]byte{cdr("one"), cdr("two")[:9], cdr("three")} {
		ns := t0 + int64(i)*1e6
		if err := w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBadMessageStopsOrIsSkipped(t *testing.T) {
	path := writeCDR(t)
	o := DefaultOptions()
	o.Immediate = true
	clk := &fakeClock{}
	net := &fakeNet{clk: clk}
	_, err := newPlayer(t, o, clk, path).Run(context.Background(), net)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "/s") {
		t.Fatalf("a cut CDR message gave %v, want an error naming the file and topic", err)
	}
	var skipped []error
	o.Skip = func(err error) error { skipped = append(skipped, err); return nil }
	net = &fakeNet{clk: clk}
	if _, err := newPlayer(t, o, clk, path).Run(context.Background(), net); err != nil {
		t.Fatal(err)
	}
	_, text := offsets(net.messages(""))
	if fmt.Sprint(text) != "[one three]" || len(skipped) != 1 {
		t.Errorf("with Skip: sent %q, skipped %v", text, skipped)
	}
}
