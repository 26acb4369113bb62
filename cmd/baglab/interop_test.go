package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/foxglove/mcap/go/mcap"
)

// rosbagDump prints, per message of a bag read by Debian's rosbag (genpy
// classes built from the connection headers), its topic, type, time and a
// few fields the test names.
const rosbagDump = `
import json, sys, rosbag
out = []
with rosbag.Bag(sys.argv[1]) as bag:
    for topic, msg, t in bag.read_messages():
        row = {"topic": topic, "type": msg._type, "t": t.to_nsec(), "fields": len(msg.__slots__)}
        if msg._type == "remap_msgs/Query_Event":
            row["seq"] = msg.info.sequence_number
            row["event_type"] = msg.info.event_type
            row["ids"] = [r.id for r in msg.request]
            row["patterns"] = [list(r.patterns) for r in msg.request]
            row["success"] = [r.success for r in msg.response]
        if msg._type == "lama_msgs/LamaObject":
            row["name"] = msg.name
            row["references"] = list(msg.references)
        out.append(row)
print(json.dumps(out))
`

type rosbagRow struct {
	Topic      string     `json:"topic"`
	Fields     int        `json:"fields"`
	Type       string     `json:"type"`
	T          int64      `json:"t"`
	Seq        int64      `json:"seq"`
	EventType  int        `json:"event_type"`
	IDs        []string   `json:"ids"`
	Patterns   [][]string `json:"patterns"`
	Success    []bool     `json:"success"`
	Name       string     `json:"name"`
	References []int32    `json:"references"`
}

func readWithRosbag(t *testing.T, path string) []rosbagRow {
	t.Helper()
	testenv.RequirePeer(t, "rosbag")
	cmd := exec.Command(testenv.Python, "-c", rosbagDump, path)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("rosbag read %s: %v\n%s", path, err, stderr)
	}
	var rows []rosbagRow
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestConvertedBagsReadByRosbag: bags baglab writes from MCAP and from ROS2
// (CDR re-encoded as ROS1) are read by Debian's rosbag with the values cat
// shows.
func TestConvertedBagsReadByRosbag(t *testing.T) {
	dir := t.TempDir()
	fromMCAP := filepath.Join(dir, "study.bag")
	fromROS2 := filepath.Join(dir, "queries.bag")
	for _, c := range [][]string{
		{"convert", studyFile("study.mcap"), fromMCAP, "--compression", "bz2"},
		{"convert", studyFile("queries.db3"), fromROS2, "--compression", "lz4"},
	} {
		if _, stderr, code := run(t, c...); code != 0 {
			t.Fatalf("%v: %s", c, stderr)
		}
	}

	rows := readWithRosbag(t, fromMCAP)
	if len(rows) != len(study.ROS1) {
		t.Fatalf("rosbag read %d messages, generated %d", len(rows), len(study.ROS1))
	}
	var lama []rosbagRow
	for _, r := range rows {
		if r.Type == "lama_msgs/LamaObject" {
			lama = append(lama, r)
		}
	}
	if len(lama) != study.Truth.Vertices+study.Truth.Edges || lama[0].Name != "place_1" {
		t.Errorf("LaMa objects through rosbag: %+v", lama)
	}
	if last := lama[len(lama)-1]; last.References[1] != 99 {
		t.Errorf("last edge references %v, want the dangling vertex 99", last.References)
	}

	rows = readWithRosbag(t, fromROS2)
	out, _, _ := run(t, "cat", studyFile("queries.db3"))
	lines := parseCat(t, out)
	if len(rows) != len(lines) || len(rows) == 0 {
		t.Fatalf("rosbag read %d messages, cat %d", len(rows), len(lines))
	}
	events := 0
	for i, r := range rows {
		if r.T != lines[i].LogTimeNs || r.Topic != lines[i].Topic {
			t.Errorf("message %d: %s at %d, cat has %s at %d", i, r.Topic, r.T, lines[i].Topic, lines[i].LogTimeNs)
		}
		if r.Type != "remap_msgs/Query_Event" {
			continue
		}
		events++
		var ev struct {
			Info struct {
				EventType int   `json:"event_type"`
				Seq       int64 `json:"sequence_number"`
			} `json:"info"`
			Request []struct {
				ID       string   `json:"id"`
				Patterns []string `json:"patterns"`
			} `json:"request"`
			Response []struct {
				Success bool `json:"success"`
			} `json:"response"`
		}
		if err := json.Unmarshal(lines[i].Message, &ev); err != nil {
			t.Fatal(err)
		}
		if r.Seq != ev.Info.Seq || r.EventType != ev.Info.EventType || len(r.IDs) != len(ev.Request) || len(r.Success) != len(ev.Response) {
			t.Errorf("event %d: rosbag %+v, cat %s", i, r, lines[i].Message)
			continue
		}
		for k := range ev.Request {
			if r.IDs[k] != ev.Request[k].ID || len(r.Patterns[k]) != len(ev.Request[k].Patterns) || r.Patterns[k][0] != ev.Request[k].Patterns[0] {
				t.Errorf("event %d request: rosbag %v %v, cat %s", i, r.IDs, r.Patterns, lines[i].Message)
			}
		}
		for k := range ev.Response {
			if r.Success[k] != ev.Response[k].Success {
				t.Errorf("event %d response: rosbag %v, cat %s", i, r.Success, lines[i].Message)
			}
		}
	}
	if events != 2*study.Truth.Queries.Requests {
		t.Errorf("%d service events, want %d", events, 2*study.Truth.Queries.Requests)
	}

	// A real rosbag2 recording whose definitions carry ROS2 constants
	// (bool true, quoted strings): genpy must accept the ROS1 definitions.
	fromRosbag2 := filepath.Join(dir, "cdr_test.bag")
	if _, stderr, code := run(t, "convert", testenv.Fixtures(t, "rosbag2", "rosbag2_tests", "cdr_test"), fromRosbag2); code != 0 {
		t.Fatal(stderr)
	}
	rows = readWithRosbag(t, fromRosbag2)
	if len(rows) != 7 {
		t.Errorf("rosbag read %d messages of cdr_test, want 7", len(rows))
	}
	for _, r := range rows {
		if r.Fields == 0 {
			t.Errorf("%s (%s): rosbag built a class without fields: its definition did not load", r.Topic, r.Type)
		}
	}
}

