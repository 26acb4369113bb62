package mcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// Layout constants of the MCAP format.
const (
	magicLen        = 8
	recordHeaderLen = 1 + 8     // opcode, uint64 length
	footerBodyLen   = 8 + 8 + 4 // summary start, summary offset start, summary CRC
	footerRecordLen = recordHeaderLen + footerBodyLen
	messageHeadLen  = 2 + 4 + 8 + 8 // channel id, sequence, log time, publish time
	tailLen         = footerRecordLen + magicLen
)

// frame is the header of one record: where it starts and how long its body is.
type frame struct {
	op      mcap.OpCode
	offset  int64 // offset of the opcode byte
	bodyLen int64
}

// bodyOffset is the offset of the record body.
func (f frame) bodyOffset() int64 { return f.offset + recordHeaderLen }

// end is the offset just past the record.
func (f frame) end() int64 { return f.offset + recordHeaderLen + f.bodyLen }

// errorf builds a record.Error for file at offset.
func errorf(file string, off int64, field string, cause error, format string, args ...any) *record.Error {
	return &record.Error{File: file, Offset: off, Field: field, Err: cause, Detail: fmt.Sprintf(format, args...)}
}

// readFrame reads the record header at off, checking that the whole record
// lies before limit.
func readFrame(ra io.ReaderAt, file string, off, limit int64) (frame, error) {
	var hdr [recordHeaderLen]byte
	if off+recordHeaderLen > limit {
		return frame{}, errorf(file, off, "record header", record.ErrTruncated, "%d bytes left, need %d", max(limit-off, 0), recordHeaderLen)
	}
	if err := readAt(ra, hdr[:], off); err != nil {
		return frame{}, ioError(file, off, "record header", err)
	}
	n := binary.LittleEndian.Uint64(hdr[1:])
	op := mcap.OpCode(hdr[0])
	if rest := uint64(limit - off - recordHeaderLen); n > rest {
		return frame{}, errorf(file, off, op.String()+" record length", record.ErrTruncated,
			"record length %d exceeds the %d bytes left", n, rest)
	}
	if op == mcap.OpReserved {
		return frame{}, errorf(file, off, "opcode", record.ErrFormat, "opcode 0x00 is reserved")
	}
	return frame{op: op, offset: off, bodyLen: int64(n)}, nil
}

// readAt fills p from off; a full read that ends at the end of the input is
// not an error.
func readAt(ra io.ReaderAt, p []byte, off int64) error {
	n, err := ra.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// ioError turns a read failure into a record.Error (short reads are truncation).
func ioError(file string, off int64, field string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(file, off, field, record.ErrTruncated, "unexpected end of file")
	}
	return &record.Error{File: file, Offset: off, Field: field, Err: err}
}

// readBody reads the body of fr into buf (grown when needed) and returns it.
func readBody(ra io.ReaderAt, file string, fr frame, buf []byte) ([]byte, error) {
	if int64(cap(buf)) < fr.bodyLen {
		buf = make([]byte, fr.bodyLen)
	}
	buf = buf[:fr.bodyLen]
	if err := readAt(ra, buf, fr.bodyOffset()); err != nil {
		return buf, ioError(file, fr.bodyOffset(), fr.op.String()+" record", err)
	}
	return buf, nil
}

// checkMagic verifies the leading magic.
func checkMagic(ra io.ReaderAt, file string, size int64) error {
	var m [magicLen]byte
	if size < magicLen {
		if size > 0 {
			if err := readAt(ra, m[:size], 0); err == nil && !bytes.HasPrefix(mcap.Magic, m[:size]) {
				return errorf(file, 0, "magic", record.ErrFormat, "not an MCAP file")
			}
		}
		return errorf(file, 0, "magic", record.ErrTruncated, "file is %d bytes, shorter than the MCAP magic", size)
	}
	if err := readAt(ra, m[:], 0); err != nil {
		return ioError(file, 0, "magic", err)
	}
	if !bytes.Equal(m[:], mcap.Magic) {
		return errorf(file, 0, "magic", record.ErrFormat, "not an MCAP file (leading bytes %q)", m[:])
	}
	return nil
}

// scanner walks the records of a byte range in file order, reading through a
// window buffer so that small records cost no system call each.
type scanner struct {
	ra    io.ReaderAt
	file  string
	pos   int64 // offset of the next record
	limit int64 // end of the range
	win   []byte
	wOff  int64 // file offset of win[0]
	body  []byte
}

const scanWindow = 256 << 10

func newScanner(ra io.ReaderAt, file string, start, limit int64) *scanner {
	return &scanner{ra: ra, file: file, pos: start, limit: limit}
}

// read returns the n bytes at off: a slice of the window when they fit in
// it (refilling the window from off when needed), else dst grown and filled.
func (s *scanner) read(off, n int64, dst []byte) ([]byte, error) {
	if off >= s.wOff && off+n <= s.wOff+int64(len(s.win)) {
		return s.win[off-s.wOff : off-s.wOff+n], nil
	}
	if n <= scanWindow/2 {
		w := min(int64(scanWindow), s.limit-off)
		if int64(cap(s.win)) < w {
			s.win = make([]byte, w)
		}
		s.win = s.win[:w]
		if err := readAt(s.ra, s.win, off); err != nil {
			s.win = s.win[:0]
			return nil, ioError(s.file, off, "record", err)
		}
		s.wOff = off
		return s.win[:n], nil
	}
	if int64(cap(dst)) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	if err := readAt(s.ra, dst, off); err != nil {
		return nil, ioError(s.file, off, "record", err)
	}
	return dst, nil
}

// next returns the next record frame, or io.EOF at the end of the range.
func (s *scanner) next() (frame, error) {
	if s.pos >= s.limit {
		return frame{}, io.EOF
	}
	off := s.pos
	if s.limit-off < recordHeaderLen {
		return frame{}, errorf(s.file, off, "record header", record.ErrTruncated, "%d bytes left, need %d", s.limit-off, recordHeaderLen)
	}
	hdr, err := s.read(off, recordHeaderLen, nil)
	if err != nil {
		return frame{}, err
	}
	op := mcap.OpCode(hdr[0])
	n := binary.LittleEndian.Uint64(hdr[1:])
	if rest := uint64(s.limit - off - recordHeaderLen); n > rest {
		return frame{}, errorf(s.file, off, op.String()+" record length", record.ErrTruncated,
			"record length %d exceeds the %d bytes left", n, rest)
	}
	if op == mcap.OpReserved {
		return frame{}, errorf(s.file, off, "opcode", record.ErrFormat, "opcode 0x00 is reserved")
	}
	fr := frame{op: op, offset: off, bodyLen: int64(n)}
	s.pos = fr.end()
	return fr, nil
}

// body returns the body of fr, the last frame next returned. It is valid
// until the next call to body.
func (s *scanner) bodyOf(fr frame) ([]byte, error) {
	b, err := s.read(fr.bodyOffset(), fr.bodyLen, s.body)
	if err != nil {
		return nil, err
	}
	if fr.bodyLen > scanWindow/2 {
		s.body = b
	}
	return b, nil
}

// head returns up to n leading bytes of the body of fr.
func (s *scanner) head(fr frame, n int64) ([]byte, error) {
	return s.read(fr.bodyOffset(), min(n, fr.bodyLen), nil)
}
