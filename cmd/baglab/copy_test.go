package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestCopyFailureLeavesNoFolder: a convert or merge that fails (exit 3, an
// MCAP file whose chunk CRC fails) takes away the folders recording.Create
// made for its output, and keeps the empty folder that was there before.
func TestCopyFailureLeavesNoFolder(t *testing.T) {
	crc := studyFile("broken/study-crc.mcap")
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"convert", func(out string) []string { return []string{"convert", crc, out + ".bag"} }},
		{"merge", func(out string) []string { return []string{"merge", out + ".mcap", studyFile("study.mcap"), crc} }},
	} {
		t.Run(c.name, func(t *testing.T) { failureLeavesNoFolder(t, c.name, c.args) })
	}
}

// failureLeavesNoFolder runs the command args gives for an output out in
// missing folders under an empty folder that exists; the run must fail
// with bad input (exit 3) and leave that folder there and empty.
func failureLeavesNoFolder(t *testing.T, verb string, args func(out string) []string) {
	t.Helper()
	before := filepath.Join(t.TempDir(), "before")
	if err := os.Mkdir(before, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, args(filepath.Join(before, "new", "deeper", "out"))...)
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, stderr)
	}
	if ents, err := os.ReadDir(before); err != nil || len(ents) != 0 {
		t.Errorf("%s after the failed %s: %d entries (%v), want it there and empty", before, verb, len(ents), err)
	}
}

