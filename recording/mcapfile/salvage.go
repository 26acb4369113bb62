package mcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

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

// chunkStarts are the sorted offsets of the chunks a summary's chunk index
// lists: where a scan whose framing is lost picks up again.
type chunkStarts []int64

func newChunkStarts(ix *index) chunkStarts {
	if ix == nil {
		return nil
	}
	cs := make(chunkStarts, 0, len(ix.chunks))
	for _, ci := range ix.chunks {
		cs = append(cs, int64(ci.ChunkStartOffset))
	}
	slices.Sort(cs)
	return cs
}

// next returns the offset of the first chunk listed after off and before
// end, or -1. Only offsets where a chunk record lies whole before limit
// count.
func (cs chunkStarts) next(ra io.ReaderAt, file string, off, end, limit int64) int64 {
	i, _ := slices.BinarySearch(cs, off+1)
	for ; i < len(cs) && cs[i] < end; i++ {
		if fr, err := readFrame(ra, file, cs[i], limit); err == nil && fr.op == mcap.OpChunk {
			return cs[i]
		}
	}
	return -1
}

// cutChunk reads a chunk whose framing is lost, of which the bytes
// [off, end) are at hand: one the end of the file cuts off, or one whose
// length field is damaged. It reads no more than the chunk's head says its
// records take, makes the records length fit what is there, and returns the
// chunk as a frame spanning [off, end) with that body. ok is false when no
// chunk head lies at off.
func cutChunk(ra io.ReaderAt, off, end int64) (fr frame, body []byte, ok bool) {
	var head [recordHeaderLen + chunkHeadLen]byte
	avail := end - off - recordHeaderLen
	if avail < chunkHeadLen+8 || readAt(ra, head[:], off) != nil || mcap.OpCode(head[0]) != mcap.OpChunk {
		return frame{}, nil, false
	}
	n := int64(binary.LittleEndian.Uint32(head[recordHeaderLen+28:]))
	if n > avail-chunkHeadLen-8 {
		return frame{}, nil, false
	}
	p := chunkHeadLen + n // offset of the records length in the body
	var rl [8]byte
	if readAt(ra, rl[:], off+recordHeaderLen+p) != nil {
		return frame{}, nil, false
	}
	size := avail
	if want := binary.LittleEndian.Uint64(rl[:]); want < uint64(avail-p-8) {
		size = p + 8 + int64(want)
	}
	body = make([]byte, size)
	if readAt(ra, body, off+recordHeaderLen) != nil {
		return frame{}, nil, false
	}
	binary.LittleEndian.PutUint64(body[p:], uint64(size-p-8))
	return frame{op: mcap.OpChunk, offset: off, bodyLen: avail}, body, true
}

// framed returns how many leading bytes of records frame as whole records.
func framed(records []byte) int {
	p := 0
	for len(records)-p >= recordHeaderLen {
		n := binary.LittleEndian.Uint64(records[p+1:])
		if n > uint64(len(records)-p-recordHeaderLen) {
			break
		}
		p += recordHeaderLen + int(n)
	}
	return p
}

// chunkFate is what became of the records of a chunk that a reader going
// on past damage unpacked: what is wrong with it and what it still gave.
type chunkFate struct {
	file   string
	off    int64 // chunk record offset
	cut    error // why the chunk's framing is lost (cut off, damaged length), nil when whole
	damage error // why its records are unverified (CRC, decompression), nil when they check
	hasCRC bool
	size   int    // bytes of records that decompressed
	lost   int    // uncompressed offset where the records stop framing, -1 when all frame
	stated uint64 // the uncompressed size the chunk header gives
	// used and bad count the records that parse and those that do not;
	// kept the messages used, seen all messages met.
	used, bad, kept, seen uint64
	firstBad              error
	dropped               bool // the records were left out on request
}