// TestConvertedMCAPReadByLibrary: MCAP that baglab writes from a bag is read
// by the foxglove mcap library's own reader with the same message bytes.
func TestConvertedMCAPReadByLibrary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "study.mcap")
	if _, stderr, code := run(t, "convert", studyFile("study-bz2.bag"), out, "--compression", "lz4"); code != 0 {
		t.Fatal(stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Messages(mcap.UsingIndex(true), mcap.InOrder(mcap.LogTimeOrder))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{}
	for _, e := range study.ROS1 {
		want[e.Topic] = append(want[e.Topic], e.LogTime)
	}
	got := map[string][]int64{}
	n := 0
	for {
		schema, ch, m, err := it.NextInto(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if schema.Encoding != "ros1msg" || ch.MessageEncoding != "ros1" || len(schema.Data) == 0 {
			t.Fatalf("channel %s: schema %s/%s, encoding %s", ch.Topic, schema.Name, schema.Encoding, ch.MessageEncoding)
		}
		got[ch.Topic] = append(got[ch.Topic], int64(m.LogTime))
		n++
	}
	if n != len(study.ROS1) {
		t.Fatalf("library read %d messages, want %d", n, len(study.ROS1))
	}
	for topic, times := range want {
		if len(got[topic]) != len(times) || got[topic][0] != times[0] || got[topic][len(times)-1] != times[len(times)-1] {
			t.Errorf("%s: library read %d messages (%v…), want %d", topic, len(got[topic]), got[topic][:min(2, len(got[topic]))], len(times))
		}
	}
}
