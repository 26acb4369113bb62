package mcapfile

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/internal/testenv"
)

// peerWrite writes the named case of testdata/mcapwrite.cjs with the npm
// @mcap/core writer into a temporary file and returns its path.
func peerWrite(t *testing.T, name string) string {
	t.Helper()
	testenv.RequirePeer(t, "mcap")
	path := filepath.Join(t.TempDir(), name+".mcap")
	cmd := exec.Command("node", filepath.Join("testdata", "mcapwrite.cjs"), testenv.NodeDir(t), path, name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm @mcap/core could not write %s: %v\n%s", name, err, stderr.String())
	}
	return path
}

// npmMessages are the messages of d as msgKeys.
func npmMessages(t *testing.T, d *npmDump) []msgKey {
	t.Helper()
	var out []msgKey
	for _, m := range d.Messages {
		data, err := hex.DecodeString(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msgKey{uint32(m.ChannelID), m.Sequence, mustAtoi(t, m.LogTime), mustAtoi(t, m.PublishTime), string(data)})
	}
	return out
}

// TestPeerSummaryWithoutDefinitions reads a file whose summary indexes the
// chunks but repeats neither schemas nor channels (@mcap/core's writer with
// repeatSchemas and repeatChannels false): McapIndexedReader reads it in
// log time order, and so does baglab, through the index, with the
// definitions taken from the chunks. It used to be read linearly, in file
// order, and doctor said the summary did not index the messages.
func TestPeerSummaryWithoutDefinitions(t *testing.T) {
	path := peerWrite(t, "summary-without-definitions")
	d := npmRead(t, path)
	want := npmMessages(t, d)
	if len(want) != 30 || len(d.Channels) != 0 || len(d.Schemas) != 0 {
		t.Fatalf("npm read %d messages, %d channels, %d schemas in the summary; want 30, 0, 0", len(want), len(d.Channels), len(d.Schemas))
	}
	for i := 1; i < len(want); i++ {
		if want[i].LogTime < want[i-1].LogTime {
			t.Fatalf("npm messages not in log time order at %d", i)
		}
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if ok, why := r.Indexed(); !ok {
		t.Errorf("read linearly: %s", why)
	}
	if got := readAll(t, r, record.Filter{}); !equalMsgs(got, want) {
		t.Errorf("messages\n got %v\nwant %v", got, want)
	}
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 || chs[0].Topic != "/chatter" || chs[0].Schema.Name != "std_msgs/String" || chs[1].Topic != "/point" || chs[1].Schema.Name != "geometry_msgs/PointStamped" {
		t.Errorf("channels %+v", chs)
	}
	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if sum.MessageCount != 30 || sum.StartNs != want[0].LogTime || sum.EndNs != want[len(want)-1].LogTime || sum.Unindexed != "" {
		t.Errorf("summary %d messages [%d, %d] (unindexed %q), want 30 [%d, %d]", sum.MessageCount, sum.StartNs, sum.EndNs, sum.Unindexed, want[0].LogTime, want[len(want)-1].LogTime)
	}
	if probs, err := Check(path); err != nil || len(probs) != 0 {
		t.Errorf("Check: %v %v", probs, err)
	}
}

// TestPeerUnchunkedMetadata reads a file that @mcap/core's writer wrote
// without chunks, with a metadata record and an attachment each after
// messages: its metadata and attachment indexes give the offsets of those
// messages. McapStreamReader reads every record; so does baglab, taking
// the metadata and attachments from the data section where the index entry
// does not point at its record, and doctor reports both entries. Metadata
// and Attachments used to fail, and with them `baglab info`.
func TestPeerUnchunkedMetadata(t *testing.T) {
	path := peerWrite(t, "unchunked-metadata")
	d := npmRead(t, path, "stream")
	if len(d.Metadata) != 2 || len(d.Attachments) != 1 || len(d.Messages) != 10 {
		t.Fatalf("npm read %d metadata records, %d attachments, %d messages; want 2, 1, 10", len(d.Metadata), len(d.Attachments), len(d.Messages))
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, want := readAll(t, r, record.Filter{}), npmMessages(t, d); !equalMsgs(got, want) {
		t.Errorf("messages\n got %v\nwant %v", got, want)
	}
	mds, err := r.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	if len(mds) != len(d.Metadata) {
		t.Fatalf("%d metadata records, npm %d", len(mds), len(d.Metadata))
	}
	for i, m := range mds {
		if w := d.Metadata[i]; m.Name != w.Name || !maps.Equal(m.Metadata, w.Metadata) {
			t.Errorf("metadata %d: %q %v, npm %q %v", i, m.Name, m.Metadata, w.Name, w.Metadata)
		}
	}
	atts, err := r.Attachments()
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 1 {
		t.Fatalf("%d attachments, npm 1", len(atts))
	}
	data, err := io.ReadAll(r.AttachmentData(atts[0]))
	if err != nil {
		t.Fatal(err)
	}
	a, w := atts[0], d.Attachments[0]
	if a.Name != w.Name || a.MediaType != w.MediaType || fmt.Sprint(a.LogTime) != w.LogTime || fmt.Sprint(a.CreateTime) != w.CreateTime || hex.EncodeToString(data) != w.Data {
		t.Errorf("attachment %+v %x, npm %+v", a, data, w)
	}
	probs, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, p := range probs {
		if p.Severity == record.SeverityError {
			bad = append(bad, p.Message)
		}
	}
	if len(bad) != 2 || !strings.Contains(bad[0], `attachment index entry "calib.yaml"`) || !strings.Contains(bad[1], `metadata index entry "run"`) {
		t.Errorf("Check errors %q, want the attachment and metadata index entries", bad)
	}
}

// npmRefusal is why npm @mcap/core refuses path: McapIndexedReader, or
// with mode "stream" McapStreamReader. The test fails if it reads it.
func npmRefusal(t *testing.T, path string, mode ...string) string {
	t.Helper()
	testenv.RequirePeer(t, "mcap")
	cmd := exec.Command("node", append([]string{filepath.Join("testdata", "mcapdump.cjs"), testenv.NodeDir(t), path}, mode...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("npm @mcap/core reads %s", path)
	}
	return stderr.String()
}

// checkErrors are the messages of Check's errors for path.
func checkErrors(t *testing.T, path string) []string {
	t.Helper()
	probs, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range probs {
		if p.Severity == record.SeverityError {
			out = append(out, p.Message)
		}
	}
	return out
}

// TestPeerCheckRefusals checks that doctor reports an error for files
// that @mcap/core refuses or reads only in part, which it used to call
// sound: a channel id whose records differ (McapStreamReader refuses it), a
// metadata record inside a chunk (refused too), a chunk whose messages lie
// outside the span it states (McapIndexedReader refuses it; doctor gave a
// warning, and `cat --start` through the index missed them), and messages
// outside the chunks of a file with a chunk index (McapIndexedReader leaves
// them out; McapStreamReader reads them).
func TestPeerCheckRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, mode, peer, check string
	}{
		{"channel-redefined", "stream", "differs from previous channel record", "channel record of id 1 differs from the first channel record of that id"},
		{"metadata-in-chunk", "stream", "Metadata record not allowed inside a chunk", "chunk holds metadata records, which do not belong in a chunk"},
		{"chunk-times-too-narrow", "", "contains a message with logTime (1) earlier than chunk messageStartTime (5)",
			"chunk says messages span [5, 6], they span [1, 9]: a read by time through the index misses those outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := peerWrite(t, tc.name)
			var mode []string
			if tc.mode != "" {
				mode = append(mode, tc.mode)
			}
			if why := npmRefusal(t, path, mode...); !strings.Contains(why, tc.peer) {
				t.Fatalf("npm refuses the file with %q, want %q", why, tc.peer)
			}
			if errs := checkErrors(t, path); !slices.Contains(errs, tc.check) {
				t.Errorf("Check errors %q, want %q", errs, tc.check)
			}
		})
	}
	t.Run("messages-outside-chunks", func(t *testing.T) {
		path := peerWrite(t, "messages-outside-chunks")
		ix, st := npmRead(t, path), npmRead(t, path, "stream")
		if len(ix.Messages) != 3 || len(st.Messages) != 5 {
			t.Fatalf("npm reads %d messages through the index, %d streaming; want 3, 5", len(ix.Messages), len(st.Messages))
		}
		want := "2 messages outside chunks, which a read through the chunk index misses"
		if errs := checkErrors(t, path); !slices.Contains(errs, want) {
			t.Errorf("Check errors %q, want %q", errs, want)
		}
		// baglab reads them all, as the stream reader does: the chunk
		// index's message index lengths count 3 of the 5 messages the
		// statistics count, so the file is read linearly.
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, want := readAll(t, r, record.Filter{}), npmMessages(t, st); !equalMsgs(got, want) {
			t.Errorf("messages\n got %v\nwant %v", got, want)
		}
		if ok, why := r.Indexed(); ok || !strings.Contains(why, "outside chunks") {
			t.Errorf("Indexed() = %v (%s), want a linear read for the messages outside chunks", ok, why)
		}
	})
}

// TestPeerUnusedChannel checks a file with a channel registered but
// without messages: @mcap/core's writer counts it in the statistics and
// lists it (with its schema) in the summary only, and McapIndexedReader
// reads both channels. doctor used to warn that the statistics count two
// channels and two schemas where the file holds one.
func TestPeerUnusedChannel(t *testing.T) {
	path := peerWrite(t, "unused-channel")
	d := npmRead(t, path)
	if len(d.Channels) != 2 || len(d.Schemas) != 2 || d.Statistics == nil || d.Statistics.ChannelCount != 2 || len(d.Messages) != 1 {
		t.Fatalf("npm read %d channels, %d schemas, statistics %+v, %d messages", len(d.Channels), len(d.Schemas), d.Statistics, len(d.Messages))
	}
	if probs, err := Check(path); err != nil || len(probs) != 0 {
		t.Errorf("Check: %v %v", probs, err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 {
		t.Errorf("%d channels, npm 2", len(chs))
	}
}
