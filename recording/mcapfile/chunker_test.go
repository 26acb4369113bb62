package mcapfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// writeReusing writes the test file's records through one data buffer
// that it overwrites after each WriteMessage, as readers reuse theirs,
// with a 9 MB message among them. With encode, EncodeMessage writes each
// message instead, every seventh after an encoder that fails half way.
func writeReusing(t *testing.T, path string, encode bool, opts ...WriterOption) {
	t.Helper()
	w, err := Create(path, append(opts, WithChunkSize(64<<10))...)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint32
	for _, c := range testChannels[:2] {
		id, err := w.AddChannel(c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var buf []byte
	for i := range testMessages {
		ch, lt, data := testMessage(i)
		if i == 300 {
			data = bytes.Repeat([]byte{7}, 9<<20)
		}
		buf = append(buf[:0], data...)
		m := &record.Message{LogTime: lt, PublishTime: lt, Sequence: uint64(i), Data: buf}
		if encode {
			errHalfWay := errors.New("half way")
			if i%7 == 0 {
				err := w.EncodeMessage(ids[ch%2], m, func(dst []byte) ([]byte, error) {
					_ = append(dst, buf[:len(buf)/2]...)
					return dst, errHalfWay
				})
				if err != errHalfWay {
					t.Fatalf("message %d: a failing encoder gave %v, want its error", i, err)
				}
			}
			m.Data = nil
			err = w.EncodeMessage(ids[ch%2], m, func(dst []byte) ([]byte, error) { return append(dst, buf...), nil })
		} else {
			err = w.WriteMessage(ids[ch%2], m)
		}
		if err != nil {
			t.Fatal(err)
		}
		for j := range buf {
			buf[j] ^= 0xff
		}
		if i == 200 { // a channel and metadata amid the messages
			if _, err := w.AddChannel(testChannels[2]); err != nil {
				t.Fatal(err)
			}
			if err := w.AddMetadata("m", map[string]string{"k": "v"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBackgroundWritesSameRecords: the chunks built and compressed in
// parallel hold the records the library writes when called directly,
// though the caller overwrites each message's data once WriteMessage
// returns; the MCAP library reads both the same, by index and in file
// order, with the same summary.
func TestBackgroundWritesSameRecords(t *testing.T) {
	for _, comp := range []string{"zstd", "lz4", "none"} {
		dir := t.TempDir()
		direct, bg := filepath.Join(dir, "direct.mcap"), filepath.Join(dir, "bg.mcap")
		writeReusing(t, direct, false, WithCompression(comp))
		writeReusing(t, bg, false, WithCompression(comp), WithBackgroundWrites())
		for _, useIndex := range []bool{true, false} {
			want, got := libraryView(t, direct, useIndex), libraryView(t, bg, useIndex)
			if len(got) != len(want) {
				t.Fatalf("%s, index %v: %d records read back, want %d", comp, useIndex, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, index %v: record %d is %.200q, want %.200q", comp, useIndex, i, got[i], want[i])
				}
			}
		}
	}
}

// TestEncodeMessageWritesWhatWriteMessageDoes: EncodeMessage, which
// encodes into the open chunk with background writes, writes the file
// WriteMessage does, byte for byte, with and without background writes,
// though encoders that fail half way come between the messages.
func TestEncodeMessageWritesWhatWriteMessageDoes(t *testing.T) {
	for _, comp := range []string{"zstd", "none"} {
		for _, bg := range []bool{false, true} {
			opts := []WriterOption{WithCompression(comp)}
			if bg {
				opts = append(opts, WithBackgroundWrites())
			}
			dir := t.TempDir()
			written, encoded := filepath.Join(dir, "written.mcap"), filepath.Join(dir, "encoded.mcap")
			writeReusing(t, written, false, opts...)
			writeReusing(t, encoded, true, opts...)
			want, err := os.ReadFile(written)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(encoded)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, background %v: EncodeMessage wrote %d bytes (sha256 %x), WriteMessage %d (%x)", comp, bg, len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
			}
		}
	}
}

// openLibrary opens path with the MCAP library's reader, closed when the
// test ends.
func openLibrary(t *testing.T, path string) *mcap.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// libraryView is what the MCAP library reads from path: its summary
// (statistics, channels, schemas, chunk count, metadata) and every message,
// each as a line.
func libraryView(t *testing.T, path string, useIndex bool) []string {
	t.Helper()
	r := openLibrary(t, path)
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	s := info.Statistics
	view := []string{fmt.Sprintf("stats: %d messages, %d schemas, %d channels, %d metadata, times %d-%d, per channel %v",
		s.MessageCount, s.SchemaCount, s.ChannelCount, s.MetadataCount, s.MessageStartTime, s.MessageEndTime, s.ChannelMessageCounts)}
	for _, id := range slices.Sorted(maps.Keys(info.Channels)) {
		c := info.Channels[id]
		schema := "none"
		if sc := info.Schemas[c.SchemaID]; sc != nil {
			schema = fmt.Sprintf("%s %s %q", sc.Name, sc.Encoding, sc.Data)
		}
		view = append(view, fmt.Sprintf("channel %d %s %s %v schema %s", id, c.Topic, c.MessageEncoding, c.Metadata, schema))
	}
	var chunkMessages uint64
	for _, ci := range info.ChunkIndexes {
		if ci.Compression != info.ChunkIndexes[0].Compression {
			t.Errorf("%s: chunks compressed with %q and %q", path, ci.Compression, info.ChunkIndexes[0].Compression)
		}
		chunkMessages += uint64(len(ci.MessageIndexOffsets))
	}
	view = append(view, fmt.Sprintf("chunk compression %q, %d metadata indexes", info.ChunkIndexes[0].Compression, len(info.MetadataIndexes)))
	if chunkMessages == 0 {
		t.Errorf("%s: no message index", path)
	}
	it, err := r.Messages(mcap.UsingIndex(useIndex), mcap.InOrder(mcap.FileOrder), mcap.WithMetadataCallback(func(m *mcap.Metadata) error {
		view = append(view, fmt.Sprintf("metadata %s %v", m.Name, m.Metadata))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, c, m, err := it.NextInto(nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		view = append(view, fmt.Sprintf("message %s %d %d %d %x", c.Topic, m.Sequence, m.LogTime, m.PublishTime, sha256.Sum256(m.Data)))
	}
	return view
}

// failAfter fails every write once n bytes were written.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		return 0, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestBackgroundWriteError: a write error on the background goroutine is
// returned by a later call and by Close, never lost.
func TestBackgroundWriteError(t *testing.T) {
	w, err := NewWriter(&failAfter{n: 100 << 10}, WithCompression("none"), WithChunkSize(32<<10), WithBackgroundWrites())
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(testChannels[0])
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 10<<10)
	var failed error
	for i := range 1000 {
		if failed = w.WriteMessage(id, &record.Message{LogTime: int64(i), Data: data}); failed != nil {
			break
		}
	}
	if !errors.Is(failed, errDiskFull) {
		t.Errorf("WriteMessage after the failure: %v, want %v", failed, errDiskFull)
	}
	if err := w.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close: %v, want %v", err, errDiskFull)
	}
}

// TestStoreUnhelpedChunks: with WithStoreUnhelpedChunks, a chunk under
// 1 KiB or one that compression shrinks by less than 2% is written
// uncompressed (compression ""), as libmcap writes chunks without
// forceCompression, and the others are compressed; the MCAP library
// reads every message back, by index and in file order. Without it, every
// chunk is compressed; without background writes, the option is refused.
func TestStoreUnhelpedChunks(t *testing.T) {
	const chunk = 64 << 10
	random := func(n int, seed byte) []byte {
		b := make([]byte, n)
		x := uint32(seed) + 1
		for i := range b {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b[i] = byte(x)
		}
		return b
	}
	// the bytes of each chunk's one message: zeros in the given share of
	// them, the rest random; the last is a chunk of 700 bytes
	bodies := []struct {
		zeros float64
		n     int
	}{{0, chunk}, {0.005, chunk}, {0.2, chunk}, {1, chunk}, {0, 700}, {1, 700}}
	for _, comp := range []string{"zstd", "lz4"} {
		for _, unhelped := range []bool{true, false} {
			path := filepath.Join(t.TempDir(), "out.mcap")
			opts := []WriterOption{WithCompression(comp), WithChunkSize(chunk - 100), WithBackgroundWrites()}
			if unhelped {
				opts = append(opts, WithStoreUnhelpedChunks())
			}
			w, err := Create(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			id, err := w.AddChannel(testChannels[0])
			if err != nil {
				t.Fatal(err)
			}
			var sent [][]byte
			for i, b := range bodies {
				data := random(b.n, byte(i))
				clear(data[:int(b.zeros*float64(b.n))])
				sent = append(sent, data)
				if err := w.WriteMessage(id, &record.Message{LogTime: int64(i + 1), Data: data}); err != nil {
					t.Fatal(err)
				}
				if i == len(bodies)-2 { // the chunk closed, the last message in one of its own
					if err := w.AddMetadata("m", map[string]string{"k": "v"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			info, err := openLibrary(t, path).Info()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ci := range info.ChunkIndexes {
				got = append(got, string(ci.Compression))
			}
			// random (the schema and channel records with it), 0.5% zeros
			// (compression saves under 2%), 20% zeros, zeros; 700 random
			// bytes, then 700 zeros (compressible, but under 1 KiB)
			want := []string{"", "", comp, comp, "", ""}
			if !unhelped {
				want = []string{comp, comp, comp, comp, comp, comp}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, unhelped %v: chunk compressions %q, want %q", comp, unhelped, got, want)
			}
			for _, useIndex := range []bool{true, false} {
				it, err := openLibrary(t, path).Messages(mcap.UsingIndex(useIndex), mcap.InOrder(mcap.FileOrder))
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; ; i++ {
					_, _, m, err := it.NextInto(nil)
					if err == io.EOF {
						if i != len(sent) {
							t.Errorf("%s, unhelped %v, index %v: %d messages read back, want %d", comp, unhelped, useIndex, i, len(sent))
						}
						break
					}
					if err != nil {
						t.Fatalf("%s, unhelped %v, index %v: message %d: %v", comp, unhelped, useIndex, i, err)
					}
					if i >= len(sent) || !bytes.Equal(m.Data, sent[i]) {
						t.Fatalf("%s, unhelped %v, index %v: message %d read back differs", comp, unhelped, useIndex, i)
					}
				}
			}
		}
	}
	if _, err := NewWriter(io.Discard, WithStoreUnhelpedChunks()); err == nil {
		t.Error("WithStoreUnhelpedChunks without background writes: no error")
	}
}
