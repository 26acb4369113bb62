// Package zfile decompresses a file compressed whole with zstd (a split of
// a rosbag2 folder recorded with compression_mode FILE) into a private
// temporary file, for readers that need random access to the content.
package zfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/baglab/baglab/record"
	"github.com/klauspost/compress/zstd"
)

// MaxWindow is the largest zstd window (the history a frame may refer
// back to, which the decoder must hold in memory) accepted: 128 MiB, the
// window of `zstd --long` and of the highest levels. A frame declaring a
// larger one is refused rather than trusted.
const MaxWindow = 1 << 27

// Magic is the first four bytes of a zstd frame.
var Magic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// File is the decompressed content of a compressed file, held in a
// temporary file of the OS temp directory (mode 0600). Where the system
// allows it (Unix), the temporary file is unlinked as soon as it is
// created, so that nothing stays behind whatever ends the process;
// elsewhere it is removed by Close and on every error path.
type File struct {
	f      *os.File
	size   int64
	linked string // the temporary file's name while it is still linked
	closed bool
}

// ReadAt reads the decompressed content.
func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }

// Size is the length of the decompressed content.
func (f *File) Size() int64 { return f.size }

// Close closes and removes the temporary file; it is idempotent.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	err := f.f.Close()
	if f.linked != "" {
		if rerr := os.Remove(f.linked); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// countingReader counts the bytes read from the compressed file.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Decompress streams the zstd content of the file at path (one or more
// frames) into a new temporary file, never holding more than the
// decoder's window in memory. A damaged or cut stream is a *record.Error
// naming path and the compressed byte offset the decoder had read up to
// (ErrTruncated when the stream ends inside a frame or the file is empty,
// ErrFormat otherwise); failing to read path or to write the temporary
// file is returned as it is.
func Decompress(path string) (*File, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	tmp, err := os.CreateTemp("", "baglab-split-*")
	if err != nil {
		return nil, err
	}
	f := &File{f: tmp, linked: tmp.Name()}
	if os.Remove(tmp.Name()) == nil {
		f.linked = ""
	}
	src := &countingReader{r: in}
	n, err := decompress(tmp, src)
	if err != nil {
		f.Close()
		var re *record.Error
		if errors.As(err, &re) {
			re.File = path
			re.Offset = src.n
			re.Detail += fmt.Sprintf(" (%d bytes decompressed before)", n)
		}
		return nil, err
	}
	f.size = n
	return f, nil
}

// decompress copies the decompressed stream of src to dst. Errors of the
// stream are *record.Error without file and offset.
func decompress(dst io.Writer, src io.Reader) (int64, error) {
	br := bufio.NewReaderSize(src, 1<<16)
	head, _ := br.Peek(len(Magic))
	if len(head) == 0 {
		return 0, &record.Error{Field: "zstd stream", Err: record.ErrTruncated, Detail: "the file is empty"}
	}
	d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(MaxWindow), zstd.WithDecoderLowmem(true))
	if err != nil {
		return 0, err
	}
	defer d.Close()
	var n int64
	buf := make([]byte, 1<<16)
	for {
		k, rerr := d.Read(buf)
		if k > 0 {
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return n, fmt.Errorf("writing the decompressed file: %w", werr)
			}
			n += int64(k)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, streamError(rerr)
		}
	}
}

// streamError describes a decoder error as bad data.
func streamError(err error) error {
	sentinel := record.ErrFormat
	if errors.Is(err, io.ErrUnexpectedEOF) {
		sentinel = record.ErrTruncated
		return &record.Error{Field: "zstd stream", Err: sentinel, Detail: "the compressed stream ends inside a frame"}
	}
	return &record.Error{Field: "zstd stream", Err: sentinel, Detail: "zstd: " + err.Error()}
}

// MaxMessage is the most one message may decompress to: 1 GiB, as the
// decoder's memory bound.
const MaxMessage = 1 << 30

// MessageDecoder decompresses messages compressed one by one with zstd
// (rosbag2's compression_mode MESSAGE), reusing one buffer: what Decode
// returns is valid until the next call. Its zero value is ready to use.
type MessageDecoder struct {
	d   *zstd.Decoder
	buf []byte
}

// Decode decompresses data, one message's zstd frame(s). A damaged frame,
// or one that would decompress to more than MaxMessage, is an error
// without file or offset (the caller knows them).
func (m *MessageDecoder) Decode(data []byte) ([]byte, error) {
	if m.d == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxMessage))
		if err != nil {
			return nil, err
		}
		m.d = d
	}
	var err error
	m.buf, err = m.d.DecodeAll(data, m.buf[:0])
	return m.buf, err
}

// Close releases the decoder; the zero value again.
func (m *MessageDecoder) Close() {
	if m.d != nil {
		m.d.Close()
		m.d = nil
	}
}
