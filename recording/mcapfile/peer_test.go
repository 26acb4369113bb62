package mcapfile

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
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
	r := openPeerFile(t, path)
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
	r := openPeerFile(t, path)
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
// them out; McapStreamReader reads them); and records the specification
// allows once or elsewhere: two statistics records or a metadata record in
// the summary (McapIndexedReader refuses them), a second header or a
// footer in the data section (McapStreamReader refuses them; baglab reads
// on past the footer, see TestStrayEndRecords). doctor said the
// statistics-twice file was ok.
func TestPeerCheckRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, mode, peer, check string
	}{
		{"channel-redefined", "stream", "differs from previous channel record", "channel record of id 1 differs from the first channel record of that id"},
		{"metadata-in-chunk", "stream", "Metadata record not allowed inside a chunk", "chunk holds metadata records, which do not belong in a chunk"},
		{"chunk-times-too-narrow", "", "contains a message with logTime (1) earlier than chunk messageStartTime (5)",
			"chunk says messages span [5, 6], they span [1, 9]: a read by time through the index misses those outside"},
		{"statistics-twice", "", "Duplicate Statistics record",
			"summary section holds 2 statistics records, where one is allowed (@mcap/core's McapIndexedReader refuses the file); they are the same"},
		{"statistics-differ", "", "Duplicate Statistics record",
			"summary section holds 2 statistics records, where one is allowed (@mcap/core's McapIndexedReader refuses the file); they differ, and baglab uses none of them"},
		{"metadata-in-summary", "", "Metadata record not allowed in index section",
			"summary section holds metadata records, which do not belong there (@mcap/core's McapIndexedReader refuses most of them)"},
		{"header-twice", "stream", "Duplicate Header record", "second header record: only the first record of a file is one (@mcap/core's McapStreamReader refuses the file)"},
		{"footer-in-data", "stream", "Expected MCAP magic", "footer record in the data section, 55 bytes before the summary section at 298: @mcap/core's McapStreamReader refuses the file; baglab reads on past it"},
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
	// Messages outside the chunks of a file with a chunk index: baglab
	// reads them all, as McapStreamReader does, finding them between the
	// chunks from the chunk index and the record headers there. The
	// chunks of the second file have no message index records:
	// McapIndexedReader refuses it, and baglab read it through the index
	// (the 3 messages of the chunks) while doctor reported the other 2.
	for _, name := range []string{"messages-outside-chunks", "messages-outside-unindexed-chunks"} {
		t.Run(name, func(t *testing.T) {
			path := peerWrite(t, name)
			st := npmRead(t, path, "stream")
			if name == "messages-outside-chunks" {
				if ix := npmRead(t, path); len(ix.Messages) != 3 {
					t.Fatalf("npm reads %d messages through the index, want 3", len(ix.Messages))
				}
			} else if why := npmRefusal(t, path); !strings.Contains(why, "chunk index without message indexes") {
				t.Fatalf("npm refuses the file with %q", why)
			}
			if len(st.Messages) != 5 {
				t.Fatalf("npm reads %d messages streaming, want 5", len(st.Messages))
			}
			want := "2 messages outside chunks, which a read through the chunk index misses"
			if errs := checkErrors(t, path); !slices.Contains(errs, want) {
				t.Errorf("Check errors %q, want %q", errs, want)
			}
			r := openPeerFile(t, path)
			if got, want := readAll(t, r, record.Filter{}), npmMessages(t, st); !equalMsgs(got, want) {
				t.Errorf("messages\n got %v\nwant %v", got, want)
			}
			if ok, why := r.Indexed(); ok || why != "messages outside chunks, the first at offset 172, which the chunk index misses" {
				t.Errorf("Indexed() = %v (%s), want a linear read for the messages outside chunks", ok, why)
			}
			sum, err := r.Summary()
			if err != nil {
				t.Fatal(err)
			}
			if sum.MessageCount != 5 || sum.StartNs != 1 || sum.EndNs != 12 {
				t.Errorf("summary %d messages [%d, %d], want 5 [1, 12]", sum.MessageCount, sum.StartNs, sum.EndNs)
			}
		})
	}
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
	r := openPeerFile(t, path)
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 {
		t.Errorf("%d channels, npm 2", len(chs))
	}
}

