package foxglove

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// npmLine is one line wsclient.cjs prints.
type npmLine struct {
	ServerInfo  map[string]any  `json:"serverInfo"`
	Channel     *Channel        `json:"channel"`
	Topic       string          `json:"topic"`
	LogTime     json.Number     `json:"logTime"`
	Message     json.RawMessage `json:"message"`
	Same        any             `json:"same"` // true, false or "non-ascii"
	DecodeError string          `json:"decodeError"`
	Error       string          `json:"error"`
	Done        bool            `json:"done"`
	Timeout     bool            `json:"timeout"`
}

// npmClient runs Foxglove's npm client against url until it has count
// messages.
func npmClient(t *testing.T, url string, count int) []npmLine {
	t.Helper()
	cmd := exec.Command("node", filepath.Join("testdata", "wsclient.cjs"), testenv.NodeDir(t), url, itoa(int64(count)), "20000")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wsclient.cjs: %v\n%s", err, stderr.String())
	}
	var lines []npmLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l npmLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if l.Error != "" || l.DecodeError != "" || l.Timeout {
			t.Errorf("npm client: %s", sc.Text())
		}
		lines = append(lines, l)
	}
	return lines
}

// TestNPMClient: Foxglove's own npm client (@foxglove/ws-protocol over ws,
// subprotocol foxglove.websocket.v1) subscribes to every channel of a ROS1
// bag, a rosbag2 database (CDR) and a test bag; Foxglove's ROS1 and ROS2
// deserializers decode every message from the advertised schema and write
// it back to the very bytes sent; the texts and log times are those
// recorded.
func TestNPMClient(t *testing.T) {
	testenv.RequirePeer(t, "node", "ws-protocol")
	root := testenv.Root(t)
	for _, path := range []string{
		filepath.Join(root, "testdata", "sample", "all_types.bag"),
		filepath.Join(root, "testdata", "sample", "all_types_ros2.db3"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sum := in.Summary()
			in.Close()
			url, _ := startServer(t, []string{path}, PlaybackOptions{Speed: 10}, Options{})
			lines := npmClient(t, url, int(sum.MessageCount))
			counts := map[string]int{}
			var channels int
			for _, l := range lines {
				if l.Channel != nil {
					channels++
					want := map[string]string{"ros1": "ros1msg", "cdr": "ros2msg"}[l.Channel.Encoding]
					if l.Channel.SchemaEncoding != want || l.Channel.SchemaName == "" {
						t.Errorf("channel %+v", l.Channel)
					}
				}
				if l.Topic != "" {
					counts[l.Topic]++
					switch l.Same {
					case true:
					case "non-ascii":
						t.Logf("%s at %s: not compared (npm's writer sizes non-ASCII strings wrongly): %s", l.Topic, l.LogTime, l.Message)
					default:
						t.Errorf("%s at %s: written back, the decoded message differs from the bytes sent", l.Topic, l.LogTime)
					}
				}
			}
			if channels != len(sum.Topics) {
				t.Errorf("%d channels advertised, %d topics", channels, len(sum.Topics))
			}
			for _, ts := range sum.Topics {
				if counts[ts.Topic] != int(ts.MessageCount) {
					t.Errorf("%s: npm client got %d messages, recorded %d", ts.Topic, counts[ts.Topic], ts.MessageCount)
				}
			}
		})
	}
	t.Run("texts", func(t *testing.T) {
		path := writeRecording(t, "in.bag", []msg{{"/a", 0, "zero"}, {"/b", 10, "ten"}, {"/a", 20, "twenty"}})
		url, _ := startServer(t, []string{path}, PlaybackOptions{}, Options{})
		var got []string
		for _, l := range npmClient(t, url, 3) {
			if l.Topic != "" {
				var m struct{ Data string }
				json.Unmarshal(l.Message, &m)
				got = append(got, l.Topic+"@"+string(l.LogTime)+"="+m.Data)
			}
		}
		want := "/a@1700000000000000000=zero /b@1700000000010000000=ten /a@1700000000020000000=twenty"
		if strings.Join(got, " ") != want {
			t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
		}
	})
	// A payload of streamBody or more goes as a message of several
	// frames (header, then payload), which ws reassembles.
	t.Run("a message of several frames", func(t *testing.T) {
		big := strings.Repeat("0123456789abcdef", 3<<20/32)
		path := writeRecording(t, "big.bag", []msg{{"/big", 0, big}, {"/small", 10, "after"}})
		url, _ := startServer(t, []string{path}, PlaybackOptions{}, Options{})
		var got []string
		for _, l := range npmClient(t, url, 2) {
			if l.Topic != "" {
				var m struct{ Data string }
				json.Unmarshal(l.Message, &m)
				if l.Same != true {
					t.Errorf("%s: written back, the decoded message differs from the bytes sent", l.Topic)
				}
				got = append(got, fmt.Sprintf("%s=%d:%v", l.Topic, len(m.Data), m.Data == big || m.Data == "after"))
			}
		}
		if want := fmt.Sprintf("/big=%d:true /small=5:true", len(big)); strings.Join(got, " ") != want {
			t.Errorf("got %s, want %s", strings.Join(got, " "), want)
		}
	})
}

