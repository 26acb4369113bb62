package mcapfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"
)

// writeReusing writes the test file's records through one data buffer
// that it overwrites after each WriteMessage, as readers reuse theirs,
// with a 9 MB message among them.
func writeReusing(t *testing.T, path string, opts ...WriterOption) {
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
		if err := w.WriteMessage(ids[ch%2], &record.Message{LogTime: lt, PublishTime: lt, Sequence: uint64(i), Data: buf}); err != nil {
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

// TestBackgroundWritesSameBytes: writing on the background goroutine gives
// the file the library writes when called directly, byte for byte, though
// the caller overwrites each message's data once WriteMessage returns.
func TestBackgroundWritesSameBytes(t *testing.T) {
	for _, comp := range []string{"zstd", "lz4", "none"} {
		dir := t.TempDir()
		direct, bg := filepath.Join(dir, "direct.mcap"), filepath.Join(dir, "bg.mcap")
		writeReusing(t, direct, WithCompression(comp))
		writeReusing(t, bg, WithCompression(comp))
		a, err := os.ReadFile(direct)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(bg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: background writes give %d bytes that differ from the direct %d", comp, len(b), len(a))
		}
	}
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
