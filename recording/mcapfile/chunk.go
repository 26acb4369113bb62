package mcapfile

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// chunkHeadLen is the fixed part of a chunk body before the compression name.
const chunkHeadLen = 8 + 8 + 8 + 4 + 4

// chunk is a parsed Chunk record; records is a view into the body.
type chunk struct {
	start, end       uint64
	uncompressedSize uint64
	crc              uint32
	compression      string
	records          []byte
	recordsOffset    int64 // offset of records in the body
}

// parseChunk parses a Chunk record body, checking every length against the
// body. off is the body's file offset, for errors.
func parseChunk(file string, off int64, b []byte) (*chunk, error) {
	if len(b) < chunkHeadLen {
		return nil, errorf(file, off, "chunk", record.ErrTruncated, "chunk body is %d bytes, need at least %d", len(b), chunkHeadLen)
	}
	c := &chunk{
		start:            binary.LittleEndian.Uint64(b[0:]),
		end:              binary.LittleEndian.Uint64(b[8:]),
		uncompressedSize: binary.LittleEndian.Uint64(b[16:]),
		crc:              binary.LittleEndian.Uint32(b[24:]),
	}
	n := uint64(binary.LittleEndian.Uint32(b[28:]))
	p := uint64(chunkHeadLen)
	if n > uint64(len(b))-p {
		return nil, errorf(file, off+28, "chunk.compression", record.ErrLength, "length %d exceeds the %d bytes left", n, uint64(len(b))-p)
	}
	c.compression = string(b[p : p+n])
	p += n
	if uint64(len(b))-p < 8 {
		return nil, errorf(file, off+int64(p), "chunk.records", record.ErrTruncated, "missing records length")
	}
	rl := binary.LittleEndian.Uint64(b[p:])
	p += 8
	if rl > uint64(len(b))-p {
		return nil, errorf(file, off+int64(p)-8, "chunk.records", record.ErrLength, "length %d exceeds the %d bytes left", rl, uint64(len(b))-p)
	}
	c.records = b[p : p+rl]
	c.recordsOffset = int64(p)
	return c, nil
}

// decoders holds decompressors for one goroutine; the zstd decoder comes
// from a shared pool (making one is costly) and goes back on close.
type decoders struct {
	zstd *zstd.Decoder
	lz4  *lz4.Reader
}

var zstdPool sync.Pool

func (d *decoders) close() {
	if d.zstd != nil {
		d.zstd.Reset(nil)
		zstdPool.Put(d.zstd)
		d.zstd = nil
	}
}

// preallocLimit bounds the buffer reserved up front from a declared
// uncompressed size: no more than a generous ratio of the compressed bytes,
// so that a hostile size field cannot make us allocate; real output beyond it
// still grows the buffer as it arrives.
func preallocLimit(declared uint64, compressed int) int {
	limit := uint64(compressed)*64 + 1<<20
	return int(min(declared, limit))
}

// decompress returns the uncompressed records of c in dst (reused when it is
// large enough), verifying the size and, when verify is set and the chunk has
// one, the CRC. off is the chunk record's file offset, for errors.
func (d *decoders) decompress(file string, off int64, c *chunk, dst []byte, verify bool) ([]byte, error) {
	var out []byte
	switch mcap.CompressionFormat(c.compression) {
	case mcap.CompressionNone:
		out = c.records
	case mcap.CompressionZSTD:
		if d.zstd == nil {
			if z, ok := zstdPool.Get().(*zstd.Decoder); ok {
				d.zstd = z
			} else {
				z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
				if err != nil {
					return nil, &record.Error{File: file, Offset: off, Field: "chunk", Err: err}
				}
				d.zstd = z
			}
		}
		var err error
		if want := preallocLimit(c.uncompressedSize, len(c.records)); uint64(want) == c.uncompressedSize {
			// The declared size is plausible: decode in one call into a
			// buffer of exactly that capacity (the decoder never exceeds it).
			if cap(dst) < want {
				dst = make([]byte, 0, want)
			}
			out, err = d.zstd.DecodeAll(c.records, dst[:0])
		} else {
			// A very high ratio: stream, growing with the real output.
			if err = d.zstd.Reset(bytes.NewReader(c.records)); err == nil {
				out, err = readAllLimit(d.zstd, dst[:0], c.uncompressedSize)
			}
		}
		if err != nil {
			return nil, errorf(file, off, "chunk.records", record.ErrFormat, "zstd: %v", err)
		}
	case mcap.CompressionLZ4:
		if d.lz4 == nil {
			d.lz4 = lz4.NewReader(nil)
		}
		d.lz4.Reset(bytes.NewReader(c.records))
		want := preallocLimit(c.uncompressedSize, len(c.records))
		if cap(dst) < want {
			dst = make([]byte, 0, want)
		}
		var err error
		out, err = readAllLimit(d.lz4, dst[:0], c.uncompressedSize)
		if err != nil {
			return nil, errorf(file, off, "chunk.records", record.ErrFormat, "%v", err)
		}
	default:
		return nil, errorf(file, off, "chunk.compression", record.ErrUnsupported, "compression %q", c.compression)
	}
	if uint64(len(out)) != c.uncompressedSize {
		return nil, errorf(file, off, "chunk.uncompressed_size", record.ErrLength,
			"chunk holds %d bytes uncompressed, header says %d", len(out), c.uncompressedSize)
	}
	if verify && c.crc != 0 {
		if got := crc32.ChecksumIEEE(out); got != c.crc {
			return nil, errorf(file, off, "chunk.uncompressed_crc", record.ErrCRC, "computed %08x, stored %08x", got, c.crc)
		}
	}
	return out, nil
}

// readAllLimit appends everything r yields to dst, failing once more than
// limit bytes arrive.
func readAllLimit(r io.Reader, dst []byte, limit uint64) ([]byte, error) {
	for empty := 0; ; {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if uint64(len(dst)) > limit {
			return dst, errorf("", -1, "", record.ErrLength, "more than the %d bytes declared", limit)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
		if n > 0 {
			empty = 0
		} else if empty++; empty > 100 {
			return dst, io.ErrNoProgress
		}
	}
}

// chunkRecords walks the records of an uncompressed chunk. fn gets each
// record's opcode, its offset in buf and its body; an error stops the walk.
func chunkRecords(file string, chunkOff int64, buf []byte, fn func(op mcap.OpCode, at int, body []byte) error) error {
	for p := 0; p < len(buf); {
		if len(buf)-p < recordHeaderLen {
			return errorf(file, chunkOff, "chunk record", record.ErrTruncated, "%d bytes left at uncompressed offset %d, need a record header", len(buf)-p, p)
		}
		op := mcap.OpCode(buf[p])
		n := binary.LittleEndian.Uint64(buf[p+1:])
		if n > uint64(len(buf)-p-recordHeaderLen) {
			return errorf(file, chunkOff, op.String()+" record length", record.ErrLength,
				"length %d at uncompressed offset %d exceeds the %d bytes left in the chunk", n, p, len(buf)-p-recordHeaderLen)
		}
		body := buf[p+recordHeaderLen : p+recordHeaderLen+int(n)]
		if err := fn(op, p, body); err != nil {
			return err
		}
		p += recordHeaderLen + int(n)
	}
	return nil
}
