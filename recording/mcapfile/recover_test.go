package mcapfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// chunkOffsets lists the offsets of the chunk records of an MCAP file.
func chunkOffsets(t testing.TB, data []byte) []int64 {
	t.Helper()
	var out []int64
	for p := int64(magicLen); p+recordHeaderLen <= int64(len(data)); {
		op := mcap.OpCode(data[p])
		n := int64(binary.LittleEndian.Uint64(data[p+1:]))
		if op == mcap.OpDataEnd {
			break
		}
		if op == mcap.OpChunk {
			out = append(out, p)
		}
		p += recordHeaderLen + n
	}
	return out
}

func TestRecoverTruncated(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "zstd"} {
		t.Run(comp, func(t *testing.T) { testRecoverTruncated(t, comp) })
	}
}

func testRecoverTruncated(t *testing.T, comp string) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	writeTestFile(t, src, WithCompression(comp), WithChunkSize(32<<10))
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Open(src, record.WithoutIndex())
	if err != nil {
		t.Fatal(err)
	}
	all := readAll(t, full, record.Filter{})
	full.Close()
	chunks := chunkOffsets(t, data)
	if len(chunks) < 6 {
		t.Fatalf("only %d chunks", len(chunks))
	}
	// Cut in the middle of chunk 4: chunks 0..3 are whole, and the
	// complete records of chunk 4's decompressible prefix are salvaged.
	cut := chunks[4] + (chunks[5]-chunks[4])/2
	bad := filepath.Join(dir, "cut.mcap")
	if err := os.WriteFile(bad, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	// The reader itself gives the messages before the damage, then an error.
	r, err := Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.Indexed(); ok {
		t.Fatal("a truncated file reads through an index")
	}
	it, _ := r.Messages(record.Filter{})
	var n int
	for {
		m, err := it.Next()
		if err != nil {
			if !isTruncation(err) {
				t.Fatalf("read error %v, want a truncation record.Error", err)
			}
			break
		}
		if got := (msgKey{m.Channel.ID, m.Sequence, m.LogTime, m.PublishTime, string(m.Data)}); got != all[n] {
			t.Fatalf("message %d differs", n)
		}
		n++
	}
	r.Close()

	out := filepath.Join(dir, "fixed.mcap")
	rep, err := Recover(bad, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != chunks[4] || rep.Skipped[0].Length != cut-chunks[4] || rep.Channels != 3 || rep.Schemas != 1 || rep.Metadata != 1 || rep.Attachments != 1 {
		t.Errorf("report %+v", *rep)
	}
	// An uncompressed or lz4 chunk keeps every record before the cut; a
	// zstd chunk of a single block yields nothing once cut.
	if int(rep.Messages) < n || (comp == "zstd") != (rep.Salvaged == 0) || rep.Skipped[0].Kept != rep.Salvaged || rep.Skipped[0].Unverified != (rep.Salvaged > 0) {
		t.Errorf("recovered %d messages (%d salvaged), the reader read %d before the cut", rep.Messages, rep.Salvaged, n)
	}
	if probs, err := Check(out); err != nil || len(withoutUnverifiedMark(probs)) != 0 {
		t.Errorf("Check of the recovered file: %v %v", probs, err)
	}
	fixed, err := Open(out, record.WithoutIndex())
	if err != nil {
		t.Fatal(err)
	}
	defer fixed.Close()
	got := readAll(t, fixed, record.Filter{})
	if uint64(len(got)) != rep.Messages {
		t.Fatalf("recovered file holds %d messages, report says %d", len(got), rep.Messages)
	}
	for i, m := range got {
		if m != all[i] {
			t.Fatalf("recovered message %d = %v, want %v", i, m, all[i])
		}
	}
	if ok, why := fixed.Indexed(); ok {
		t.Errorf("WithoutIndex ignored: %s", why)
	}
	if idx, _ := Open(out); idx != nil {
		if ok, why := idx.Indexed(); !ok {
			t.Errorf("recovered file is not indexed: %s", why)
		}
		idx.Close()
	}
}

// topicMsg is a message as a recovered file can keep it: channel ids are
// renumbered, topics are not.
type topicMsg struct {
	Topic            string
	Sequence         uint64
	LogTime, PubTime int64
	Data             string
}

// fileOrder reads every message of path in file order, with the offset of
// the chunk that holds it.
func fileOrder(t *testing.T, path string) (msgs []topicMsg, chunkOf []int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), path)
	if err != nil {
		t.Fatal(err)
	}
	topics := map[uint16]string{}
	w := newWalker(r.ra, path, r.size, true)
	defer w.close()
	for {
		it, err := w.next()
		if err == io.EOF {
			return msgs, chunkOf
		}
		if err != nil {
			t.Fatal(err)
		}
		switch it.op {
		case mcap.OpChannel:
			c, err := mcap.ParseChannel(it.body)
			if err != nil {
				t.Fatal(err)
			}
			topics[c.ID] = c.Topic
		case mcap.OpMessage:
			m, err := mcap.ParseMessage(it.body)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, topicMsg{topics[m.ChannelID], uint64(m.Sequence), int64(m.LogTime), int64(m.PublishTime), string(m.Data)})
			chunkOf = append(chunkOf, it.frame.offset)
		}
	}
}

