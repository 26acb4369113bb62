package recording_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// writeMany writes n std_msgs/String messages on two topics, in small
// uncompressed chunks, so that every message's Offset is its record's.
func writeMany(t *testing.T, w record.Writer, n int) {
	t.Helper()
	var ids []uint32
	for _, topic := range []string{"/a", "/b"} {
		id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "ros1",
			Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: stringMD5}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i := range n {
		at := int64(1e18) + int64(i)*1e6
		data := stringMsg(fmt.Sprintf("message %d %s", i, strings.Repeat("x", i%50)))
		if err := w.WriteMessage(ids[i%2], &record.Message{LogTime: at, PublishTime: at, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// offsets reads path through its index and returns every message's file
// offset, and the offsets of its chunk records (from the messages'
// chunks: the record before each run).
func offsets(t *testing.T, path string) []int64 {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	recordtest.Each(t, it, func(m *record.Message) { out = append(out, m.Offset) })
	return out
}

// readAll reads every message of path, with skip-bad or not, and returns
// the count, the skips reported and the error that ended the read.
func readAll(t *testing.T, path string, skipBad bool) (n int, skips []error, err error) {
	var o recording.OpenOptions
	if skipBad {
		o.OnSkip = func(err error) { skips = append(skips, err) }
	}
	r, err := recording.OpenWith(path, o)
	if err != nil {
		return 0, skips, err
	}
	defer r.Close()
	if _, err := r.Summary(); err != nil {
		return 0, skips, err
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return 0, skips, err
	}
	err = recordtest.Read(t, it, func(*record.Message) { n++ })
	return n, skips, err
}

// TestCutAfterClose cuts a closed bag and a closed MCAP file at every
// chunk boundary (issue 10 point 1). The cut file is bad input: the strict
// read fails with a truncation error (a bag names the lost index: "the
// index at N is past the end of the file (M bytes)"), never a silent
// prefix; with skip-bad it reports the loss and reads every message of the
// chunks before the cut, a count taken from the untruncated file's index.
func TestCutAfterClose(t *testing.T) {
	dir := t.TempDir()
	bw, err := bag.Create(filepath.Join(dir, "full.bag"), bag.WithChunkSize(2048))
	if err != nil {
		t.Fatal(err)
	}
	writeMany(t, bw, 400)
	mw, err := mcapfile.Create(filepath.Join(dir, "full.mcap"), mcapfile.WithChunkSize(2048), mcapfile.WithCompression("none"))
	if err != nil {
		t.Fatal(err)
	}
	writeMany(t, mw, 400)
	for _, name := range []string{"full.bag", "full.mcap"} {
		full := filepath.Join(dir, name)
		data, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		offs := offsets(t, full)
		if len(offs) != 400 {
			t.Fatalf("%s: %d messages", name, len(offs))
		}
		cuts := chunkStarts(t, full, data)
		if len(cuts) < 10 {
			t.Fatalf("%s: %d chunks", name, len(cuts))
		}
		for _, cut := range cuts[1:] {
			want := 0
			for _, o := range offs {
				if o < cut {
					want++
				}
			}
			path := filepath.Join(dir, "cut-"+name)
			if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := readAll(t, path, false)
			if !errors.Is(err, record.ErrTruncated) {
				t.Fatalf("%s cut at %d: strict read ends with %v, want a truncation error", name, cut, err)
			}
			if name == "full.bag" && !strings.Contains(err.Error(), fmt.Sprintf("the index at %d is past the end of the file (%d bytes)", bagIndexPos(t, full), cut)) {
				t.Fatalf("%s cut at %d: %v", name, cut, err)
			}
			n, skips, err := readAll(t, path, true)
			if err != nil || n != want || len(skips) == 0 {
				t.Fatalf("%s cut at %d: skip-bad reads %d messages (want %d), skips %v, %v", name, cut, n, want, skips, err)
			}
		}
	}
}

// chunkStarts lists the offsets of the chunk records of a file written
// with uncompressed chunks: for a bag the records at "op=\x05" headers,
// for MCAP the chunk opcode at each top-level record.
func chunkStarts(t *testing.T, path string, data []byte) []int64 {
	t.Helper()
	var out []int64
	if strings.HasSuffix(path, ".bag") {
		lex := bag.NewLexer(strings.NewReader(string(data)), int64(len(data)), path, int64(len(bag.Magic)))
		for {
			rec, err := lex.Next()
			if err != nil {
				return out
			}
			if rec.Op == bag.OpChunk {
				out = append(out, rec.Offset)
			}
		}
	}
	for p := int64(8); p+9 <= int64(len(data)); {
		op := data[p]
		n := int64(data[p+1]) | int64(data[p+2])<<8 | int64(data[p+3])<<16 | int64(data[p+4])<<24
		if op == 0x06 {
			out = append(out, p)
		}
		if op == 0x0f { // data end
			return out
		}
		p += 9 + n
	}
	return out
}

func bagIndexPos(t *testing.T, path string) uint64 {
	t.Helper()
	r, err := bag.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Header().IndexPos
}

// damaged is a copy of a bag with one change, and what reading it must
// give: every message of the untruncated file but those lost.
type damaged struct {
	name string
	edit func(t *testing.T, data []byte, chunks []int64) (out []byte, lost func(off int64) bool)
}

// TestSalvageChunks damages one chunk of a bag in ways that lose its
// framing and checks that every intact chunk comes back, and every intact
// message of the damaged one where the damage allows, under skip-bad and
// in bag.Reindex (issue 10 point 3). The messages that must come back are
// counted from the undamaged file's index.
func TestSalvageChunks(t *testing.T) {
	dir := t.TempDir()
	for _, comp := range []bag.Compression{bag.CompressionNone, bag.CompressionLZ4} {
		full := filepath.Join(dir, "full-"+string(comp)+".bag")
		bw, err := bag.Create(full, bag.WithChunkSize(2048), bag.WithCompression(string(comp)))
		if err != nil {
			t.Fatal(err)
		}
		writeMany(t, bw, 600)
		data, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		chunks := chunkStarts(t, full, data)
		if len(chunks) < 20 {
			t.Fatalf("%d chunks", len(chunks))
		}
		// Message offsets of the undamaged file: with stored chunks the
		// record's, else the chunk's.
		offs := offsets(t, full)
		chunkOf := func(off int64) int64 {
			i := len(chunks) - 1
			for i > 0 && chunks[i] > off {
				i--
			}
			return chunks[i]
		}
		victim := chunks[len(chunks)/3]
		cases := []damaged{
			{"data_len 0xFFFFFFFF", func(t *testing.T, d []byte, _ []int64) ([]byte, func(int64) bool) {
				hl := int64(le32(d[victim:]))
				put32(d[victim+4+hl:], 0xFFFFFFFF)
				return d, func(int64) bool { return false } // its records are salvaged up to the next chunk
			}},
		}
		if comp != bag.CompressionNone {
			// (A stored chunk's size field is not needed to read it.)
			cases = append(cases, damaged{"chunk size 4 GiB", func(t *testing.T, d []byte, _ []int64) ([]byte, func(int64) bool) {
				i := bytesIndex(d[victim:victim+200], "size=")
				put32(d[victim+int64(i)+5:], 0xFFFFFFFF)
				return d, func(int64) bool { return false }
			}})
		} else {
			cases = append(cases, damaged{"one record's header_len", func(t *testing.T, d []byte, _ []int64) ([]byte, func(int64) bool) {
				// The third message of the victim chunk.
				var msgs []int64
				for _, o := range offs {
					if chunkOf(o) == victim {
						msgs = append(msgs, o)
					}
				}
				bad := msgs[2]
				put32(d[bad:], 0x7FFFFFF0)
				return d, func(off int64) bool { return off == bad }
			}})
		}
		for _, c := range cases {
			t.Run(string(comp)+"/"+c.name, func(t *testing.T) {
				d, lost := c.edit(t, append([]byte(nil), data...), chunks)
				path := filepath.Join(t.TempDir(), "bad.bag")
				if err := os.WriteFile(path, d, 0o644); err != nil {
					t.Fatal(err)
				}
				want := 0
				for _, o := range offs {
					if !lost(o) {
						want++
					}
				}
				n, skips, err := readAll(t, path, true)
				if err != nil || n != want || len(skips) == 0 {
					t.Errorf("skip-bad: %d messages, want %d (of %d); skips %v; %v", n, want, len(offs), skips, err)
				}
				rep, err := bag.Reindex(path, filepath.Join(t.TempDir(), "out.bag"))
				if err != nil || rep.Messages != want || len(rep.Skipped) == 0 {
					t.Errorf("reindex: %v, want %d messages; %v", rep, want, err)
				}
			})
		}
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func put32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func bytesIndex(b []byte, s string) int { return strings.Index(string(b), s) }

// TestRecoverRecordsLength damages the records-length field of one MCAP
// chunk: Recover keeps the chunk's records that frame, as skip-bad readers
// do, so both give every message of the undamaged file (issue 10 point 3;
// Recover dropped the chunk).
func TestRecoverRecordsLength(t *testing.T) {
	dir := t.TempDir()
	for _, comp := range []string{"none", "zstd", "lz4"} {
		full := filepath.Join(dir, "full-"+comp+".mcap")
		mw, err := mcapfile.Create(full, mcapfile.WithChunkSize(2048), mcapfile.WithCompression(comp))
		if err != nil {
			t.Fatal(err)
		}
		writeMany(t, mw, 600)
		data, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		want := len(offsets(t, full))
		chunks := chunkStarts(t, full, data)
		victim := chunks[len(chunks)/2]
		// Chunk body: start, end, uncompressed size (u64 each), CRC (u32),
		// compression (u32 length + name), records length (u64).
		b := victim + 9
		put32(data[b+32+int64(le32(data[b+28:])):], 0xFFFFFFF0)
		path := filepath.Join(dir, "bad-"+comp+".mcap")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n, skips, err := readAll(t, path, true)
		if err != nil || n != want || len(skips) != 1 {
			t.Errorf("%s: skip-bad reads %d of %d, skips %v, %v", comp, n, want, skips, err)
		}
		rep, err := mcapfile.Recover(path, filepath.Join(dir, "rec-"+comp+".mcap"))
		if err != nil || rep.Messages != uint64(want) || len(rep.Skipped) != 1 || rep.Skipped[0].Kept == 0 {
			t.Errorf("%s: recover %v, want %d messages; %v", comp, rep, want, err)
		}
	}
}

// TestSkipBadDropsUnverified: under skip-bad the messages of an MCAP chunk
// whose CRC fails are left out and reported as dropped; KeepUnverified
// keeps them, each marked Unverified (issue 10 point 4).
func TestSkipBadDropsUnverified(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.mcap")
	mw, err := mcapfile.Create(full, mcapfile.WithChunkSize(2048), mcapfile.WithCompression("none"))
	if err != nil {
		t.Fatal(err)
	}
	writeMany(t, mw, 300)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	offs := offsets(t, full)
	chunks := chunkStarts(t, full, data)
	victim, next := chunks[3], chunks[4]
	inVictim := 0
	var first int64 = -1
	for _, o := range offs {
		if o > victim && o < next {
			inVictim++
			if first < 0 {
				first = o
			}
		}
	}
	// "message N" -> "messagf N": the records still frame, the CRC fails.
	i := strings.Index(string(data[first:next]), "message ")
	data[first+int64(i)+6] = 'f'
	path := filepath.Join(dir, "crc.mcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		var skips []error
		r, err := recording.OpenWith(path, recording.OpenOptions{OnSkip: func(err error) { skips = append(skips, err) }, KeepUnverified: keep})
		if err != nil {
			t.Fatal(err)
		}
		it, _ := r.Messages(record.Filter{})
		n, unverified, damaged := 0, 0, 0
		for {
			m, err := it.Next()
			if err != nil {
				break
			}
			n++
			if m.Unverified {
				unverified++
			}
			if strings.Contains(string(m.Data), "messagf") {
				damaged++
			}
		}
		it.Close()
		r.Close()
		want, wantUnverified, note := len(offs)-inVictim, 0, fmt.Sprintf("%d messages dropped: no CRC vouches for them", inVictim)
		if keep {
			want, wantUnverified, note = len(offs), inVictim, "their content may be damaged"
		}
		if n != want || unverified != wantUnverified || damaged != wantUnverified/inVictim || len(skips) != 1 ||
			!errors.Is(skips[0], record.ErrCRC) || !strings.Contains(skips[0].Error(), note) {
			t.Errorf("keep %v: %d messages (want %d), %d unverified (want %d), %d damaged; skips %v", keep, n, want, unverified, wantUnverified, damaged, skips)
		}
	}
}
