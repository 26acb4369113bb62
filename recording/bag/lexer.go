package bag

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/baglab/baglab/record"
)

// Record is one framed record of a bag file: its position, op and header.
// The data is left unread; Lexer.ReadData fetches it.
type Record struct {
	// Offset is the file offset of the record (its header_len field).
	Offset int64
	Op     Op
	// Header is the raw header (name=value fields), valid until the next
	// call to Lexer.Next.
	Header []byte
	// DataOffset and DataLen locate the record data in the file.
	DataOffset int64
	DataLen    uint32
}

// End is the file offset just after the record.
func (r *Record) End() int64 { return r.DataOffset + int64(r.DataLen) }

// Lexer frames the records of a bag file one after another. Before reading
// a header or trusting a length it checks that the bytes are there, so a
// length field can never make it allocate more than the file holds.
type Lexer struct {
	r    io.ReaderAt
	size int64
	path string
	pos  int64
	hdr  []byte
	len4 [4]byte
	// win caches the bytes at winOff: record headers and small records are
	// served from it, so framing a record costs one read, and a run of
	// small records (the index section) a few large reads.
	win    []byte
	winOff int64
	winCap int
}

const (
	minWindow = 512     // bytes read ahead at a random position
	maxWindow = 1 << 20 // bytes read ahead when reading sequentially
)

// NewLexer returns a lexer over the size bytes of r that starts at offset
// pos. path names the file in errors.
func NewLexer(r io.ReaderAt, size int64, path string, pos int64) *Lexer {
	return &Lexer{r: r, size: size, path: path, pos: pos}
}

// Pos is the offset of the next record.
func (l *Lexer) Pos() int64 { return l.pos }

func (l *Lexer) errAt(off int64, field string, cause error, format string, args ...any) error {
	e := formatErr(off, field, cause, format, args...)
	e.File = l.path
	return e
}

// readAt reads exactly len(b) bytes at off; the caller has checked that
// they lie inside the file, so a short read is an I/O error or a file that
// shrank.
func (l *Lexer) readAt(b []byte, off int64, field string) error {
	if len(b) == 0 {
		return nil
	}
	end := l.winOff + int64(len(l.win))
	if off >= l.winOff && off+int64(len(b)) <= end {
		copy(b, l.win[off-l.winOff:])
		return nil
	}
	if len(b) < maxWindow/2 && off >= 0 && off < l.size {
		// Read ahead, more the more sequential the reading is.
		if off == end && len(l.win) > 0 {
			l.winCap = min(max(2*l.winCap, minWindow), maxWindow)
		} else {
			l.winCap = minWindow
		}
		want := min(int64(max(l.winCap, len(b))), l.size-off)
		if int64(cap(l.win)) < want {
			l.win = make([]byte, want)
		}
		l.win = l.win[:want]
		l.winOff = off
		n, err := l.r.ReadAt(l.win, off)
		l.win = l.win[:n]
		if n >= len(b) {
			copy(b, l.win)
			return nil
		}
		if err == nil || errors.Is(err, io.EOF) {
			return l.errAt(off+int64(n), field, record.ErrTruncated, "short read")
		}
		return err
	}
	n, err := l.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return l.errAt(off+int64(n), field, record.ErrTruncated, "short read")
	}
	return err
}

// Next frames the record at the current position and moves past it. It
// returns io.EOF exactly at the end of the file. When the header is intact
// but the data runs past the end of the file, it returns the record (with
// Op, Header, DataOffset and the declared DataLen) together with an
// ErrTruncated error, so callers can salvage what remains; the position
// does not move on errors.
func (l *Lexer) Next() (*Record, error) {
	off := l.pos
	rem := l.size - off
	if rem == 0 {
		return nil, io.EOF
	}
	if rem < 4 {
		return nil, l.errAt(off, "header_len", record.ErrTruncated, "%d bytes remain, need 4", rem)
	}
	if err := l.readAt(l.len4[:], off, "header_len"); err != nil {
		return nil, err
	}
	hl := int64(binary.LittleEndian.Uint32(l.len4[:]))
	if hl == 0 {
		return nil, l.errAt(off, "header_len", record.ErrFormat, "empty record header")
	}
	if hl > rem-4 {
		return nil, l.errAt(off, "header_len", record.ErrTruncated,
			"header of %d bytes, %d remain in file", hl, rem-4)
	}
	// Read the header and, when present, the data_len after it.
	n := hl + 4
	if n > rem-4 {
		n = rem - 4
	}
	if int64(cap(l.hdr)) < n {
		l.hdr = make([]byte, n)
	}
	buf := l.hdr[:n]
	if err := l.readAt(buf, off+4, "header"); err != nil {
		return nil, err
	}
	rec := &Record{Offset: off, Header: buf[:hl], DataOffset: off + 8 + hl}
	op, err := RecordOp(rec.Header)
	if err != nil {
		return nil, record.WithFile(err, l.path, off, "")
	}
	rec.Op = op
	if n < hl+4 {
		return rec, l.errAt(off+4+hl, "data_len", record.ErrTruncated,
			"%d bytes remain, need 4", rem-4-hl)
	}
	rec.DataLen = binary.LittleEndian.Uint32(buf[hl:])
	if int64(rec.DataLen) > rem-8-hl {
		return rec, l.errAt(off+4+hl, "data_len", record.ErrTruncated,
			"%s data of %d bytes, %d remain in file", op, rec.DataLen, rem-8-hl)
	}
	l.pos = rec.End()
	return rec, nil
}

// ReadData reads the record's data into buf (grown as needed) and returns
// it. For a record whose data is cut by the end of the file (see Next) it
// returns the bytes that remain.
func (l *Lexer) ReadData(rec *Record, buf []byte) ([]byte, error) {
	n := int64(rec.DataLen)
	if rest := l.size - rec.DataOffset; n > rest {
		n = max(rest, 0)
	}
	buf = grow(buf, int(n))
	return buf, l.readAt(buf, rec.DataOffset, rec.Op.String()+".data")
}

// grow returns b resized to n bytes, reallocating only when its capacity
// is too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// splitRecord frames the record at b[p:], a buffer of records such as a
// decompressed chunk. Errors carry offsets relative to b.
func splitRecord(b []byte, p int) (header, data []byte, next int, err error) {
	rem := len(b) - p
	if rem < 4 {
		return nil, nil, p, formatErr(int64(p), "header_len", record.ErrLength, "%d bytes remain, need 4", rem)
	}
	hl := binary.LittleEndian.Uint32(b[p:])
	if hl == 0 {
		return nil, nil, p, formatErr(int64(p), "header_len", record.ErrFormat, "empty record header")
	}
	if uint64(hl)+4 > uint64(rem-4) {
		return nil, nil, p, formatErr(int64(p), "header_len", record.ErrLength,
			"header of %d bytes and data_len need %d bytes, %d remain", hl, uint64(hl)+4, rem-4)
	}
	h := p + 4
	header = b[h : h+int(hl)]
	dl := binary.LittleEndian.Uint32(b[h+int(hl):])
	d := h + int(hl) + 4
	if uint64(dl) > uint64(len(b)-d) {
		return nil, nil, p, formatErr(int64(h)+int64(hl), "data_len", record.ErrLength,
			"data of %d bytes, %d remain", dl, len(b)-d)
	}
	return header, b[d : d+int(dl)], d + int(dl), nil
}
