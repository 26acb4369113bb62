package topics_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/topics"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// healthMessage is one message of a topic-health test recording.
type healthMessage struct {
	topic          string
	logNs, stampNs int64 // stampNs: header.stamp (topics with a Header)
	seq            uint32
	text           string // /status payload
	x              float64
}

// healthMessages are the messages of the topic-health recording: /imu at
// about 100 Hz with jitter, a 0.7 s gap, latencies of 1-6 ms, two
// stamps going backwards and a re-sent message; /status at 2 Hz without
// a Header, mostly the same text (duplicates), with a 3 s gap; /once, a
// single message.
func healthMessages() []healthMessage {
	r := rand.New(rand.NewPCG(7, 27))
	const t0 = int64(1_714_564_800_000_000_000)
	var out []healthMessage
	t := t0
	for i := range 1000 {
		t += 10_000_000 + r.Int64N(4_000_001) - 2_000_000
		if i == 500 {
			t += 700_000_000
		}
		m := healthMessage{topic: "/imu", logNs: t, stampNs: t - 1_000_000 - r.Int64N(5_000_000), seq: uint32(i), x: r.Float64()}
		if i == 200 || i == 700 {
			m.stampNs -= 80_000_000 // earlier than the one before
		}
		out = append(out, m)
		if i == 300 { // sent twice: the same bytes at a new log time
			d := m
			t += 5_000_000
			d.logNs = t
			out = append(out, d)
		}
	}
	for i := range 40 {
		ts := t0 + int64(i)*500_000_000
		if i >= 20 {
			ts += 3_000_000_000
		}
		text := "ok"
		if i%13 == 5 {
			text = "warn " + strconv.Itoa(i)
		}
		out = append(out, healthMessage{topic: "/status", logNs: ts, text: text})
	}
	out = append(out, healthMessage{topic: "/once", logNs: t0 + 1_234_567_891, text: "hello"})
	return out
}

// ros2Stamped is the ros2msg bundle of the /imu type, as rosbag2 stores
// it.
const ros2Stamped = "std_msgs/Header header\ngeometry_msgs/Point point\n" +
	"================================================================================\nMSG: std_msgs/Header\n" +
	"builtin_interfaces/Time stamp\nstring frame_id\n" +
	"================================================================================\nMSG: builtin_interfaces/Time\n" +
	"int32 sec\nuint32 nanosec\n" +
	"================================================================================\nMSG: geometry_msgs/Point\n" +
	"float64 x\nfloat64 y\nfloat64 z\n"