// rosbagPeer runs recording/bag/testdata/rosbag_peer.py (Debian rosbag) with
// args and decodes what it prints into v.
func rosbagPeer(t *testing.T, v any, args ...string) {
	t.Helper()
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	script := filepath.Join(testenv.Root(t), "recording", "bag", "testdata", "rosbag_peer.py")
	cmd := exec.Command(testenv.Python, append([]string{script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rosbag_peer.py %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatal(err)
	}
}

// rosbagTopicCounts is the message count of each topic of bag, as
// Debian's rosbag reads it (rosbag_peer.py topics).
func rosbagTopicCounts(t *testing.T, bag string) map[string]int {
	t.Helper()
	var per []struct {
		Topics map[string]struct{ Count int } `json:"topics"`
	}
	rosbagPeer(t, &per, "topics", bag)
	counts := map[string]int{}
	for topic, c := range per[0].Topics {
		counts[topic] = c.Count
	}
	return counts
}

// peerBag is what rosbag_peer.py's read prints of a bag.
type peerBag struct {
	Connections []struct {
		Topic  string            `json:"topic"`
		Header map[string]string `json:"header"`
	} `json:"connections"`
	Messages []struct {
		Topic  string `json:"topic"`
		TimeNs int64  `json:"time_ns"`
		Raw    string `json:"raw"`
	} `json:"messages"`
}

// TestMergeSharesConnections: merging two bags of one recording (the
// split bags of rosbag record, here the same bag written twice by Debian
// rosbag: two publishers of /x, a /y recorded from a publisher of
// /orig_y, a /z with a field rosbag does not know) gives one connection
// per distinct connection header, as rosbag's writer keeps them, and
// every message of both. The MCAP output, read by npm @mcap/core, has one
// channel per distinct channel. So it is when the second bag is converted
// to MCAP first. Before, each input's connections were written again (/x
// "(4 connections)" in rosbag info).
func TestMergeSharesConnections(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bag"), filepath.Join(dir, "b.bag")
	var want peerBag
	rosbagPeer(t, &want, "headers", a)
	rosbagPeer(t, &struct{}{}, "headers", b)

	// b's conversion to MCAP holds the same connections, the MD5 sum in
	// the channel metadata.
	bMCAP := filepath.Join(dir, "b.mcap")
	if _, stderr, code := run(t, "convert", b, bMCAP); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	for _, second := range []string{b, bMCAP} {
		out := filepath.Join(dir, "merged-"+filepath.Ext(second)[1:]+".bag")
		if _, stderr, code := run(t, "merge", out, a, second); code != 0 {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
		var got peerBag
		rosbagPeer(t, &got, "read", out)
		if len(got.Connections) != len(want.Connections) {
			t.Fatalf("merge of %s: rosbag reads %d connections, want %d (those of each input): %v", second, len(got.Connections), len(want.Connections), got.Connections)
		}
		for i, c := range got.Connections {
			if w := want.Connections[i]; c.Topic != w.Topic || !maps.Equal(c.Header, w.Header) {
				t.Errorf("merge of %s: connection %d: %s %v, want %s %v", second, i, c.Topic, c.Header, w.Topic, w.Header)
			}
		}
		if len(got.Messages) != 2*len(want.Messages) {
			t.Fatalf("merge of %s: rosbag reads %d messages, want %d", second, len(got.Messages), 2*len(want.Messages))
		}
		for i, m := range got.Messages {
			if w := want.Messages[i/2]; m != w {
				t.Errorf("merge of %s: message %d: %v, want %v", second, i, m, w)
			}
		}
	}

	testenv.RequirePeer(t, "mcap")
	outMCAP := filepath.Join(dir, "merged.mcap")
	if _, stderr, code := run(t, "merge", outMCAP, a, bMCAP); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	cmd := exec.Command("node", filepath.Join(testenv.Root(t), "recording", "mcapfile", "testdata", "mcapdump.cjs"), testenv.NodeDir(t), outMCAP)
	dump, err := cmd.Output()
	if err != nil {
		t.Fatalf("@mcap/core: %v", err)
	}
	var m struct {
		Channels []struct {
			Topic    string            `json:"topic"`
			Metadata map[string]string `json:"metadata"`
		} `json:"channels"`
		Messages []struct{} `json:"messages"`
	}
	if err := json.Unmarshal(dump, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Channels) != len(want.Connections) || len(m.Messages) != 2*len(want.Messages) {
		t.Fatalf("@mcap/core reads %d channels and %d messages, want %d and %d: %v", len(m.Channels), len(m.Messages),
			len(want.Connections), 2*len(want.Messages), m.Channels)
	}
	for i, c := range m.Channels {
		if w := want.Connections[i]; c.Topic != w.Topic || c.Metadata["callerid"] != w.Header["callerid"] {
			t.Errorf("channel %d: %s %v, want %s callerid %q", i, c.Topic, c.Metadata, w.Topic, w.Header["callerid"])
		}
	}
}

// mcapWithSequences is a mcapByNode body: 20 ros1 messages on two channels
// of /a, with sequence 1000+i and publish times apart from their log times.
const mcapWithSequences = `
  const w = new McapWriter({ writable, chunkSize: 200 });
  await w.start({ profile: "ros1", library: "test" });
  const s = await w.registerSchema({ name: "std_msgs/String", encoding: "ros1msg", data: Buffer.from("string data\n") });
  const md5 = ["md5sum", "992ce8a1687cec8c8bd883ec73ca41d1"];
  const c1 = await w.registerChannel({ topic: "/a", messageEncoding: "ros1", schemaId: s, metadata: new Map([["callerid", "/n1"], md5]) });
  const c2 = await w.registerChannel({ topic: "/a", messageEncoding: "ros1", schemaId: s, metadata: new Map([["callerid", "/n2"], md5]) });
  for (let i = 0; i < 20; i++) {
    const txt = Buffer.from("m" + i);
    const data = Buffer.concat([Buffer.from([txt.length, 0, 0, 0]), txt]);
    await w.addMessage({ channelId: i % 2 ? c2 : c1, sequence: 1000 + i, logTime: BigInt(5e9 + Math.floor(i / 4) * 1e9), publishTime: BigInt(4e9 + i), data });
  }
`

// mcapMessage is a message as testdata/mcapdump.cjs prints it.
type mcapMessage struct {
	ChannelID   int    `json:"channelId"`
	Sequence    uint32 `json:"sequence"`
	LogTime     string `json:"logTime"`
	PublishTime string `json:"publishTime"`
	Data        string `json:"data"`
}

// readMCAPMessages reads the messages of an MCAP file with npm @mcap/core.
func readMCAPMessages(t *testing.T, path string) []mcapMessage {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(testenv.Root(t), "recording", "mcapfile", "testdata", "mcapdump.cjs"), testenv.NodeDir(t), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("@mcap/core %s: %v\n%s", path, err, stderr.String())
	}
	var d struct {
		Messages []mcapMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return d.Messages
}

// TestFilterKeepsMCAPSequence: filter and merge of MCAP files written by
// npm @mcap/core keep each message's sequence (the writer's own counter,
// as mcap filter and mcap merge keep it), its publish time and its data,
// as @mcap/core reads them from the input. Before, the copy numbered the
// messages it wrote from 0.
func TestFilterKeepsMCAPSequence(t *testing.T) {
	testenv.RequirePeer(t, "mcap")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	mcapByNode(t, mcapWithSequences, src)
	in := readMCAPMessages(t, src)
	if len(in) != 20 {
		t.Fatalf("@mcap/core wrote %d messages, want 20", len(in))
	}
	filtered := filepath.Join(dir, "filtered.mcap")
	if _, stderr, code := run(t, "filter", src, filtered, "--start", "6"); code != 0 {
		t.Fatalf("filter: exit %d: %s", code, stderr)
	}
	merged := filepath.Join(dir, "merged.mcap")
	if _, stderr, code := run(t, "merge", merged, src, filtered); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	// The window from 6 s keeps the messages from the fifth on (four per
	// second from 5 s); the merge has those of src, each followed by its
	// copy in filtered (equal times keep the order of the inputs).
	var wantMerged []mcapMessage
	for i, m := range in {
		wantMerged = append(wantMerged, m)
		if i >= 4 && i%4 == 3 {
			wantMerged = append(wantMerged, in[i-3:i+1]...)
		}
	}
	for _, c := range []struct {
		path string
		want []mcapMessage
	}{{filtered, in[4:]}, {merged, wantMerged}} {
		got := readMCAPMessages(t, c.path)
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d messages, want %d", filepath.Base(c.path), len(got), len(c.want))
		}
		for i, m := range got {
			w := c.want[i]
			if m.Sequence != w.Sequence || m.LogTime != w.LogTime || m.PublishTime != w.PublishTime || m.Data != w.Data {
				t.Errorf("%s: message %d = %+v, want %+v", filepath.Base(c.path), i, m, w)
			}
		}
	}
}

// TestFilterWindowAsRosbagFilter: filter --help gives the rosbag filter
// expression that --start and --end match (--end exclusive); with the
// window's edges on message stamps, Debian rosbag filter with that
// expression keeps the messages baglab filter keeps, in order.
func TestFilterWindowAsRosbagFilter(t *testing.T) {
	const start, end = "1700000003", "1700000007"
	expr := "t.to_sec() >= S and t.to_sec() < E"
	help, _, code := run(t, "filter", "--help")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(help), " "), `rosbag filter IN OUT "`+expr+`"`) {
		t.Fatalf("filter --help (exit %d) does not give the rosbag filter expression %q:\n%s", code, expr, help)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bag")
	var in peerBag
	rosbagPeer(t, &in, "headers", src)
	theirs, ours := filepath.Join(dir, "rosbag.bag"), filepath.Join(dir, "baglab.bag")
	rosbagExpr := strings.NewReplacer("S", start, "E", end).Replace(expr)
	if out, err := exec.Command(testenv.Python, "/usr/bin/rosbag", "filter", src, theirs, rosbagExpr).CombinedOutput(); err != nil {
		t.Fatalf("rosbag filter: %v\n%s", err, out)
	}
	if _, stderr, code := run(t, "filter", src, ours, "--start", start, "--end", end); code != 0 {
		t.Fatalf("filter: exit %d: %s", code, stderr)
	}
	var want, got peerBag
	rosbagPeer(t, &want, "read", theirs)
	rosbagPeer(t, &got, "read", ours)
	if len(want.Messages) != 4 || !slices.Equal(got.Messages, want.Messages) {
		t.Errorf("baglab filter kept %v, rosbag filter %v (want the 4 messages from 3 s to 6 s)", got.Messages, want.Messages)
	}
}

// mcapWithEmptyChannel is a mcapByNode body: 3 ros1 messages on /a and a
// channel /empty (the same type) without messages.
const mcapWithEmptyChannel = `
  const w = new McapWriter({ writable });
  await w.start({ profile: "ros1", library: "test" });
  const s = await w.registerSchema({ name: "std_msgs/String", encoding: "ros1msg", data: Buffer.from("string data\n") });
  const md5 = new Map([["md5sum", "992ce8a1687cec8c8bd883ec73ca41d1"]]);
  const a = await w.registerChannel({ topic: "/a", messageEncoding: "ros1", schemaId: s, metadata: md5 });
  await w.registerChannel({ topic: "/empty", messageEncoding: "ros1", schemaId: s, metadata: md5 });
  for (let i = 0; i < 3; i++) {
    const txt = Buffer.from("m" + i);
    const data = Buffer.concat([Buffer.from([txt.length, 0, 0, 0]), txt]);
    await w.addMessage({ channelId: a, sequence: i, logTime: BigInt(5e9 + i * 1e9), publishTime: BigInt(5e9 + i * 1e9), data });
  }
`

// TestEmptyTopicSurvivesCopy: a channel without messages, in an MCAP file
// written by npm @mcap/core, is listed by info with 0 messages, kept by
// convert to a bag (a connection record in the index section only), and
// the bag and its conversion back to MCAP give the same info topics as
// the source. Debian rosbag reads the bag, its 3 messages and /a; it
// leaves /empty out on purpose (bag.py drops "connections with no
// entries" as it reads the index), so it is not asked to list it. Before,
// convert dropped the channel, and a bag summary dropped a connection
// without messages where MCAP and db3 listed it with count 0.
func TestEmptyTopicSurvivesCopy(t *testing.T) {
	testenv.RequirePeer(t, "mcap")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	mcapByNode(t, mcapWithEmptyChannel, src)
	type topic struct {
		Topic        string `json:"topic"`
		Type         string `json:"type"`
		MessageCount int    `json:"message_count"`
		StartNs      int64  `json:"start_ns"`
	}
	infoTopics := func(path string) []topic {
		t.Helper()
		out, stderr, code := run(t, "info", "--json", path)
		if code != 0 {
			t.Fatalf("info %s: exit %d: %s", path, code, stderr)
		}
		var s struct {
			Topics []topic `json:"topics"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s.Topics
	}
	want := []topic{{"/a", "std_msgs/String", 3, 5e9}, {"/empty", "std_msgs/String", 0, 0}}
	if got := infoTopics(src); !slices.Equal(got, want) {
		t.Fatalf("info of the source: %v, want %v", got, want)
	}
	bagOut, back := filepath.Join(dir, "out.bag"), filepath.Join(dir, "back.mcap")
	for _, c := range [][2]string{{src, bagOut}, {bagOut, back}} {
		if _, stderr, code := run(t, "convert", c[0], c[1]); code != 0 {
			t.Fatalf("convert %s: exit %d: %s", c[1], code, stderr)
		}
		if got := infoTopics(c[1]); !slices.Equal(got, want) {
			t.Errorf("info of %s: %v, want %v (the source's)", filepath.Base(c[1]), got, want)
		}
	}
	var got peerBag
	rosbagPeer(t, &got, "read", bagOut)
	var topics []string
	for _, c := range got.Connections {
		topics = append(topics, c.Topic)
	}
	slices.Sort(topics)
	if !slices.Equal(topics, []string{"/a"}) || len(got.Messages) != 3 {
		t.Errorf("rosbag reads connections %v and %d messages, want /a and 3", topics, len(got.Messages))
	}
}

// mcapByNode writes path with npm @mcap/core's McapWriter (an independent
// MCAP writer): body runs between the writer's setup and its end, with
// McapWriter and writable in scope, and must make the writer w and start
// it.
func mcapByNode(t *testing.T, body, path string) {
	t.Helper()
	const prologue = `const path = require("path");
const fs = require("fs");
const req = require("module").createRequire(path.join(path.resolve(process.argv[1]), "package.json"));
const { McapWriter } = req("@mcap/core");
const chunks = [];
let pos = 0n;
const writable = { position: () => pos, write: async (b) => { chunks.push(Buffer.from(b)); pos += BigInt(b.byteLength); } };
(async () => {
`
	const epilogue = `  await w.end();
  fs.writeFileSync(process.argv[2], Buffer.concat(chunks));
})();
`
	if out, err := exec.Command("node", "-e", prologue+body+epilogue, testenv.NodeDir(t), path).CombinedOutput(); err != nil {
		t.Fatalf("@mcap/core writer: %v\n%s", err, out)
	}
}
