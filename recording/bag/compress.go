package bag

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/baglab/baglab/record"
	"github.com/dsnet/compress/bzip2"
	"github.com/pierrec/lz4/v4"
)

// decompressor inflates chunk data, reusing its LZ4 and bzip2 state
// between chunks. One per goroutine. (github.com/dsnet/compress/bzip2
// reads bzip2 about 1.8 times as fast as compress/bzip2 and, unlike it,
// keeps its 4 MB of block buffers across Reset.)
type decompressor struct {
	src bytes.Reader
	lz4 *lz4.Reader
	bz2 *bzip2.Reader
}

// decompress inflates src, the data of a chunk compressed with c, into dst
// (reused when large enough) and returns it. size is the chunk's declared
// uncompressed size: output longer than size is an error, and the buffer
// grows with the output actually produced, so a lying size cannot make it
// allocate more than the data decompresses to. On error it also returns
// what was decompressed before the error, so callers can salvage the
// complete records in it. For CompressionNone it returns src itself.
//
// Errors are *record.Error at offset 0 with Field "chunk.data"; callers
// rebase them to the chunk.
func (d *decompressor) decompress(dst []byte, c Compression, src []byte, size uint32) ([]byte, error) {
	var r io.Reader
	switch {
	case c == CompressionNone || c == "":
		return src, nil
	case len(src) == 0 && size == 0 && (c == CompressionLZ4 || c == CompressionBZ2):
		return src, nil // an empty chunk
	}
	switch c {
	case CompressionLZ4:
		d.src.Reset(src)
		if d.lz4 == nil {
			d.lz4 = lz4.NewReader(&d.src)
		} else {
			d.lz4.Reset(&d.src)
		}
		r = d.lz4
	case CompressionBZ2:
		d.src.Reset(src)
		if d.bz2 == nil {
			d.bz2, _ = bzip2.NewReader(&d.src, nil) // never fails
		} else if err := d.bz2.Reset(&d.src); err != nil {
			return nil, decompressErr("bz2", err)
		}
		r = d.bz2
	default:
		return nil, formatErr(0, "chunk.compression", record.ErrUnsupported, "compression %q", string(c))
	}
	out, err := readBounded(r, dst, int(size), len(src), string(c))
	if c == CompressionLZ4 {
		// Hand its two block buffers (4 MB each for roslz4's frames) back
		// to lz4's pool for the next chunk or bag: the read stops at the
		// chunk's size, before the frame's end would return them.
		d.lz4.Reset(nil)
	}
	return out, err
}

// readBounded reads exactly size bytes from r into dst. It starts with a
// buffer sized from the compressed length and doubles it while output keeps
// coming.
func readBounded(r io.Reader, dst []byte, size, compressed int, name string) ([]byte, error) {
	start := min(size, 8*compressed+64<<10)
	if cap(dst) < start {
		dst = make([]byte, 0, start)
	}
	dst = dst[:0]
	stalls := 0
	for len(dst) < size {
		if len(dst) == cap(dst) {
			bigger := make([]byte, len(dst), min(size, 2*cap(dst)))
			copy(bigger, dst)
			dst = bigger
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), size)])
		dst = dst[:len(dst)+n]
		if stalls = stalls + 1; n > 0 {
			stalls = 0
		} else if stalls > 100 && err == nil {
			err = io.ErrNoProgress
		}
		if err == io.EOF {
			return dst, formatErr(0, "chunk.data", record.ErrTruncated,
				"%s data decompresses to %d bytes, chunk size is %d", name, len(dst), size)
		}
		if err != nil {
			return dst, decompressErr(name, err)
		}
	}
	// The stream must end here; reading on also verifies trailing checksums.
	var one [1]byte
	for stalls := 0; ; stalls++ {
		n, err := r.Read(one[:])
		if stalls > 100 && err == nil {
			err = io.ErrNoProgress
		}
		if n > 0 {
			return dst, formatErr(0, "chunk.data", record.ErrLength,
				"%s data decompresses to more than the chunk size %d", name, size)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, decompressErr(name, err)
		}
	}
}

func decompressErr(name string, err error) error {
	cause := record.ErrFormat
	if errors.Is(err, io.ErrUnexpectedEOF) {
		cause = record.ErrTruncated
	}
	return &record.Error{Offset: 0, Field: "chunk.data", Err: cause, Detail: fmt.Sprintf("%s: %v", name, err)}
}