// encodeHealth is m in the ROS1 wire format (ros2: CDR, little-endian).
func encodeHealth(m healthMessage, ros2 bool) []byte {
	le := binary.LittleEndian
	var b []byte
	str := func(s string, nul bool) {
		n := len(s)
		if nul {
			n++
		}
		b = le.AppendUint32(b, uint32(n))
		b = append(b, s...)
		if nul {
			b = append(b, 0)
		}
	}
	if ros2 {
		b = []byte{0, 1, 0, 0}
	}
	if m.topic != "/imu" {
		str(m.text, ros2)
		return b
	}
	if !ros2 {
		b = le.AppendUint32(b, m.seq)
	}
	b = le.AppendUint32(b, uint32(m.stampNs/1e9))
	b = le.AppendUint32(b, uint32(m.stampNs%1e9))
	str("imu_link", ros2)
	if ros2 {
		for (len(b)-4)%8 != 0 {
			b = append(b, 0)
		}
	}
	for _, v := range []float64{m.x, 1, -2.5} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// writeHealth writes healthMessages to path: a ROS1 bag or MCAP, or with
// ros2 a CDR MCAP as rosbag2 writes it.
func writeHealth(t *testing.T, path string, ros2 bool) {
	t.Helper()
	o := recording.CreateOptions{}
	if ros2 {
		o.Profile = "ros2"
	}
	w, err := recording.Create(path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	reg := msgdef.Default()
	ids := map[string]uint32{}
	for _, topic := range []string{"/imu", "/status", "/once"} {
		name := "geometry_msgs/PointStamped"
		if topic != "/imu" {
			name = "std_msgs/String"
		}
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		ch := &record.Channel{Topic: topic, MessageEncoding: "ros1",
			Schema:   &record.Schema{Name: name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(typ)), MD5: msgdef.MD5(typ)},
			Metadata: map[string]string{"callerid": "/health", "latching": "0"}}
		if ros2 {
			pkg, base, _ := strings.Cut(name, "/")
			text := "string data\n"
			if topic == "/imu" {
				text = ros2Stamped
			}
			ch = &record.Channel{Topic: topic, MessageEncoding: "cdr",
				Schema: &record.Schema{Name: pkg + "/msg/" + base, Encoding: "ros2msg", Data: []byte(text)}}
		}
		if ids[topic], err = w.AddChannel(ch); err != nil {
			t.Fatal(err)
		}
	}
	msgs := healthMessages()
	// Written in log time order, as a recorder writes them.
	order := make([]int, len(msgs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(msgs[i].logNs, msgs[j].logNs) })
	for k, i := range order {
		m := msgs[i]
		rm := &record.Message{LogTime: m.logNs, PublishTime: m.logNs, Sequence: uint64(k), Data: encodeHealth(m, ros2)}
		if err := w.WriteMessage(ids[m.topic], rm); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// topicsOf runs the topics analysis over paths and returns its topics
// table by topic, as JSON values.
func topicsOf(t *testing.T, paths []string, gapNs int64) map[string]map[string]any {
	t.Helper()
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	args := analysis.DefaultArgs()
	args.Flags = map[string]string{"gap": time.Duration(gapNs).String()} // as --gap gives it
	opts, err := args.Options([]analysis.Kind{topics.Kind})
	if err != nil {
		t.Fatal(err)
	}
	out, err := analysis.Run(context.Background(), in, []analysis.Kind{topics.Kind}, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(out.Results[0])
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Topics []map[string]any `json:"topics"`
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&res); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, s := range res.Topics {
		got[s["topic"].(string)] = s
	}
	return got
}

// topicsPeer runs testdata/peer/topics_peer.py (numpy) over a bag read
// by Debian's rosbag, or over the messages of an MCAP file read by npm
// @mcap/core and @foxglove/rosmsg2-serialization.
func topicsPeer(t *testing.T, path string, gapS float64) map[string]map[string]any {
	t.Helper()
	testenv.RequirePeer(t, "numpy")
	args := []string{filepath.Join("testdata", "peer", "topics_peer.py")}
	var stdin []byte
	if filepath.Ext(path) == ".bag" {
		testenv.RequirePeer(t, "rosbag")
		args = append(args, "bag", path)
	} else {
		testenv.RequirePeer(t, "mcap", "rosmsg2", "node")
		node := exec.Command("node", filepath.Join("testdata", "peer", "mcap_messages.cjs"), testenv.NodeDir(t), path)
		var stderr bytes.Buffer
		node.Stderr = &stderr
		out, err := node.Output()
		if err != nil {
			t.Fatalf("node mcap_messages: %v\n%s", err, stderr.String())
		}
		stdin = out
		args = append(args, "ndjson")
	}
	if gapS > 0 {
		args = append(args, "--gap", strconv.FormatFloat(gapS, 'g', -1, 64))
	}
	cmd := exec.Command("/usr/bin/python3", args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("topics_peer.py: %v\n%s", err, stderr.String())
	}
	var want map[string]map[string]any
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	return want
}

// topicInts are the statistics that must be equal; the rest are floats
// within 1e-9 relative ("NaN" equals "NaN").
var topicInts = map[string]bool{"count": true, "first_ns": true, "last_ns": true, "gaps": true, "stamped": true,
	"stamps_backwards": true, "duplicates": true, "bytes": true, "size_min": true, "size_max": true}

// compareTopics compares every statistic the peer gives with ours.
func compareTopics(t *testing.T, got, want map[string]map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d topics, the peer %d", len(got), len(want))
	}
	for topic, w := range want {
		g, ok := got[topic]
		if !ok {
			t.Errorf("%s: missing", topic)
			continue
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s: no %s", topic, k)
				continue
			}
			gs, ws := jsonString(gv), jsonString(wv)
			if topicInts[k] {
				if gs != ws {
					t.Errorf("%s %s: %s, numpy %s", topic, k, gs, ws)
				}
				continue
			}
			gf, ws1 := jsonFloat(gv), jsonFloat(wv)
			switch {
			case math.IsNaN(gf) || math.IsNaN(ws1):
				if math.IsNaN(gf) != math.IsNaN(ws1) {
					t.Errorf("%s %s: %s, numpy %s", topic, k, gs, ws)
				}
			case math.Abs(gf-ws1) > 1e-9*math.Max(math.Abs(gf), math.Abs(ws1)):
				t.Errorf("%s %s: %.17g, numpy %.17g", topic, k, gf, ws1)
			}
		}
	}
}

func jsonString(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonFloat(v any) float64 {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err == nil {
			return f
		}
	case string:
		if x == "NaN" {
			return math.NaN()
		}
	}
	return math.Inf(1)
}

// TestTopicsPeer: the topic statistics of baglab equal numpy's over an
// independent reader's messages — Debian rosbag for ROS1 bags, npm
// @mcap/core with @foxglove/rosmsg2-serialization for a ROS2 (CDR) MCAP —
// for a recording with jitter, gaps, latencies, stamps going backwards
// and duplicates, with the default gap threshold and with --gap, and for
// the generated study.
func TestTopicsPeer(t *testing.T) {
	dir := t.TempDir()
	study := studytest.Dir(t, studygen.Options{Seed: 9, Sessions: 4})
	for _, c := range []struct {
		name string
		ros2 bool
		file string
	}{{"ros1 bag", false, "health.bag"}, {"ros2 mcap", true, "health.mcap"}, {"study", false, ""}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(study, "study.bag")
			if c.file != "" {
				path = filepath.Join(dir, c.file)
				writeHealth(t, path, c.ros2)
			}
			for _, gap := range []float64{0, 0.05} {
				got := topicsOf(t, []string{path}, int64(gap*1e9))
				want := topicsPeer(t, path, gap)
				compareTopics(t, got, want)
				if c.file != "" && gap == 0 {
					imu := got["/imu"]
					for k, v := range map[string]string{"count": "1001", "stamps_backwards": "2", "duplicates": "1", "stamped": "1001", "gaps": "1"} {
						if jsonString(imu[k]) != v {
							t.Errorf("/imu %s = %v, want %s", k, imu[k], v)
						}
					}
					if d := jsonString(got["/status"]["duplicates"]); d != "33" {
						t.Errorf("/status duplicates = %s, want 33", d)
					}
				}
			}
		})
	}
}
