package mcapfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/record"
	"github.com/foxglove/mcap/go/mcap"
)

// chunkOffsets lists the offsets of the chunk records of an MCAP file.
func chunkOffsets(t *testing.T, data []byte) []int64 {
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
	for _, comp := range []string{"none", "zstd"} {
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
	full, err := Open(src, WithoutIndex())
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
		t.Errorf("report %+v", rep)
	}
	// An uncompressed chunk keeps every record before the cut; a zstd
	// chunk of a single block yields nothing once cut.
	if int(rep.Messages) < n || (comp == "none") != (rep.Salvaged > 0) {
		t.Errorf("recovered %d messages (%d salvaged), the reader read %d before the cut", rep.Messages, rep.Salvaged, n)
	}
	if probs, err := Check(out); err != nil || len(probs) != 0 {
		t.Errorf("Check of the recovered file: %v %v", probs, err)
	}
	fixed, err := Open(out, WithoutIndex())
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

// TestRecoverCorruptChunk flips a byte inside one chunk: that chunk is
// skipped (its CRC or its compression fails), every other message is kept.
func TestRecoverCorruptChunk(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.mcap")
	writeTestFile(t, src, WithCompression("lz4"), WithChunkSize(32<<10))
	data, _ := os.ReadFile(src)
	chunks := chunkOffsets(t, data)
	victim := chunks[2]
	bad := bytes.Clone(data)
	bad[victim+200] ^= 0xff
	badPath := filepath.Join(dir, "bad.mcap")
	os.WriteFile(badPath, bad, 0o644)

	probs, err := Check(badPath)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range probs {
		found = found || p.Offset == victim && p.Severity == SeverityError
	}
	if !found {
		t.Errorf("Check did not report the chunk at %d: %v", victim, probs)
	}

	rep, err := Recover(badPath, filepath.Join(dir, "out.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != victim {
		t.Fatalf("report %+v", rep)
	}
	// The lost messages are exactly those of the victim chunk.
	orig, _ := NewReader(bytes.NewReader(data), int64(len(data)), "orig")
	lost := 0
	w := newWalker(orig.ra, "orig", orig.size, true)
	for {
		it, err := w.next()
		if err != nil {
			break
		}
		if it.op == mcap.OpMessage && it.inChunk && it.frame.offset == victim {
			lost++
		}
	}
	if rep.Messages != uint64(testMessages-lost) || lost == 0 {
		t.Errorf("kept %d messages, want %d - %d", rep.Messages, testMessages, lost)
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
