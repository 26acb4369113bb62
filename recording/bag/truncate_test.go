package bag

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
)

// TestTruncatedFixtures cuts each fixture at many byte positions (every
// byte of the small ones). Every cut must give either an Open error that
// says the file is truncated, or a clean prefix of the messages in file
// order followed by io.EOF or a truncation error; never a panic, never a
// wrong message. With WithSkipBad the same prefix ends in io.EOF.
func TestTruncatedFixtures(t *testing.T) {
	for _, c := range []struct {
		name string
		cuts int // number of cut positions; 0 = every byte
		tail int // the last bytes are the index: cut each of them
	}{
		{"example-unsorted-chunks.bag", 0, 0},
		{"no-messages.bag", 0, 0},
		{"example.bag", 120, 40},
		{"example-lz4.bag", 40, 5},
		{"example-bz2.bag", 8, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(rosbagJS(t, c.name))
			if err != nil {
				t.Fatal(err)
			}
			full, err := readCut(t, data, false, nil, record.WithoutIndex())
			if err != nil {
				t.Fatal(err)
			}
			step := 1
			if c.cuts > 0 {
				step = len(data)/c.cuts + 1
			}
			for cut := 0; cut < len(data); cut += step {
				checkCut(t, data[:cut], data, full)
			}
			for cut := len(data) - c.tail; cut < len(data); cut++ {
				checkCut(t, data[:cut], data, full)
			}
		})
	}
}

// checkCut reads data, a cut of data0 whose messages are full.
func checkCut(t *testing.T, data, data0 []byte, full []msg) {
	t.Helper()
	cut := len(data)
	got, err := readCut(t, data, false, nil)
	if err != nil && !errors.Is(err, record.ErrTruncated) {
		t.Fatalf("cut at %d: %v, want a truncation error", cut, err)
	}
	var e *record.Error
	if err != nil && (!errors.As(err, &e) || e.File != "cut.bag" || e.Offset < 0 || e.Offset > int64(cut)) {
		t.Fatalf("cut at %d: error %#v does not place the damage in the file", cut, err)
	}
	if len(got) > len(full) {
		t.Fatalf("cut at %d: %d messages, the whole file has %d", cut, len(got), len(full))
	}
	equalMsgs(t, got, full[:len(got)])
	var skipped []record.Skipped
	got2, err2 := readCut(t, data, true, &skipped)
	if err2 != nil && !(errors.Is(err2, record.ErrTruncated) && got2 == nil) {
		// Only Open (magic, bag header) may fail with WithSkipBad.
		t.Fatalf("cut at %d with WithSkipBad: %v", cut, err2)
	}
	// A closed bag whose index the cut takes away fails at Open; with
	// WithSkipBad every complete message before the cut is read.
	if len(got2) < len(got) || len(got2) > len(full) {
		t.Fatalf("cut at %d: WithSkipBad gives %d messages, strict %d", cut, len(got2), len(got))
	}
	equalMsgs(t, got2, full[:len(got2)])
	if err2 == nil && cut <= indexPos(data0) && (err == nil || len(skipped) == 0) {
		// No silent loss: a cut before the index section is an error, or
		// reported skipped. (A cut inside the index section loses no
		// message: the chunks are read by a scan.)
		t.Fatalf("cut at %d: strict %v, skipped %v", cut, err, skipped)
	}
	for _, s := range skipped {
		if s.Offset < 0 || s.Offset+s.Length > int64(cut) || s.Err == nil {
			t.Fatalf("cut at %d: skipped %+v", cut, s)
		}
	}
	// Summary and Channels of a cut file fail cleanly or describe a prefix.
	r, err := NewReader(bytes.NewReader(data), int64(cut), "cut.bag")
	if err != nil {
		return
	}
	if s, err := r.Summary(); err == nil && s.MessageCount > uint64(len(full)) {
		t.Fatalf("cut at %d: summary counts %d messages", cut, s.MessageCount)
	}
	if _, err := r.Channels(); err != nil && !errors.Is(err, record.ErrTruncated) {
		t.Fatalf("cut at %d: Channels: %v", cut, err)
	}
}

// indexPos is the index_pos of the bag header of data.
func indexPos(data []byte) int {
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "x.bag", record.WithoutIndex())
	if err != nil {
		return -1
	}
	return int(r.Header().IndexPos)
}

// TestEmptyAndShortFiles: files that end before a bag begins.
func TestEmptyAndShortFiles(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  string
		cause error
	}{
		{"empty", "", record.ErrTruncated},
		{"half magic", "#ROSBAG", record.ErrTruncated},
		{"magic only", Magic, record.ErrTruncated},
		{"text", "hello, world, not a bag at all", record.ErrFormat},
		{"bag 1.2", "#ROSRECORD V1.2\n", record.ErrUnsupported},
		{"zero header", Magic + "\x00\x00\x00\x00", record.ErrFormat},
		{"huge header", Magic + "\xff\xff\xff\x7f", record.ErrTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader([]byte(c.data)), int64(len(c.data)), "x.bag")
			var e *record.Error
			if !errors.Is(err, c.cause) || !errors.As(err, &e) || e.File != "x.bag" {
				t.Fatalf("NewReader = %v, want %v", err, c.cause)
			}
		})
	}
}

// TestDamagedChunk: a byte changed inside a compressed chunk stops
// iteration with an error at that chunk; WithSkipBad skips the chunk and
// goes on with the next.
func TestDamagedChunk(t *testing.T) {
	var buf writeSeeker
	w, err := NewWriter(&buf, WithCompression(string(CompressionLZ4)), WithChunkSize(4096))
	if err != nil {
		t.Fatal(err)
	}
	id := addString(t, w, "/a")
	for i := range 2000 {
		if err := w.WriteMessage(id, &record.Message{LogTime: int64(i+1) * 1e6, Data: stringMsg(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := slices.Clone(buf.Bytes())
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "d.bag")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.chunks) < 4 {
		t.Fatalf("%d chunks", len(r.chunks))
	}
	bad := r.chunks[1]
	// Corrupt the LZ4 frame's first block header.
	data[bad.dataOffset+7] ^= 0xff
	data[bad.dataOffset+8] ^= 0xff
	for _, linear := range []bool{false, true} {
		opts := []Option{}
		if linear {
			opts = append(opts, record.WithoutIndex())
		}
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), "d.bag", opts...)
		if err != nil {
			t.Fatal(err)
		}
		n, err := count(t, r)
		var e *record.Error
		if !errors.As(err, &e) || e.Offset < bad.pos || e.Offset > bad.end() {
			t.Fatalf("linear %v: after %d messages: %v, want an error in chunk %d..%d", linear, n, err, bad.pos, bad.end())
		}
		var skipped []record.Skipped
		r, _ = NewReader(bytes.NewReader(data), int64(len(data)), "d.bag",
			append(opts, record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))...)
		n2, err := count(t, r)
		lost := int(bad.info.MessageCount())
		if err != nil || len(skipped) != 1 || skipped[0].Offset != bad.pos || n2 < 2000-lost || n2 == 2000 {
			t.Fatalf("linear %v: skip-bad read %d of 2000 (chunk has %d): %v, skipped %+v", linear, n2, lost, err, skipped)
		}
	}
}

func count(t *testing.T, r *Reader) (int, error) {
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return 0, err
	}
	n := 0
	err = recordtest.Read(t, it, func(*record.Message) { n++ })
	return n, err
}