// damageChunk returns data with one byte of the chunk at off changed: a
// byte of a message payload when the chunk is uncompressed (only the CRC
// notices), else a byte in the middle of its compressed records.
func damageChunk(t *testing.T, data []byte, off int64) []byte {
	t.Helper()
	fr, err := readFrame(bytes.NewReader(data), "x", off, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ck, err := parseChunk("x", fr.bodyOffset(), data[fr.bodyOffset():fr.end()])
	if err != nil {
		t.Fatal(err)
	}
	recs := fr.bodyOffset() + ck.recordsOffset
	at := recs + int64(len(ck.records))/2
	if ck.compression == "" {
		at = -1
		chunkRecords("x", off, ck.records, func(op mcap.OpCode, p int, body []byte) error {
			if at < 0 && op == mcap.OpMessage && len(body) > messageHeadLen+20 {
				at = recs + int64(p) + recordHeaderLen + messageHeadLen + 10
			}
			return nil
		})
		if at < 0 {
			t.Fatal("no message payload to damage")
		}
	}
	bad := bytes.Clone(data)
	bad[at] ^= 0x20
	return bad
}

// TestRecoverDamagedChunk damages the first chunk, which holds the channel
// and schema records, in each compression. By default the records of the
// chunk that still frame and parse are kept and reported as unverified;
// with WithDropUnverified they are dropped, and the later messages keep
// their channels through the summary section. Every message of the other
// chunks is kept either way, byte for byte.
func TestRecoverDamagedChunk(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "zstd"} {
		t.Run(comp, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src.mcap")
			writeTestFile(t, src, WithCompression(comp), WithChunkSize(32<<10))
			data, _ := os.ReadFile(src)
			orig, chunkOf := fileOrder(t, src)
			victim := chunkOffsets(t, data)[0]
			lost := 0
			for _, c := range chunkOf {
				if c == victim {
					lost++
				}
			}
			if lost == 0 || lost == len(orig) {
				t.Fatalf("the first chunk holds %d of %d messages", lost, len(orig))
			}
			badPath := filepath.Join(dir, "bad.mcap")
			if err := os.WriteFile(badPath, damageChunk(t, data, victim), 0o644); err != nil {
				t.Fatal(err)
			}

			// Check: the chunk once, the data section CRC, no cascade.
			probs, err := Check(badPath)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Check: %v", probs)
			var errs []record.Problem
			for _, p := range probs {
				if p.Severity == record.SeverityError {
					errs = append(errs, p)
				}
			}
			if len(errs) != 2 || errs[0].Offset != victim || !strings.HasPrefix(errs[0].Message, "chunk.") ||
				!strings.HasPrefix(errs[1].Message, "data_end.data_section_crc: CRC mismatch") || (comp == "none" && len(probs) != 2) {
				t.Errorf("Check: %v", probs)
			}
			if comp == "none" && !strings.HasPrefix(errs[0].Message, "chunk.uncompressed_crc: CRC mismatch: computed ") {
				t.Errorf("Check: %v", errs[0])
			}

			// Default: keep what parses.
			out := filepath.Join(dir, "kept.mcap")
			rep, err := Recover(badPath, out)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Complete || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != victim || rep.Skipped[0].Kept != rep.Suspect ||
				rep.Messages != uint64(len(orig)-lost)+rep.Suspect || rep.Orphans != 0 || rep.Dropped != 0 || rep.Channels != 3 ||
				!rep.Skipped[0].Unverified && rep.Suspect > 0 {
				t.Fatalf("report %+v", *rep)
			}
			if comp == "none" && (rep.Suspect != uint64(lost) || !strings.HasSuffix(rep.Skipped[0].Reason(), fmt.Sprintf("; %d messages kept, their content may be damaged", lost))) {
				t.Errorf("kept %d of the %d messages of the damaged chunk: %+v", rep.Suspect, lost, rep.Skipped[0])
			}
			got, _ := fileOrder(t, out)
			if len(got) != int(rep.Messages) {
				t.Fatalf("recovered file holds %d messages, the report says %d", len(got), rep.Messages)
			}
			// The kept messages of the damaged chunk come first; one of them
			// (for an uncompressed chunk) differs in one byte.
			t.Logf("kept %d of %d: %s", rep.Suspect, lost, rep.Skipped[0].Reason())
			k := int(rep.Suspect)
			if !slices.Equal(got[k:], orig[lost:]) {
				t.Error("the messages of the intact chunks differ")
			}
			if comp == "none" {
				diff := 0
				for i := range k {
					if got[i] != orig[i] {
						diff++
					}
				}
				if diff != 1 {
					t.Errorf("%d kept messages differ from the originals, want the damaged one", diff)
				}
			}
			checkRecovered(t, out, int(rep.Messages))

			// On request, drop the damaged chunk.
			out = filepath.Join(dir, "dropped.mcap")
			rep, err = Recover(badPath, out, WithDropUnverified())
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Complete || len(rep.Skipped) != 1 || rep.Skipped[0].Unverified || rep.Skipped[0].Kept != 0 || rep.Skipped[0].Dropped != rep.Dropped ||
				rep.Messages != uint64(len(orig)-lost) || rep.Suspect != 0 || rep.Orphans != 0 || rep.Channels != 3 || rep.SummaryChannels != 3 {
				t.Fatalf("report %+v", *rep)
			}
			if comp == "none" && rep.Dropped != uint64(lost) {
				t.Errorf("dropped %d messages, the chunk holds %d", rep.Dropped, lost)
			}
			got, _ = fileOrder(t, out)
			if !slices.Equal(got, orig[lost:]) {
				t.Error("the messages of the intact chunks differ")
			}
			checkRecovered(t, out, int(rep.Messages))
		})
	}
}

