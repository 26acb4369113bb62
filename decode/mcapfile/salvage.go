package mcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"

	"github.com/baglab/baglab/decode/record"
	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// describe returns the text of err without the file name and byte offset,
// which a Problem or a Skipped entry carries apart: "field: cause: detail".
func describe(err error) string {
	var re *record.Error
	if !errors.As(err, &re) {
		return err.Error()
	}
	var parts []string
	if re.Topic != "" {
		parts = append(parts, "topic "+re.Topic)
	}
	if re.Field != "" {
		parts = append(parts, re.Field)
	}
	if re.Err != nil {
		parts = append(parts, re.Err.Error())
	}
	if re.Detail != "" {
		parts = append(parts, re.Detail)
	}
	return strings.Join(parts, ": ")
}

// errOffset is the byte offset err names, or def when it names none.
func errOffset(err error, def int64) int64 {
	var re *record.Error
	if errors.As(err, &re) && re.Offset >= 0 {
		return re.Offset
	}
	return def
}

// unpackChunk decompresses the records of a chunk for Check and Recover.
// It returns them and nil when they are whole and match the chunk's CRC (or
// it has none). Otherwise it returns the first problem with what can still
// be had: all the records when only the CRC fails, the part that
// decompresses when the compressed data is damaged, nothing when the
// compression is unsupported. off is the chunk record's offset; dst is
// reused for the output when it is large enough.
func unpackChunk(dec *decoders, file string, off int64, ck *chunk, dst []byte) ([]byte, error) {
	data, err := dec.decompress(file, off, ck, dst, false)
	if err != nil {
		if errors.Is(err, record.ErrUnsupported) {
			return nil, err
		}
		return decompressPrefix(ck), err
	}
	if ck.crc != 0 {
		if got := crc32.ChecksumIEEE(data); got != ck.crc {
			return data, errorf(file, off, "chunk.uncompressed_crc", record.ErrCRC, "computed %08x, stored %08x", got, ck.crc)
		}
	}
	return data, nil
}

// decompressPrefix returns as much of a damaged or cut chunk's records as
// still decompresses, at most its declared uncompressed size: zstd yields
// its whole blocks, lz4 everything up to the damage.
func decompressPrefix(ck *chunk) []byte {
	switch mcap.CompressionFormat(ck.compression) {
	case mcap.CompressionNone:
		return ck.records[:min(uint64(len(ck.records)), ck.uncompressedSize)]
	case mcap.CompressionZSTD:
		z, err := zstd.NewReader(bytes.NewReader(ck.records), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil
		}
		defer z.Close()
		out, _ := readAllLimit(z, nil, ck.uncompressedSize)
		return out[:min(uint64(len(out)), ck.uncompressedSize)]
	case mcap.CompressionLZ4:
		return lz4FramePrefix(ck.records, ck.uncompressedSize)
	}
	return nil
}

// Layout of an LZ4 frame (https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md).
const (
	lz4Magic         = 0x184D2204
	lz4FlagDictID    = 1 << 0
	lz4FlagSize      = 1 << 3
	lz4FlagBlockSum  = 1 << 4
	lz4Uncompressed  = 1 << 31
	lz4MinMatch      = 4
	lz4MaxBlockBytes = 4 << 20
)

// lz4FramePrefix decodes the blocks of an LZ4 frame up to the first damaged
// or cut one, and of that one the sequences before the damage or cut, at
// most limit bytes in all.
func lz4FramePrefix(src []byte, limit uint64) []byte {
	var out []byte
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != lz4Magic {
		return nil
	}
	flg := src[4]
	p := 7 // magic, FLG, BD, header checksum
	if flg&lz4FlagSize != 0 {
		p += 8
	}
	if flg&lz4FlagDictID != 0 {
		p += 4
	}
	// An LZ4 sequence turns one byte into at most 255.
	bound := int(min(limit, uint64(len(src))*255))
	for p+4 <= len(src) && len(out) < bound {
		size := binary.LittleEndian.Uint32(src[p:])
		p += 4
		if size == 0 {
			break // end mark
		}
		n := int(size &^ lz4Uncompressed)
		block := src[p:min(p+n, len(src))]
		whole := len(block) == n
		p += n
		if flg&lz4FlagBlockSum != 0 {
			p += 4
		}
		complete := whole
		switch {
		case size&lz4Uncompressed != 0:
			out = append(out, block[:min(len(block), bound-len(out))]...)
		case whole:
			// The library decodes whole independent blocks; a linked or
			// damaged one goes to the prefix decoder.
			dst := make([]byte, min(lz4MaxBlockBytes, bound-len(out)))
			if k, err := lz4.UncompressBlock(block, dst); err == nil {
				out = append(out, dst[:k]...)
			} else {
				out, complete = lz4BlockPrefix(out, block, bound)
			}
		default:
			out, _ = lz4BlockPrefix(out, block, bound)
		}
		if !complete {
			break
		}
	}
	return out
}

// lz4BlockPrefix appends to dst what the LZ4 block src decodes to, stopping
// at the first sequence that is cut or invalid, or at limit bytes in all.
// Matches may reach back into dst (linked blocks). complete is false when it
// stopped early.
func lz4BlockPrefix(dst, src []byte, limit int) (out []byte, complete bool) {
	// length reads an extended length: bytes of 255 add up until a smaller one.
	length := func(i, n int) (int, int, bool) {
		for n < limit {
			if i >= len(src) {
				return i, n, false
			}
			b := src[i]
			i++
			n += int(b)
			if b != 255 {
				return i, n, true
			}
		}
		return i, n, false
	}
	for i := 0; i < len(src); {
		tok := src[i]
		i++
		lit, ok := int(tok>>4), true
		if lit == 15 {
			if i, lit, ok = length(i, lit); !ok {
				return dst, false
			}
		}
		n := min(lit, len(src)-i, limit-len(dst))
		dst = append(dst, src[i:i+n]...)
		if n < lit {
			return dst, false
		}
		i += lit
		if i == len(src) {
			return dst, true // the last sequence has only literals
		}
		if len(src)-i < 2 {
			return dst, false
		}
		off := int(binary.LittleEndian.Uint16(src[i:]))
		i += 2
		if off == 0 || off > len(dst) {
			return dst, false
		}
		ml := int(tok & 15)
		if ml == 15 {
			if i, ml, ok = length(i, ml); !ok {
				return dst, false
			}
		}
		ml += lz4MinMatch
		if ml > limit-len(dst) {
			return dst, false
		}
		// Copy in steps of at most off bytes, so that an overlapping match
		// repeats what it has just written.
		for ml > 0 {
			k := min(ml, off)
			start := len(dst) - off
			dst = append(dst, dst[start:start+k]...)
			ml -= k
		}
	}
	return dst, true
}
