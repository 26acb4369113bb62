package mcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// update rewrites the files tests of other packages share (go test -run
// TestStraySeeds -update).
var update = flag.Bool("update", false, "rewrite ../testdata/stray-footer.mcap from straySeeds")

// strayRecord is a footer or data end record with every field zero, as
// mcapwrite.cjs writes one in the data section.
func strayRecord(op mcap.OpCode) []byte {
	n := 4 // data end: data_section_crc
	if op == mcap.OpFooter {
		n = footerBodyLen
	}
	b := make([]byte, recordHeaderLen+n)
	b[0] = byte(op)
	binary.LittleEndian.PutUint64(b[1:], uint64(n))
	return b
}

// topLevel lists the offsets of the records of opcode op in the data
// section of data, before its first data end record.
func topLevel(data []byte, op mcap.OpCode) []int64 {
	var out []int64
	for p := int64(magicLen); p+recordHeaderLen <= int64(len(data)); p += recordHeaderLen + int64(binary.LittleEndian.Uint64(data[p+1:])) {
		switch mcap.OpCode(data[p]) {
		case mcap.OpDataEnd:
			return out
		case op:
			out = append(out, p)
		}
	}
	return out
}

// spliceRecords returns data, a whole MCAP file, with recs (whole records)
// inserted at offset at, where a record of its data section starts: the
// offsets of the summary section and the footer from at on move along,
// and the CRCs of the summary and of the data end record, when set, are
// computed again. It is the file a writer that wrote recs there would
// have written.
func spliceRecords(t testing.TB, data []byte, at int64, recs []byte) []byte {
	t.Helper()
	n := uint64(len(recs))
	out := slices.Concat(data[:at], recs, data[at:])
	foot := int64(len(out)) - tailLen
	if mcap.OpCode(out[foot]) != mcap.OpFooter || string(out[foot+footerRecordLen:]) != string(mcap.Magic) {
		t.Fatal("spliceRecords: the file does not end with a footer and the magic")
	}
	shift := func(p int64) {
		if v := binary.LittleEndian.Uint64(out[p:]); v != 0 && v >= uint64(at) {
			binary.LittleEndian.PutUint64(out[p:], v+n)
		}
	}
	body := foot + recordHeaderLen
	shift(body)     // summary_start
	shift(body + 8) // summary_offset_start
	start := int64(binary.LittleEndian.Uint64(out[body:]))
	if start == 0 {
		start = foot
	}
	for p := start; p < foot; {
		b := p + recordHeaderLen
		switch mcap.OpCode(out[p]) {
		case mcap.OpChunkIndex:
			shift(b + 16) // chunk_start_offset
			m := int64(binary.LittleEndian.Uint32(out[b+32:]))
			for q := b + 36; q < b+36+m; q += 10 {
				shift(q + 2) // message index offset
			}
		case mcap.OpAttachmentIndex, mcap.OpMetadataIndex:
			shift(b) // offset
		case mcap.OpSummaryOffset:
			shift(b + 1) // group_start
		}
		p = b + int64(binary.LittleEndian.Uint64(out[p+1:]))
	}
	de := start - recordHeaderLen - 4
	if mcap.OpCode(out[de]) != mcap.OpDataEnd {
		t.Fatal("spliceRecords: no data end record before the summary section")
	}
	if binary.LittleEndian.Uint32(out[de+recordHeaderLen:]) != 0 {
		binary.LittleEndian.PutUint32(out[de+recordHeaderLen:], crc32.ChecksumIEEE(out[:de]))
	}
	if binary.LittleEndian.Uint32(out[body+16:]) != 0 && start < foot {
		binary.LittleEndian.PutUint32(out[body+16:], crc32.ChecksumIEEE(out[start:body+16]))
	}
	return out
}