// salvageRecords unpacks the records of chunk ck (the record fr, its
// framing lost for cut when not nil) for a reader that goes on past
// damage: it returns the records that frame whole, and the chunk's fate
// with its damage; the caller counts what it uses of them. verify false
// ignores the chunk's CRC. dst is reused for the output when large enough.
func salvageRecords(dec *decoders, file string, fr frame, ck *chunk, dst []byte, cut error, verify bool) ([]byte, chunkFate) {
	if !verify && ck.crc != 0 {
		c := *ck
		c.crc = 0
		ck = &c
	}
	data, damage := unpackChunk(dec, file, fr.offset, ck, dst)
	f := chunkFate{file: file, off: fr.offset, cut: cut, damage: damage, hasCRC: ck.crc != 0, size: len(data), lost: -1, stated: ck.uncompressedSize}
	n := framed(data)
	if n < len(data) {
		f.lost = n
	}
	return data[:n], f
}

// whole reports whether the chunk gave all its records, verified.
func (f *chunkFate) whole() bool {
	return f.cut == nil && f.damage == nil && f.lost < 0 && f.firstBad == nil
}

// unverified reports whether the records used have no CRC to vouch for them.
func (f *chunkFate) unverified() bool { return f.damage != nil && f.used > 0 }

// unread estimates the messages of the chunk's records that were not
// read: those of the uncompressed size its header gives past the records
// that frame, at the density of the messages kept from them; 0 when
// nothing was kept to tell the density, or nothing is missing.
func (f *chunkFate) unread() uint64 {
	framed := f.size
	if f.lost >= 0 {
		framed = f.lost
	}
	if f.kept == 0 || framed == 0 || f.stated <= uint64(framed) {
		return 0
	}
	n := float64(f.kept) * float64(f.stated-uint64(framed)) / float64(framed)
	return uint64(min(n, 1e15) + 0.5) // a header may state any size
}

// skipped describes a damaged chunk spanning length bytes: Err is the
// first thing wrong with it, Note the rest and what became of its messages.
func (f *chunkFate) skipped(length int64) record.Skipped {
	s := record.Skipped{Offset: f.off, Length: length, Kept: f.kept, Unverified: f.unverified(), Estimated: f.unread()}
	var why []string
	switch {
	case f.cut != nil:
		s.Err = f.cut
	case f.damage != nil:
		s.Err = f.damage
	}
	if f.lost >= 0 && (f.cut == nil || f.damage == nil) {
		lost := fmt.Sprintf("the records past uncompressed offset %d of %d do not frame", f.lost, f.size)
		if s.Err == nil {
			s.Err = errorf(f.file, f.off, "chunk record", record.ErrLength, "%s", lost)
		} else {
			why = append(why, lost)
		}
	}
	if f.firstBad != nil {
		if s.Err == nil {
			s.Err = f.firstBad
		}
		if f.bad > 1 || s.Err != f.firstBad {
			why = append(why, fmt.Sprintf("%d records do not parse (first: %s)", f.bad, record.Brief(f.firstBad)))
		}
	}
	switch {
	case f.dropped:
		s.Dropped = f.seen
		why = append(why, fmt.Sprintf("%d messages dropped: no CRC vouches for them", f.seen))
	case f.size == 0:
		why = append(why, "none of its records can be read")
	case f.damage != nil && f.cut != nil:
		why = append(why, fmt.Sprintf("%d messages salvaged from the %d bytes that decompress", f.kept, f.size))
		if s.Estimated > 0 {
			why = append(why, fmt.Sprintf("about %d more in the %d bytes its header says follow", s.Estimated, f.stated-uint64(f.size)))
		}
	case f.damage != nil:
		why = append(why, fmt.Sprintf("%d messages kept, their content may be damaged", f.kept))
	case f.cut != nil && f.hasCRC:
		why = append(why, fmt.Sprintf("the chunk's records are whole and match its CRC: %d messages kept", f.kept))
	case f.cut != nil:
		why = append(why, fmt.Sprintf("the chunk's records are whole (it has no CRC): %d messages kept", f.kept))
	default:
		why = append(why, fmt.Sprintf("%d messages kept", f.kept))
	}
	s.Note = strings.Join(why, "; ")
	return s
}