// checkRecovered checks a recovered file: Check finds nothing, and (unless
// -short) npm @mcap/core reads it with every CRC checked.
func checkRecovered(t *testing.T, path string, messages int) {
	t.Helper()
	if probs, err := Check(path); err != nil || len(withoutUnverifiedMark(probs)) != 0 {
		t.Errorf("Check of the recovered file: %v %v", probs, err)
	}
	if testing.Short() {
		return
	}
	d := npmRead(t, path)
	if len(d.Messages) != messages || d.StreamMessageCount != messages {
		t.Errorf("npm @mcap/core reads %d messages (%d streaming), want %d", len(d.Messages), d.StreamMessageCount, messages)
	}
}

// TestRecoverDamagedLength damages the length field of a chunk in the
// middle so that it runs over the next chunk: the summary's chunk index
// shows where the next chunk starts, the damaged chunk's records are whole
// and match its CRC, and nothing is lost.
func TestRecoverDamagedLength(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	writeTestFile(t, src, WithCompression("zstd"), WithChunkSize(32<<10))
	data, _ := os.ReadFile(src)
	orig, _ := fileOrder(t, src)
	chunks := chunkOffsets(t, data)
	victim := chunks[2]
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint64(bad[victim+1:], uint64(chunks[4]-victim))
	badPath := filepath.Join(dir, "bad.mcap")
	os.WriteFile(badPath, bad, 0o644)
	out := filepath.Join(dir, "out.mcap")
	rep, err := Recover(badPath, out)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || rep.Messages != uint64(len(orig)) || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != victim ||
		rep.Skipped[0].Length != chunks[3]-victim || rep.Skipped[0].Unverified || rep.Salvaged != 0 ||
		!strings.Contains(rep.Skipped[0].Reason(), "whole and match its CRC") {
		t.Fatalf("report %+v", *rep)
	}
	got, _ := fileOrder(t, out)
	if !slices.Equal(got, orig) {
		t.Error("recovered messages differ")
	}
	checkRecovered(t, out, len(orig))

	// A message index whose length runs into the middle of the next chunk:
	// the scan goes on at that chunk.
	bad = bytes.Clone(data)
	mi := victim + recordHeaderLen + int64(binary.LittleEndian.Uint64(data[victim+1:]))
	if mcap.OpCode(data[mi]) != mcap.OpMessageIndex {
		t.Fatalf("%s after the chunk, want a message index", mcap.OpCode(data[mi]))
	}
	binary.LittleEndian.PutUint64(bad[mi+1:], uint64(chunks[3]+50-mi-recordHeaderLen))
	os.WriteFile(badPath, bad, 0o644)
	rep, err = Recover(badPath, out)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || rep.Messages != uint64(len(orig)) || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != mi ||
		rep.Skipped[0].Length != chunks[3]-mi || !strings.Contains(rep.Skipped[0].Reason(), fmt.Sprintf("runs over the chunk that the summary indexes at %d", chunks[3])) {
		t.Fatalf("report %+v", *rep)
	}

	// Without a summary, the records after the chunk's own show where the
	// scan goes on.
	bad = bytes.Clone(data)
	for _, end := range []int64{chunks[4], chunks[4] - recordHeaderLen} {
		binary.LittleEndian.PutUint64(bad[victim+1:], uint64(end-victim))
		badPath = filepath.Join(dir, "bad-nosummary.mcap")
		os.WriteFile(badPath, bad[:len(bad)-tailLen], 0o644)
		out = filepath.Join(dir, fmt.Sprint("out", end, ".mcap"))
		rep, err = Recover(badPath, out)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Complete || rep.Messages != uint64(len(orig)) || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != victim ||
			!strings.HasPrefix(rep.Skipped[0].Reason(), "chunk record length: malformed data: the record runs ") {
			t.Fatalf("report %+v", *rep)
		}
		if got, _ := fileOrder(t, out); !slices.Equal(got, orig) {
			t.Error("recovered messages differ")
		}
	}
}