// pyEvent is one line wsdrive.py prints.
type pyEvent struct {
	T           float64 `json:"t"`
	Op          string  `json:"op"`
	Step        int     `json:"step"`
	Topic       string  `json:"topic"`
	LogTime     int64   `json:"log_time"`
	Data        string  `json:"data"`
	NS          int64   `json:"ns"`
	Status      string  `json:"status"`
	CurrentTime int64   `json:"current_time"`
	Speed       float64 `json:"speed"`
	DidSeek     bool    `json:"did_seek"`
	RequestID   string  `json:"request_id"`
	Message     string  `json:"message"`
}

func (e pyEvent) text() string {
	b, _ := hex.DecodeString(e.Data)
	if len(b) < 4 {
		return ""
	}
	return string(b[4:])
}

// TestPythonClientControl: a client written from the protocol's layouts
// (Debian python3-websockets, foxglove.sdk.v1) plays, pauses, seeks back
// at double speed, and plays to the end, checking the answers' status,
// times, speed and didSeek, the Time messages, the latched topic re-sent
// after the seek, and the pace.
func TestPythonClientControl(t *testing.T) {
	testenv.RequirePeer(t, "websockets")
	msgs := append([]msg{{"/map", 0, "map0"}, {"/map", 300, "map1"}}, ticks(100, 1000)...)
	path := writeRecording(t, "in.bag", msgs, "/map")
	url, _ := startServer(t, []string{path}, PlaybackOptions{Paused: true}, Options{})
	steps := `[{"subscribe": "*"},
		{"control": "play", "speed": 1.0, "seek": null, "id": "play-1"},
		{"sleep": 0.45},
		{"control": "pause", "speed": 1.0, "seek": null, "id": "pause-1"},
		{"sleep": 0.3},
		{"control": "play", "speed": 2.0, "seek": 1700000000650000000, "id": "seek-1"},
		{"until_ended": 5}]`
	cmd := exec.Command(testenv.Python, filepath.Join("testdata", "wsdrive.py"), url, steps)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wsdrive.py: %v\n%s", err, stderr.String())
	}
	var evs []pyEvent
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var e pyEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		evs = append(evs, e)
	}
	state := func(id string) (pyEvent, int) {
		for i, e := range evs {
			if e.Op == "state" && e.RequestID == id {
				return e, i
			}
		}
		t.Fatalf("no answer to %s", id)
		return pyEvent{}, 0
	}
	play, iPlay := state("play-1")
	if play.Status != "Playing" || play.CurrentTime != t0 || play.Speed != 1 || play.DidSeek {
		t.Errorf("play answer %+v", play)
	}
	pause, iPause := state("pause-1")
	if pause.Status != "Paused" || pause.CurrentTime < t0+350e6 || pause.CurrentTime > t0+600e6 || pause.DidSeek {
		t.Errorf("pause answer %+v (0.45 s after play)", pause)
	}
	seek, iSeek := state("seek-1")
	if seek.Status != "Playing" || seek.CurrentTime != t0+650e6 || seek.Speed != 2 || !seek.DidSeek {
		t.Errorf("seek answer %+v", seek)
	}
	var before, paused, after []string
	var lastTime int64
	for i, e := range evs {
		switch {
		case e.Op == "message" && i < iPlay:
			t.Errorf("message before play: %+v", e)
		case e.Op == "message" && i < iPause:
			before = append(before, e.text())
		case e.Op == "message" && i < iSeek:
			paused = append(paused, e.text())
		case e.Op == "message":
			after = append(after, e.text())
		}
		if e.Op == "time" {
			if i > iSeek && e.NS < seek.CurrentTime {
				t.Errorf("Time %d after the seek to %d", e.NS, seek.CurrentTime)
			}
			if i < iSeek && e.NS < lastTime {
				t.Errorf("Time went back: %d after %d", e.NS, lastTime)
			}
			lastTime = e.NS
		}
		if e.Op == "message" && i > iSeek && e.Topic == "/tick" && e.LogTime < seek.CurrentTime {
			t.Errorf("message at %d after the seek to %d", e.LogTime, seek.CurrentTime)
		}
	}
	if len(paused) > 1 { // one may be on its way as the pause is asked
		t.Errorf("messages while paused: %q", paused)
	}
	if got := strings.Join(before, " "); !strings.HasPrefix(got, "map0 0 100 200 map1 300 400") {
		t.Errorf("before the pause: %s", got)
	}
	if got := strings.Join(after, " "); got != "map1 700 800 900 1000" {
		t.Errorf("after the seek: %s, want the latched map1 again, then 700 to 1000", got)
	}
	end := evs[len(evs)-1]
	if end.Op != "state" || end.Status != "Ended" || end.CurrentTime != t0+1000e6 || end.RequestID != "" {
		t.Errorf("last event %+v, want the unsolicited Ended", end)
	}
	// 0.35 s of recording at speed 2.
	if el := end.T - evs[iSeek].T; el < 0.15 || el > 0.6 {
		t.Errorf("650 ms → 1000 ms at speed 2 took %.3f s", el)
	}
}
