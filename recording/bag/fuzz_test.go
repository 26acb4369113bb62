package bag

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// seedBags returns small bags to seed the fuzzers: the small fixtures, the
// head of a large one, and bags from our Writer in each compression.
func seedBags(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"example-unsorted-chunks.bag", "no-messages.bag", "example.bag"} {
		path, ok := testenv.FixturesIfPresent(t, "rosbag-js", name)
		if !ok {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data[:min(len(data), 6<<10)])
	}
	for _, c := range []Compression{CompressionNone, CompressionLZ4, CompressionBZ2} {
		var buf writeSeeker
		w, err := NewWriter(&buf, WithCompression(string(c)), WithChunkSize(200))
		if err != nil {
			t.Fatal(err)
		}
		a, b := addString(t, w, "/a"), addString(t, w, "/b")
		for i := range 12 {
			id := a
			if i%3 == 0 {
				id = b
			}
			if err := w.WriteMessage(id, &record.Message{LogTime: int64(100-i) * 1e8, Data: stringMsg(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// checkErr fails unless err is nil, io.EOF or a *record.Error placed in a
// file.
func checkErr(t *testing.T, err error) {
	t.Helper()
	var e *record.Error
	if err != nil && err != io.EOF && (!errors.As(err, &e) || e.File == "") {
		t.Fatalf("error %T %v is not a placed *record.Error", err, err)
	}
}

// FuzzReader opens arbitrary bytes as a bag and reads everything in it,
// through the index and by scanning, strictly and skipping bad data.
func FuzzReader(f *testing.F) {
	for _, b := range seedBags(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, opts := range [][]Option{nil, {record.WithoutIndex()}, {record.WithSkipBad(nil), record.WithWorkers(2)}, {record.WithSkipBad(nil), record.WithWorkers(2)}} {
			var ra io.ReaderAt = bytes.NewReader(data)
			if i == 3 {
				// Read as a remote bag is: chunk headers read by the
				// workers, with the chunks they plan.
				ra = remoteLike{bytes.NewReader(data)}
			}
			r, err := NewReader(ra, int64(len(data)), "fuzz.bag", opts...)
			checkErr(t, err)
			if err != nil {
				continue
			}
			if opts != nil && r.opts.NoIndex {
				for _, p := range check(r) {
					if p.Offset < 0 || p.Offset > int64(len(data)) || p.Message == "" {
						t.Fatalf("problem %v", p)
					}
				}
			}
			_, err = r.Summary()
			checkErr(t, err)
			_, err = r.Channels()
			checkErr(t, err)
			for _, f := range []record.Filter{{}, {Topic: func(s string) bool { return s == "/a" }, Start: 3e9, End: 9e9}} {
				it, err := r.Messages(f)
				checkErr(t, err)
				if err != nil {
					continue
				}
				for {
					m, err := it.Next()
					checkErr(t, err)
					if err != nil {
						break
					}
					if m.Channel == nil || m.Channel.Schema == nil {
						t.Fatal("message without channel")
					}
				}
				it.Close()
			}
		}
	})
}

// FuzzParse feeds arbitrary header and data bytes to every record parser.
func FuzzParse(f *testing.F) {
	for _, b := range seedBags(f) {
		lex := NewLexer(bytes.NewReader(b), int64(len(b)), "seed", int64(len(Magic)))
		for {
			rec, err := lex.Next()
			if err != nil {
				break
			}
			data, _ := lex.ReadData(rec, nil)
			f.Add(bytes.Clone(rec.Header), data[:min(len(data), 4096)])
		}
	}
	f.Fuzz(func(t *testing.T, header, data []byte) {
		check := func(err error) {
			var e *record.Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error %T %v is not a *record.Error", err, err)
			}
			if e != nil && (e.Offset < 0 || e.Offset > int64(8+len(header)+len(data))) {
				t.Fatalf("error offset %d outside the record", e.Offset)
			}
		}
		_, err := RecordOp(header)
		check(err)
		_, err = ParseFields(header)
		check(err)
		_, err = ParseBagHeader(header)
		check(err)
		_, err = ParseChunkHeader(header)
		check(err)
		_, err = ParseConnection(header, data)
		check(err)
		_, err = ParseMessageData(header, data)
		check(err)
		x, err := ParseIndexData(header, data)
		check(err)
		if x != nil && len(x.Entries)*12 > len(data) {
			t.Fatal("index data entries beyond the data")
		}
		c, err := ParseChunkInfo(header, data)
		check(err)
		if c != nil && len(c.Counts)*8 > len(data) {
			t.Fatal("chunk info counts beyond the data")
		}
	})
}

// FuzzLexer frames arbitrary bytes as records, from a file and from a
// buffer, and decompresses them as chunk data.
func FuzzLexer(f *testing.F) {
	for _, b := range seedBags(f) {
		f.Add(b[len(Magic):], uint32(1000))
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint32) {
		lex := NewLexer(bytes.NewReader(data), int64(len(data)), "fuzz", 0)
		for {
			rec, err := lex.Next()
			if err != nil {
				checkErr(t, err)
				break
			}
			if rec.End() > int64(len(data)) || rec.Offset < 0 {
				t.Fatalf("record %+v outside %d bytes", rec, len(data))
			}
			if _, err := lex.ReadData(rec, nil); err != nil {
				t.Fatal(err)
			}
		}
		for p := 0; p < len(data); {
			_, _, next, err := splitRecord(data, p)
			if err != nil {
				break
			}
			if next <= p || next > len(data) {
				t.Fatalf("splitRecord at %d returned %d", p, next)
			}
			p = next
		}
		var d decompressor
		for _, c := range []Compression{CompressionLZ4, CompressionBZ2} {
			out, err := d.decompress(nil, c, data, size%(1<<22))
			if len(out) > int(size%(1<<22)) {
				t.Fatalf("%s: %d bytes decompressed, size %d", c, len(out), size)
			}
			var e *record.Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("%s: error %T %v", c, err, err)
			}
		}
	})
}

// remoteLike is a reader that prefetches and plans, as a remote object
// does, so that a bag reads it as it reads one (chunk headers read with
// their chunks).
type remoteLike struct{ *bytes.Reader }

func (remoteLike) Prefetch([]int64, int64) {}
func (remoteLike) Plan([][2]int64)         {}