// straySeeds are small files (20 messages in uncompressed chunks) with a
// footer record, or a data end record, between two chunks: seeds for the
// fuzz targets.
func straySeeds(t testing.TB) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WithCompression("none"), WithChunkSize(300), WithProfile("ros1"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(testChannels[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		data := binary.LittleEndian.AppendUint32(nil, 7)
		data = fmt.Appendf(data, "hello%02d", i)
		if err := w.WriteMessage(id, &record.Message{LogTime: 1e9 + int64(i)*1000, PublishTime: 1e9, Sequence: uint64(i), Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	chunks := chunkOffsets(t, data)
	if len(chunks) < 3 {
		t.Fatalf("%d chunks", len(chunks))
	}
	at := chunks[len(chunks)/2]
	return [][]byte{spliceRecords(t, data, at, strayRecord(mcap.OpFooter)), spliceRecords(t, data, at, strayRecord(mcap.OpDataEnd))}
}

// npmTopicMsgs are the messages of d with the topics of their channels.
func npmTopicMsgs(t *testing.T, d *npmDump) []topicMsg {
	t.Helper()
	topics := map[uint32]string{}
	for _, c := range d.Channels {
		topics[uint32(c.ID)] = c.Topic
	}
	var out []topicMsg
	for _, m := range npmMessages(t, d) {
		topic, ok := topics[m.Channel]
		if !ok {
			t.Fatalf("npm read a message on channel %d, which it read no channel record of", m.Channel)
		}
		out = append(out, topicMsg{topic, m.Sequence, m.LogTime, m.PubTime, m.Data})
	}
	return out
}

// TestStrayEndRecords splices a footer record, or a data end record, into
// the data section of files that @mcap/core's McapWriter wrote (30
// messages in zstd chunks with a metadata record and an attachment, or 20
// messages without chunks), between two chunks or two messages, moving the
// summary's offsets along: every record after it still frames and
// parses. McapStreamReader refuses the stray footer, having read the
// messages before it, and reads on past the data end record, to every
// message; McapIndexedReader reads every message of the chunked file
// through its summary, footer or not. baglab read through the index
// gave them all already; its reads in file order (the unchunked file's
// only read, and Summary's count of it), and Recover, stopped at the
// stray record and ended there without a word, losing the messages after
// it. Now they read on past it, as McapStreamReader does past a data end
// record, giving the intact file's messages; WithSkipBad reports the
// record, Recover lists it (so that `baglab recover` exits 1) with the
// messages kept after it, and doctor offers recover for it.
func TestStrayEndRecords(t *testing.T) {
	files := map[string]string{"chunked-zstd": peerWrite(t, "chunked-zstd"), "unchunked": peerWrite(t, "unchunked")}
	for _, tc := range []struct {
		peer     string
		op       mcap.OpCode
		messages int
		indexed  bool
	}{
		{"chunked-zstd", mcap.OpFooter, 30, true},
		{"chunked-zstd", mcap.OpDataEnd, 30, true},
		{"unchunked", mcap.OpFooter, 20, false},
		{"unchunked", mcap.OpDataEnd, 20, false},
	} {
		t.Run(tc.peer+"/"+tc.op.String(), func(t *testing.T) {
			path := files[tc.peer]
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			orig := npmRead(t, path, "stream")
			want := npmMessages(t, orig)
			if len(want) != tc.messages {
				t.Fatalf("npm reads %d messages of the intact file, want %d", len(want), tc.messages)
			}
			// Between the third and fourth chunks, or the seventh and
			// eighth messages.
			var at int64
			if tc.indexed {
				at = chunkOffsets(t, data)[3]
			} else {
				at = topLevel(data, mcap.OpMessage)[7]
			}
			stray := strayRecord(tc.op)
			bad := spliceRecords(t, data, at, stray)
			badPath := filepath.Join(t.TempDir(), "stray.mcap")
			if err := os.WriteFile(badPath, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			// The messages before the stray record, from baglab's read
			// of the intact file in file order (Offset is a compressed
			// chunk's), are those McapStreamReader reads before the
			// stray footer.
			intact, err := Open(path, record.WithoutIndex())
			if err != nil {
				t.Fatal(err)
			}
			it, err := intact.Messages(record.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			before := 0
			for m, err := it.Next(); err == nil; m, err = it.Next() {
				if m.Offset < at {
					before++
				}
			}
			it.Close()
			intact.Close()
			if before < 3 || before > tc.messages-3 {
				t.Fatalf("%d of %d messages before the stray record", before, tc.messages)
			}

			st := npmRead(t, badPath, "stream-partial")
			switch tc.op {
			case mcap.OpFooter:
				if st.Done || !strings.Contains(st.Error, "Expected MCAP magic") || !equalMsgs(npmMessages(t, st), want[:before]) {
					t.Fatalf("McapStreamReader read %d messages, then %q (done %v); want the %d before the footer, then a refusal", len(st.Messages), st.Error, st.Done, before)
				}
			default:
				if !st.Done || st.Error != "" || !equalMsgs(npmMessages(t, st), want) {
					t.Fatalf("McapStreamReader read %d messages, then %q (done %v); want all %d", len(st.Messages), st.Error, st.Done, len(want))
				}
			}

			r := openPeerFile(t, badPath)
			if ok, why := r.Indexed(); ok != tc.indexed {
				t.Fatalf("Indexed() = %v (%s), want %v", ok, why, tc.indexed)
			}
			if tc.indexed {
				wantIx := npmMessages(t, npmRead(t, path))
				if ix := npmRead(t, badPath, "indexed"); !equalMsgs(npmMessages(t, ix), wantIx) {
					t.Fatalf("McapIndexedReader reads %d messages of the spliced file, %d of the intact one", len(ix.Messages), len(wantIx))
				}
				if got := readAll(t, r, record.Filter{}); !equalMsgs(got, wantIx) {
					t.Errorf("read through the index: %d messages, want the %d McapIndexedReader reads", len(got), len(wantIx))
				}
			} else if got := readAll(t, r, record.Filter{}); !equalMsgs(got, want) {
				t.Errorf("read: %d messages, want the intact file's %d", len(got), len(want))
			}

			lin, err := Open(badPath, record.WithoutIndex())
			if err != nil {
				t.Fatal(err)
			}
			defer lin.Close()
			if got := readAll(t, lin, record.Filter{}); !equalMsgs(got, want) {
				t.Errorf("read in file order: %d messages, want the intact file's %d", len(got), len(want))
			}
			if sum, err := lin.Summary(); err != nil || sum.MessageCount != uint64(len(want)) {
				t.Errorf("Summary of a read in file order: %v, want %d messages", err, len(want))
			}

			field, what := "footer", "footer record in the data section,"
			if tc.op == mcap.OpDataEnd {
				field, what = "data_end", "data end record"
			}
			summaryStart := int64(binary.LittleEndian.Uint64(bad[len(bad)-tailLen+recordHeaderLen:]))
			detail := fmt.Sprintf("%s %d bytes before the summary section at %d", what, summaryStart-at-int64(len(stray)), summaryStart)
			var skipped []record.Skipped
			sb, err := Open(badPath, record.WithoutIndex(), record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close()
			if got := readAll(t, sb, record.Filter{}); !equalMsgs(got, want) {
				t.Errorf("read in file order with WithSkipBad: %d messages, want the intact file's %d", len(got), len(want))
			}
			var re *record.Error
			if len(skipped) != 1 || skipped[0].Offset != at || skipped[0].Length != int64(len(stray)) || skipped[0].Kept != 0 ||
				!errors.As(skipped[0].Err, &re) || re.File != badPath || re.Offset != at || re.Field != field || !errors.Is(re, record.ErrFormat) ||
				re.Detail != detail || skipped[0].Note != "reading goes on past it" {
				t.Errorf("WithSkipBad reported %+v, want the %s at %d: %s", skipped, field, at, detail)
			}

			out := filepath.Join(t.TempDir(), "out.mcap")
			rep, err := Recover(badPath, out)
			if err != nil {
				t.Fatal(err)
			}
			wantNote := fmt.Sprintf("the scan goes on past it: %d messages after it kept", tc.messages-before)
			if !rep.Complete || rep.Messages != uint64(len(want)) || rep.Channels != 2 || rep.Schemas != 2 || len(rep.Skipped) != 1 ||
				!errors.As(rep.Skipped[0].Err, &re) || re.Offset != at || re.Field != field || re.Detail != detail ||
				rep.Skipped[0].Offset != at || rep.Skipped[0].Length != int64(len(stray)) || rep.Skipped[0].Note != wantNote {
				t.Fatalf("Recover: %s\n%+v\nwant %d messages, and the %s at %d listed: %s", rep, rep.Skipped, len(want), field, at, wantNote)
			}
			if tc.indexed && (rep.Metadata != 1 || rep.Attachments != 1) {
				t.Errorf("Recover kept %d metadata records and %d attachments, want 1 and 1", rep.Metadata, rep.Attachments)
			}
			if got, _ := fileOrder(t, out); !slices.Equal(got, npmTopicMsgs(t, orig)) {
				t.Errorf("recovered messages\n got %v\nwant %v", got, npmTopicMsgs(t, orig))
			}
			checkRecovered(t, out, len(want))

			probs, err := Check(badPath)
			if err != nil {
				t.Fatal(err)
			}
			var errs []record.Problem
			for _, p := range probs {
				if p.Severity == record.SeverityError {
					errs = append(errs, p)
				}
			}
			if len(errs) != 1 || errs[0].Offset != at || !strings.HasPrefix(errs[0].Message, detail+": ") || errs[0].Repair != record.RepairRecover {
				t.Errorf("Check errors %+v, want one at %d: %s, repaired by recover", errs, at, detail)
			}
		})
	}
}

// TestStrayDataEndBeforeLooseMessage splices a data end record and a
// message after it between two chunks of a file that @mcap/core's
// McapWriter wrote: the summary indexes the chunks, not the message.
// McapIndexedReader reads the 30 messages of the chunks, McapStreamReader
// the 31 of the file. baglab looked for messages outside the chunks only
// up to the data end record, so it read the file through its index and
// left the message out without a word; now it sees the message, reads the
// file in file order as McapStreamReader does, and Recover keeps it.
func TestStrayDataEndBeforeLooseMessage(t *testing.T) {
	path := peerWrite(t, "chunked-zstd")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := npmMessages(t, npmRead(t, path, "stream"))
	loose := want[4]
	loose.Sequence, loose.LogTime, loose.PubTime = 99, 2_500_000_000, 2_500_000_001
	body := binary.LittleEndian.AppendUint16(nil, uint16(loose.Channel))
	body = binary.LittleEndian.AppendUint32(body, uint32(loose.Sequence))
	body = binary.LittleEndian.AppendUint64(body, uint64(loose.LogTime))
	body = binary.LittleEndian.AppendUint64(body, uint64(loose.PubTime))
	body = append(body, loose.Data...)
	msg := append([]byte{byte(mcap.OpMessage)}, binary.LittleEndian.AppendUint64(nil, uint64(len(body)))...)
	at := chunkOffsets(t, data)[3]
	bad := spliceRecords(t, data, at, slices.Concat(strayRecord(mcap.OpDataEnd), msg, body))
	badPath := filepath.Join(t.TempDir(), "loose.mcap")
	if err := os.WriteFile(badPath, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if ix := npmRead(t, badPath, "indexed"); len(ix.Messages) != 30 {
		t.Fatalf("McapIndexedReader reads %d messages, want the 30 of the chunks", len(ix.Messages))
	}
	st := npmRead(t, badPath, "stream-partial")
	got := npmMessages(t, st)
	if !st.Done || len(got) != 31 || !slices.Contains(got, loose) {
		t.Fatalf("McapStreamReader reads %d messages (done %v, %q), want 31 with the loose one", len(got), st.Done, st.Error)
	}
	r := openPeerFile(t, badPath)
	wantWhy := fmt.Sprintf("messages outside chunks, the first at offset %d, which the chunk index misses", at+int64(len(strayRecord(mcap.OpDataEnd))))
	if ok, why := r.Indexed(); ok || why != wantWhy {
		t.Errorf("Indexed() = %v (%s), want a read in file order: %s", ok, why, wantWhy)
	}
	if all := readAll(t, r, record.Filter{}); !equalMsgs(all, got) {
		t.Errorf("read %d messages, want the %d McapStreamReader reads", len(all), len(got))
	}
	rep, err := Recover(badPath, filepath.Join(t.TempDir(), "out.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 31 || len(rep.Skipped) != 1 || rep.Skipped[0].Offset != at {
		t.Errorf("Recover: %s %+v, want 31 messages and the data end record listed", rep, rep.Skipped)
	}
}

// TestStraySeeds reads the fuzz seeds of straySeeds without the npm peer,
// whole and with their last byte cut off (the file then has no footer to
// say where its data section ends: the stray footer is one that the
// magic does not follow, the stray data end record one that a chunk
// follows): every read (through the index when there is one, in file
// order, with WithSkipBad) and Recover give the 20 messages, as they do
// past the footer or data end record in the peer's files of
// TestStrayEndRecords. WithSkipBad and Recover report the record, and
// nothing else.
func TestStraySeeds(t *testing.T) {
	seeds := straySeeds(t)
	// decode's tests read the seed with the stray footer from a file.
	const shared = "../testdata/stray-footer.mcap"
	if *update {
		if err := os.WriteFile(shared, seeds[0], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(shared); err != nil || !bytes.Equal(b, seeds[0]) {
		t.Errorf("%s is not the seed with the stray footer (%v): go test -run TestStraySeeds -update", shared, err)
	}
	for i, whole := range seeds {
		for _, data := range [][]byte{whole, whole[:len(whole)-1]} {
			name := fmt.Sprintf("seed %d of %d bytes", i, len(data))
			for _, opts := range [][]Option{nil, {record.WithoutIndex()}} {
				var skipped []record.Skipped
				for _, skip := range []bool{false, true} {
					if skip {
						opts = append(opts, record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))
					}
					r, err := NewReader(bytes.NewReader(data), int64(len(data)), "seed.mcap", opts...)
					if err != nil {
						t.Fatal(err)
					}
					indexed, _ := r.Indexed()
					if got := readAll(t, r, record.Filter{}); len(got) != 20 || got[19].Sequence != 19 {
						t.Errorf("%s, options %d: %d messages, want 20", name, len(opts), len(got))
					}
					r.Close()
					if skip && (indexed && len(skipped) != 0 || !indexed && (len(skipped) != 1 || !errors.Is(skipped[0].Err, record.ErrFormat))) {
						t.Errorf("%s, options %d: reported %+v", name, len(opts), skipped)
					}
				}
			}
			// WithWarning takes the stray record: no damage is reported.
			var warned, skipped []record.Skipped
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), "seed.mcap", record.WithoutIndex(),
				record.WithWarning(func(s record.Skipped) { warned = append(warned, s) }), record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, r, record.Filter{}); len(got) != 20 || len(skipped) != 0 || len(warned) != 1 || !errors.Is(warned[0].Err, record.ErrFormat) {
				t.Errorf("%s, WithWarning: %d messages, skipped %+v, warned %+v; want 20, none and the stray record", name, len(got), skipped, warned)
			}
			r.Close()
			if rep := recoverBytes(t, t.TempDir(), data); rep == nil || rep.Messages != 20 || len(rep.Skipped) != 1 || !errors.Is(rep.Skipped[0].Err, record.ErrFormat) {
				t.Errorf("%s: Recover %v, want 20 messages and the stray record listed", name, rep)
			}
		}
	}
}