// npmRepresentable are the messages of d whose times fit in int64
// nanoseconds (before 2262-04-11), as msgKeys.
func npmRepresentable(t *testing.T, d *npmDump) []msgKey {
	t.Helper()
	var out []msgKey
	for _, m := range d.Messages {
		lt, err1 := strconv.ParseInt(m.LogTime, 10, 64)
		pt, err2 := strconv.ParseInt(m.PublishTime, 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		data, err := hex.DecodeString(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msgKey{uint32(m.ChannelID), m.Sequence, lt, pt, string(data)})
	}
	return out
}

// TestPeerTimesPast2262 reads a file that @mcap/core's writer wrote with a
// message logged at 2^64-1 ns and one published at 2^63 ns: valid MCAP
// (uint64 times), which McapIndexedReader reads, but after 2262-04-11,
// beyond baglab's int64 nanoseconds. They used to read as negative times:
// `cat` gave log_time_ns -1 first, `info` started in 1969, doctor said ok.
// Now reading them is an error (record.ErrFormat naming the field), with
// WithSkipBad each is left out and reported, Summary counts only the
// others, and Check reports them. The chunk index's far end time keeps the
// file from being read through the index.
func TestPeerTimesPast2262(t *testing.T) {
	path := peerWrite(t, "time-past-2262")
	d := npmRead(t, path)
	if len(d.Messages) != 8 || d.Messages[7].LogTime != "18446744073709551615" || d.Messages[0].PublishTime != "9223372036854775808" {
		t.Fatalf("npm reads %+v", d.Messages)
	}
	want := npmRepresentable(t, d)
	if len(want) != 6 {
		t.Fatalf("npm reads %d messages with times before 2262, want 6", len(want))
	}
	r := openPeerFile(t, path)
	if ok, why := r.Indexed(); ok || !strings.Contains(why, "message_end_time 18446744073709551615 is after 2262-04-11") {
		t.Errorf("Indexed() = %v (%s), want a linear read for the far chunk index time", ok, why)
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		m, err := it.Next()
		if err != nil {
			if !errors.Is(err, record.ErrFormat) || !strings.Contains(err.Error(), "field message.log_time: malformed data: 18446744073709551615 is after 2262-04-11") {
				t.Errorf("read ends with %v, want the log time's error", err)
			}
			break
		}
		if m.LogTime < 0 || m.PublishTime < 0 {
			t.Errorf("message with log time %d, publish time %d", m.LogTime, m.PublishTime)
		}
	}
	it.Close()
	if _, err := r.Summary(); !errors.Is(err, record.ErrFormat) {
		t.Errorf("Summary: %v, want the log time's error", err)
	}

	var skipped []record.Skipped
	rs, err := Open(path, record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	got := readAll(t, rs, record.Filter{})
	slices.SortStableFunc(got, func(a, b msgKey) int { return int(a.LogTime - b.LogTime) })
	if !equalMsgs(got, want) {
		t.Errorf("messages\n got %v\nwant %v", got, want)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0].Err.Error(), "message.log_time") || !strings.Contains(skipped[1].Err.Error(), "message.publish_time: malformed data: 9223372036854775808 is after 2262-04-11") {
		t.Errorf("skipped %v, want the two far messages", skipped)
	}
	sum, err := rs.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if sum.MessageCount != 6 || sum.StartNs != want[0].LogTime || sum.EndNs != want[5].LogTime {
		t.Errorf("summary %d messages [%d, %d], want 6 [%d, %d]", sum.MessageCount, sum.StartNs, sum.EndNs, want[0].LogTime, want[5].LogTime)
	}
	wantErr := "2 messages have times after 2262-04-11 (the first: log_time 18446744073709551615), beyond the int64 nanoseconds baglab represents times in: reading them fails, --skip-bad leaves them out"
	if errs := checkErrors(t, path); !slices.Contains(errs, wantErr) {
		t.Errorf("Check errors %q, want %q", errs, wantErr)
	}
}

// TestPeerTimePast2262InChunk reads a chunk whose stated span [1, 3]
// fits in int64 but which holds a message at 2^64-1 ns: the file is read
// through the index, and the worker that reads the chunk meets the far
// time. McapIndexedReader refuses the chunk; baglab fails the read, or
// with WithSkipBad leaves the message out and reports the chunk.
func TestPeerTimePast2262InChunk(t *testing.T) {
	path := peerWrite(t, "time-past-2262-in-chunk")
	if why := npmRefusal(t, path); !strings.Contains(why, "18446744073709551615") {
		t.Fatalf("npm refuses the file with %q", why)
	}
	r := openPeerFile(t, path)
	if ok, why := r.Indexed(); !ok {
		t.Fatalf("read linearly: %s", why)
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if m, err := it.Next(); !errors.Is(err, record.ErrFormat) || !strings.Contains(err.Error(), "message.log_time") {
		t.Errorf("Next = %v, %v; want the log time's error", m, err)
	}
	var skipped []record.Skipped
	rs, err := Open(path, record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	got := readAll(t, rs, record.Filter{})
	if len(got) != 2 || got[0].LogTime != 1 || got[1].LogTime != 3 {
		t.Errorf("messages %v, want those at 1 and 3", got)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Err.Error(), "message.log_time") {
		t.Errorf("skipped %v, want the chunk with the far message", skipped)
	}
	if _, err := r.Summary(); !errors.Is(err, record.ErrFormat) {
		t.Errorf("Summary: %v, want the log time's error", err)
	}
	want := "message log_time 18446744073709551615 is after 2262-04-11, beyond the int64 nanoseconds baglab represents times in: reading it fails, --skip-bad leaves it out"
	if errs := checkErrors(t, path); !slices.Contains(errs, want) {
		t.Errorf("Check errors %q, want %q", errs, want)
	}
}

// TestPeerStatisticsTwice checks which of two statistics records baglab
// uses, which @mcap/core's McapIndexedReader refuses: the same record
// twice is used; of two that differ (the second counts 2 of the 3
// messages) neither is, and the counts come from the message indexes.
// Summary used to take the last, counting 2 messages over [1, 2].
func TestPeerStatisticsTwice(t *testing.T) {
	for _, name := range []string{"statistics-twice", "statistics-differ"} {
		t.Run(name, func(t *testing.T) {
			path := peerWrite(t, name)
			st := npmRead(t, path, "stream")
			r := openPeerFile(t, path)
			if ok, why := r.Indexed(); !ok {
				t.Errorf("read linearly: %s", why)
			}
			if got, want := readAll(t, r, record.Filter{}), npmMessages(t, st); !equalMsgs(got, want) {
				t.Errorf("messages\n got %v\nwant %v", got, want)
			}
			sum, err := r.Summary()
			if err != nil {
				t.Fatal(err)
			}
			if sum.MessageCount != 3 || sum.StartNs != 1 || sum.EndNs != 3 || len(sum.Topics) != 1 || sum.Topics[0].MessageCount != 3 {
				t.Errorf("summary %d messages [%d, %d], topics %+v; want 3 [1, 3]", sum.MessageCount, sum.StartNs, sum.EndNs, sum.Topics)
			}
		})
	}
}

// TestPeerRecordsAfterDataEnd checks a file with a message and a second
// data end record after its first data end record, and one with a
// message after a footer record in the data section (both without chunks,
// read in file order): McapStreamReader reads both messages of the first
// and refuses the second. baglab ended the data section at the first data
// end or footer record, reading one message; it now reads both, and
// doctor reports the record, the only error (it used to warn too that
// the statistics count one message more), offering recover.
func TestPeerRecordsAfterDataEnd(t *testing.T) {
	for _, tc := range []struct{ name, check string }{
		{"records-after-data-end", "data end record 55 bytes before the summary section at 282: the specification ends the data section at its data end record, and a read that stops there misses the records after it (@mcap/core's McapStreamReader reads them, as baglab does)"},
		{"footer-in-data", "footer record in the data section, 55 bytes before the summary section at 298: @mcap/core's McapStreamReader refuses the file; baglab reads on past it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := peerWrite(t, tc.name)
			st := npmRead(t, path, "stream-partial")
			want := npmMessages(t, st)
			if tc.name == "footer-in-data" {
				// McapStreamReader refuses the file after the first
				// message; the second is the first's but for its times,
				// sequence and text.
				if len(want) != 1 || st.Done {
					t.Fatalf("npm reads %d messages streaming (done %v), want 1, then a refusal", len(want), st.Done)
				}
				want = append(want, msgKey{1, 2, 2, 2, "\x07\x00\x00\x00hello 2"})
			}
			if len(want) != 2 {
				t.Fatalf("npm reads %d messages streaming, want 2", len(want))
			}
			if got := readAll(t, openPeerFile(t, path), record.Filter{}); !equalMsgs(got, want) {
				t.Errorf("messages\n got %v\nwant %v", got, want)
			}
			probs, err := Check(path)
			if err != nil {
				t.Fatal(err)
			}
			var errs []record.Problem
			for _, p := range probs {
				if p.Severity == record.SeverityError || !strings.HasPrefix(p.Message, "the summary does not index the messages") {
					errs = append(errs, p)
				}
			}
			if len(errs) != 1 || errs[0].Message != tc.check || errs[0].Repair != record.RepairRecover {
				t.Errorf("Check: %+v, want the one error %q (and the warning that the file is read linearly)", probs, tc.check)
			}
		})
	}
}

// openPeerFile opens path, a file the peer wrote, for the test; it is
// closed when the test ends.
func openPeerFile(t *testing.T, path string) *Reader {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