// TestRecoverAttachmentCRC keeps an attachment whose CRC fails, reported
// as unverified, and drops it on request.
func TestRecoverAttachmentCRC(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	writeTestFile(t, src, WithCompression("zstd"), WithChunkSize(32<<10))
	data, _ := os.ReadFile(src)
	i := bytes.Index(data, []byte("fx: 1\n"))
	if i < 0 || bytes.Count(data, []byte("fx: 1\n")) != 1 {
		t.Fatal("attachment data not found once")
	}
	bad := bytes.Clone(data)
	bad[i] = 'g'
	badPath := filepath.Join(dir, "bad.mcap")
	os.WriteFile(badPath, bad, 0o644)
	for _, drop := range []bool{false, true} {
		var opts []RecoverOption
		if drop {
			opts = append(opts, WithDropUnverified())
		}
		out := filepath.Join(dir, fmt.Sprint("out", drop, ".mcap"))
		rep, err := Recover(badPath, out, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Messages != testMessages || len(rep.Skipped) != 1 || rep.Skipped[0].Unverified == drop || (rep.Attachments == 1) == drop ||
			!strings.HasPrefix(rep.Skipped[0].Reason(), "attachment.crc: CRC mismatch: attachment \"calib.yaml\"") {
			t.Errorf("drop %v: report %+v", drop, *rep)
		}
		r, err := Open(out)
		if err != nil {
			t.Fatal(err)
		}
		atts, _ := r.Attachments()
		if !drop && (len(atts) != 1 || atts[0].Name != "calib.yaml") || drop && len(atts) != 0 {
			t.Errorf("drop %v: attachments %+v", drop, atts)
		}
		r.Close()
	}
}

func TestRecoverConformance(t *testing.T) {
	for _, path := range conformanceInputs(t) {
		recs := loadExpected(t, path)
		msgs := 0
		for _, r := range recs {
			if r.typ == "Message" {
				msgs++
			}
		}
		out := filepath.Join(t.TempDir(), "out.mcap")
		rep, err := Recover(path, out)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !rep.Complete || len(rep.Skipped) != 0 || rep.Messages != uint64(msgs) {
			t.Errorf("%s: %+v, want %d messages", filepath.Base(path), rep, msgs)
		}
	}
}

func isTruncation(err error) bool {
	var re *record.Error
	return asRecordError(err, &re) && (re.Err == record.ErrTruncated || re.Err == record.ErrLength)
}

// TestRecoverDamagedChannelRecord damages the topic in a channel record of
// a chunk: the summary's intact copy of the channel is used instead.
func TestRecoverDamagedChannelRecord(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	writeTestFile(t, src, WithCompression("none"), WithChunkSize(32<<10))
	data, _ := os.ReadFile(src)
	i := bytes.Index(data, []byte("/raw"))
	if i < 0 || int64(i) > chunkOffsets(t, data)[1] {
		t.Fatal("no /raw channel record in the first chunk")
	}
	bad := bytes.Clone(data)
	bad[i+2] ^= 0x20 // "/rAw"
	badPath := filepath.Join(dir, "bad.mcap")
	os.WriteFile(badPath, bad, 0o644)
	out := filepath.Join(dir, "out.mcap")
	rep, err := Recover(badPath, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != testMessages || len(rep.Skipped) != 1 || !rep.Skipped[0].Unverified || rep.SummaryChannels != 0 {
		t.Fatalf("report %+v", *rep)
	}
	r, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	chs, _ := r.Channels()
	var topics []string
	for _, c := range chs {
		topics = append(topics, c.Topic)
	}
	if !slices.Equal(topics, []string{"/a", "/b", "/raw"}) {
		t.Errorf("topics %v, want the summary's", topics)
	}
}

// withoutUnverifiedMark is probs without the warning Check gives for the
// UnverifiedMetadata record Recover writes when it keeps messages no CRC
// vouches for: the one problem a recovered file may have
// (TestRecoverMarksUnverified checks the mark itself).
func withoutUnverifiedMark(probs []record.Problem) []record.Problem {
	var out []record.Problem
	for _, p := range probs {
		if p.Severity != record.SeverityWarning || !strings.Contains(p.Message, "kept unverified by baglab recover") {
			out = append(out, p)
		}
	}
	return out
}

// TestRecoverMarksUnverified: a file recovered with the messages of a
// chunk whose CRC fails holds the UnverifiedMetadata record with their
// count, and Check warns of it; recovered without them (WithDropUnverified)
// it holds no mark and checks clean.
func TestRecoverMarksUnverified(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "testdata", "sample", "broken", "study-crc.mcap")
	for _, drop := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("out-%v.mcap", drop))
		var opts []RecoverOption
		if drop {
			opts = append(opts, WithDropUnverified())
		}
		rep, err := Recover(in, out, opts...)
		if err != nil {
			t.Fatal(err)
		}
		probs, err := Check(out)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Open(out)
		if err != nil {
			t.Fatal(err)
		}
		md, err := r.Metadata()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		var mark map[string]string
		for _, m := range md {
			if m.Name == UnverifiedMetadata {
				mark = m.Metadata
			}
		}
		if drop {
			if mark != nil || len(probs) != 0 || rep.Suspect != 0 {
				t.Errorf("dropped: mark %v, problems %v, %d suspect", mark, probs, rep.Suspect)
			}
			continue
		}
		if rep.Suspect == 0 || mark["messages"] != fmt.Sprint(rep.Suspect) || mark["recovered_from"] != in ||
			len(probs) != 1 || len(withoutUnverifiedMark(probs)) != 0 {
			t.Errorf("kept %d suspect messages: mark %v, problems %v", rep.Suspect, mark, probs)
		}
	}
}
