package zfile

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/klauspost/compress/zstd"
)

// FuzzDecompress: any bytes either decompress or give a *record.Error;
// nothing panics, and a cut stream never passes as complete.
func FuzzDecompress(f *testing.F) {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	frame := enc.EncodeAll(bytes.Repeat([]byte("SQLite format 3\x00 rosbag2 split "), 200), nil)
	f.Add(frame)
	f.Add(frame[:len(frame)/2])
	f.Add(append(append([]byte{}, frame...), frame...))
	f.Add([]byte{})
	f.Add(Magic)
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := decompress(io.Discard, bytes.NewReader(b))
		var re *record.Error
		if err != nil && !errors.As(err, &re) {
			t.Fatalf("error %v is not a *record.Error", err)
		}
		if err == nil && len(b) == 0 {
			t.Fatalf("empty input decompressed to %d bytes", n)
		}
		if bytes.Equal(b, frame[:len(frame)/2]) && !errors.Is(err, record.ErrTruncated) {
			t.Fatalf("cut frame: %v", err)
		}
	})
}
