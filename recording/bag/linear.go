package bag

import (
	"cmp"
	"fmt"
	"io"
	"math"

	"github.com/baglab/baglab/record"
)

// linearIter reads a bag record by record from the end of the bag header,
// decompressing chunks in file order. It is used for bags without a usable
// index, for Reader scans and by Reindex.
type linearIter struct {
	msg record.Message // what Next returns
	r   *Reader
	f   record.Filter
	lex *Lexer
	dec decompressor
	raw []byte // record data read from the file
	out []byte // decompressed chunk buffer

	// The chunk being read, nil between chunks.
	chunk      []byte
	cpos       int
	chunkOff   int64 // file offset of the chunk record
	chunkData  int64 // file offset of its data when stored uncompressed, else -1
	chunkLen   int64 // bytes of the chunk record present in the file
	partial    bool  // the chunk is cut or did not fully decompress
	chunkErr   error // why, reported once its records are used up
	salvaged   int   // messages read from a partial chunk
	lexStopped bool  // the file ended inside the chunk being read

	sel map[uint32]*selected // per connection: channel and filter verdict
	seq uint64
	err error // sticky: io.EOF or the error that stopped iteration

	// onChunk, if set, sees the compression of each chunk (for Summary).
	onChunk func(Compression)
	// quiet leaves skipped ranges unreported (a Summary scan: the message
	// iterator reports them).
	quiet bool
	// tailDone is set once the damaged end of the file was handled.
	tailDone bool
	// open is the offset of an unterminated stored chunk, whose records
	// follow at the top level (-1: none); openKept counts its messages.
	open     int64
	openKept uint64
}

// tail handles damage s that runs to the end of the file. In a recording
// that was never closed it is the torn end, reported once and not an
// error; otherwise it is an error, or skipped with record.WithSkipBad. It returns
// the error to stop with.
func (it *linearIter) tail(s record.Skipped) error {
	it.tailDone = true
	if it.open >= 0 {
		// The torn end starts at the unterminated chunk.
		s.Offset, s.Length, s.Kept = it.open, it.r.size-it.open, it.openKept
	}
	if !it.r.crashed() {
		if !it.r.opts.SkipBad {
			return s.Err
		}
		s.Beyond = it.r.beyondEnd()
		it.skip(s)
		return nil
	}
	if it.quiet {
		return nil
	}
	s.Note = "the recording was never closed: every complete message before its torn end was read"
	if s.Kept > 0 {
		s.Note += fmt.Sprintf(", %d of them from the torn chunk", s.Kept)
	}
	if report := it.r.opts.OnWarning; report != nil {
		report(s)
	} else {
		it.skip(s)
	}
	return nil
}

// end is what a read that found no more records after pos ends with: a
// bag whose index lies past the end of the file lost its tail, which is an
// error (reported as skipped with record.WithSkipBad) unless a damaged end was
// reported already.
func (it *linearIter) end(pos int64) error {
	if it.tailDone {
		return io.EOF
	}
	if it.open >= 0 {
		// A crash recording whose open chunk's records all reached the
		// disk: its end is torn all the same.
		return cmp.Or(it.tail(record.Skipped{Err: it.openErr()}), io.EOF)
	}
	if it.r.cut == nil {
		return io.EOF
	}
	it.tailDone = true
	if !it.r.opts.SkipBad {
		return it.r.cut
	}
	it.skip(record.Skipped{Offset: pos, Length: it.r.size - pos, Beyond: it.r.beyondEnd(), Err: it.r.cut})
	return io.EOF
}

// skip reports a skipped range to the record.WithSkipBad callback.
func (it *linearIter) skip(s record.Skipped) {
	if !it.quiet && it.r.opts.OnSkip != nil {
		it.r.opts.OnSkip(s)
	}
}

// skipTo reports a skipped range ending at the next chunk (or the end of
// the file) and returns where to go on.
func (it *linearIter) skipTo(from int64, err error) int64 {
	next := it.r.resync(from)
	if next < 0 {
		next = it.r.size
	}
	it.skip(record.Skipped{Offset: from, Length: next - from, Err: err})
	return next
}

type selected struct {
	ch   *record.Channel
	want bool
}

func (r *Reader) linearMessages(f record.Filter) *linearIter { return r.newLinearIter(f) }

func (r *Reader) newLinearIter(f record.Filter) *linearIter {
	return &linearIter{r: r, f: f, lex: NewLexer(r.r, r.size, r.path, r.dataStart), sel: map[uint32]*selected{}, open: -1}
}

// Next returns the next message; see record.Iterator. The message and its
// Data are valid until the next call.
func (it *linearIter) Next() (*record.Message, error) {
	if err := it.NextInto(&it.msg); err != nil {
		return nil, err
	}
	return &it.msg, nil
}

// Close stops the iteration; idempotent.
func (it *linearIter) Close() error {
	if it.err == nil {
		it.err = io.EOF
	}
	it.raw, it.out, it.chunk = nil, nil, nil
	return nil
}

// fail makes err sticky and returns it.
func (it *linearIter) fail(err error) error {
	it.err = err
	return err
}

// NextInto fills m with the next message, reusing m; m.Data is valid until
// the next call.
func (it *linearIter) NextInto(m *record.Message) error {
	if it.err != nil {
		return it.err
	}
	for {
		if it.chunk != nil {
			ok, err := it.nextInChunk(m)
			if ok {
				return nil
			}
			if err != nil {
				if !it.r.opts.SkipBad {
					return it.fail(err)
				}
				// Records after a bad one cannot be framed: skip the rest.
				it.partial, it.chunkErr = true, err
			}
			if err := it.endChunk(); err != nil {
				return it.fail(err)
			}
			continue
		}
		if it.lexStopped {
			return it.fail(io.EOF)
		}
		pos := it.lex.Pos()
		rec, err := it.lex.Next()
		if err == io.EOF {
			return it.fail(it.end(pos))
		}
		if err != nil {
			next := int64(-1)
			if errIsTruncation(err) {
				next = it.r.resync(pos)
			}
			if rec != nil && rec.Op == OpChunk && errIsTruncation(err) {
				// The chunk runs past the end of the file: it is cut, or
				// its length is damaged and another chunk follows. Salvage
				// what is there up to the end or that chunk.
				end := it.r.size
				if next >= 0 {
					end = next
					rec.DataLen = uint32(min(max(next-rec.DataOffset, 0), math.MaxUint32))
				} else {
					it.lexStopped = true
				}
				if err := it.startChunk(rec, err); err != nil {
					return it.fail(err)
				}
				it.chunkLen = end - rec.Offset
				it.lex.pos = end
				continue
			}
			if next < 0 && errIsTruncation(err) {
				// The file ends inside this record.
				if err := it.tail(record.Skipped{Offset: pos, Length: it.r.size - pos, Err: err}); err != nil {
					return it.fail(err)
				}
				return it.fail(io.EOF)
			}
			if !it.r.opts.SkipBad {
				return it.fail(err)
			}
			// Go on at the next chunk, if one can be found.
			if it.lex.pos = it.skipTo(it.lex.Pos(), err); it.lex.pos >= it.r.size {
				return it.fail(io.EOF)
			}
			continue
		}
		if err := it.topLevel(rec, m); err != nil {
			if err == errYield {
				if it.open >= 0 {
					it.openKept++
				}
				return nil
			}
			if !it.r.opts.SkipBad {
				return it.fail(err)
			}
			it.skip(record.Skipped{Offset: rec.Offset, Length: rec.End() - rec.Offset, Err: err})
		}
	}
}

// inRange reports whether the filter's time range holds t.
func inRange(f record.Filter, t int64) bool {
	return (f.Start == 0 || t >= f.Start) && (f.End == 0 || t < f.End)
}

// errYield tells NextInto that topLevel filled the message.
var errYield = fmt.Errorf("yield")

// topLevel handles a record outside chunks.
func (it *linearIter) topLevel(rec *Record, m *record.Message) error {
	switch rec.Op {
	case OpChunk:
		return it.startChunk(rec, nil)
	case OpConnection, OpMessageData:
		header := append([]byte(nil), rec.Header...)
		var err error
		if it.raw, err = it.lex.ReadData(rec, it.raw); err != nil {
			return err
		}
		if rec.Op == OpConnection {
			c, err := ParseConnection(header, it.raw)
			if err != nil {
				return record.WithFile(err, it.r.path, rec.Offset, "")
			}
			c.Offset = rec.Offset
			it.connection(c)
			return nil
		}
		conn, t, err := parseMessageHeader(header)
		if err != nil {
			return record.WithFile(err, it.r.path, rec.Offset, "")
		}
		if it.message(m, conn, t, it.raw, rec.Offset) {
			return errYield
		}
		if it.sel[conn] != nil {
			return nil
		}
		return record.WithFile(errUnknownConn(conn), it.r.path, rec.Offset, "")
	case OpIndexData, OpChunkInfo:
		return nil
	}
	return &record.Error{File: it.r.path, Offset: rec.Offset, Field: "op", Err: record.ErrFormat,
		Detail: "unexpected " + rec.Op.String() + " record"}
}

// errFiltered marks a message that exists but is not selected.
var errFiltered = fmt.Errorf("filtered")

// errUnknownConn is a message whose connection record was not seen; its
// offset is relative to the message record.
func errUnknownConn(conn uint32) error {
	return &record.Error{Offset: 0, Field: "message_data.conn", Err: record.ErrNotFound,
		Detail: fmt.Sprintf("message on connection %d before its connection record", conn)}
}

func (it *linearIter) connection(c *Connection) { it.r.addConnection(c) }

// message fills m when conn is known and the filter selects it.
func (it *linearIter) message(m *record.Message, conn uint32, t int64, data []byte, off int64) bool {
	s := it.sel[conn]
	if s == nil {
		ch := it.r.channel(conn)
		if ch == nil {
			return false
		}
		s = &selected{ch: ch, want: it.f.Topic == nil || it.f.Topic(ch.Topic)}
		it.sel[conn] = s
	}
	if !s.want || !inRange(it.f, t) {
		return false
	}
	*m = record.Message{Channel: s.ch, LogTime: t, PublishTime: t, Sequence: it.seq, Source: it.r.path, Offset: off, Data: data}
	it.seq++
	return true
}

// startChunk reads and decompresses a chunk record. cut is the lexer's
// error when the file ends inside the chunk.
func (it *linearIter) startChunk(rec *Record, cut error) error {
	h, err := ParseChunkHeader(rec.Header)
	if err != nil {
		return record.WithFile(err, it.r.path, rec.Offset, "")
	}
	size := h.Size
	if rec.DataLen == 0 && h.Size == 0 && !unterminated(rec, h) && it.r.crashed() {
		it.open = rec.Offset // stored: its records follow at the top level
	}
	if unterminated(rec, h) {
		// rosbag record stopped while writing this chunk: the header still
		// holds its zero placeholders and the compressed stream runs to the
		// end of the file. (An unfinished stored chunk needs nothing: its
		// records follow at the top level.)
		cut = &record.Error{File: it.r.path, Offset: rec.Offset, Field: "chunk.size", Err: record.ErrTruncated,
			Detail: "unterminated " + string(h.Compression) + " chunk: the recording stopped while writing it"}
		rec.DataLen = uint32(min(it.r.size-rec.DataOffset, math.MaxUint32))
		size = math.MaxUint32
		it.lexStopped = true
	}
	if it.raw, err = it.lex.ReadData(rec, it.raw); err != nil {
		return err
	}
	if it.onChunk != nil {
		it.onChunk(h.Compression)
	}
	it.chunkOff, it.chunkLen = rec.Offset, rec.End()-rec.Offset
	if cut != nil {
		it.chunkLen = it.r.size - rec.Offset
	}
	it.chunkData = -1
	if h.Compression == CompressionNone || h.Compression == "" {
		it.chunkData = rec.DataOffset
	}
	data, derr := it.dec.decompress(it.out, h.Compression, it.raw, size)
	if it.chunkData < 0 && data != nil {
		it.out = data
	}
	it.chunk, it.cpos, it.salvaged = data, 0, 0
	it.partial, it.chunkErr = false, nil
	switch {
	case cut != nil:
		it.partial, it.chunkErr = true, cut
	case derr != nil:
		it.partial, it.chunkErr = true, record.WithFile(derr, it.r.path, rec.DataOffset, "")
	}
	if it.chunk == nil {
		it.chunk = []byte{}
	}
	return nil
}

// openErr is the damage of an unterminated stored chunk.
func (it *linearIter) openErr() error {
	return &record.Error{File: it.r.path, Offset: it.open, Field: "chunk.size", Err: record.ErrTruncated,
		Detail: "unterminated none chunk: the recording stopped while writing it"}
}

// unterminated reports whether a chunk record is one that rosbag started
// but never finished: size and data_len are the zero placeholders it writes
// first.
func unterminated(rec *Record, h *ChunkHeader) bool {
	return rec.DataLen == 0 && h.Size == 0 && h.Compression != CompressionNone && h.Compression != ""
}

// chunkError places err, whose Offset is relative to the chunk's
// uncompressed data, in the file: exactly for stored chunks, at the chunk
// record (with the inner offset in the detail) for compressed ones.
func chunkError(err error, path string, chunkOff, chunkData int64) error {
	e, ok := err.(*record.Error)
	if !ok || e.File != "" {
		return err
	}
	c := *e
	c.File = path
	if chunkData >= 0 {
		c.Offset += chunkData
	} else {
		c.Detail += fmt.Sprintf(" (at offset %d of the decompressed chunk)", c.Offset)
		c.Offset = chunkOff
	}
	return &c
}

// fileOffset is the offset reported for a record at pos in the chunk.
func (it *linearIter) fileOffset(pos int) int64 {
	if it.chunkData >= 0 {
		return it.chunkData + int64(pos)
	}
	return it.chunkOff
}

// nextInChunk yields the next selected message of the current chunk. It
// returns false, nil when the chunk's records are used up (for a partial
// chunk: up to the first incomplete record).
func (it *linearIter) nextInChunk(m *record.Message) (bool, error) {
	for it.cpos < len(it.chunk) {
		pos := it.cpos
		header, data, next, err := splitRecord(it.chunk, pos)
		if err != nil {
			if it.partial {
				return false, nil
			}
			err = chunkError(err, it.r.path, it.chunkOff, it.chunkData)
			q := -1
			if it.r.opts.SkipBad {
				q = nextRecord(it.chunk, pos+1)
			}
			if q < 0 {
				return false, err
			}
			// The framing is lost here: go on at the next plausible
			// record of the chunk.
			n := int64(q - pos)
			if it.chunkData < 0 {
				n = it.chunkLen // a compressed chunk: the range is the chunk record
			}
			it.skip(record.Skipped{Offset: it.fileOffset(pos), Length: n, Err: err})
			it.cpos = q
			continue
		}
		op, err := RecordOp(header)
		if err == nil {
			err = it.chunkRecord(m, op, header, data, pos)
		}
		switch err {
		case errYield:
			it.cpos = next
			if it.partial {
				it.salvaged++
			}
			return true, nil
		case nil, errFiltered:
			it.cpos = next
			continue
		}
		// A bad record whose framing is intact: the records after it can
		// still be read, so with record.WithSkipBad only this one is skipped.
		err = chunkError(rebase(err, int64(pos)), it.r.path, it.chunkOff, it.chunkData)
		if !it.r.opts.SkipBad {
			return false, err
		}
		it.skip(record.Skipped{Offset: it.fileOffset(pos), Length: int64(next - pos), Err: err})
		it.cpos = next
	}
	return false, nil
}

// rebase adds base to the offset of an unplaced *record.Error.
func rebase(err error, base int64) error {
	if e, ok := err.(*record.Error); ok && e.File == "" && e.Offset >= 0 {
		c := *e
		c.Offset += base
		return &c
	}
	return err
}

func (it *linearIter) chunkRecord(m *record.Message, op Op, header, data []byte, pos int) error {
	switch op {
	case OpMessageData:
		conn, t, err := parseMessageHeader(header)
		if err != nil {
			return err
		}
		if it.message(m, conn, t, data, it.fileOffset(pos)) {
			return errYield
		}
		if it.sel[conn] != nil {
			return errFiltered
		}
		return errUnknownConn(conn)
	case OpConnection:
		c, err := ParseConnection(header, data)
		if err != nil {
			return err
		}
		c.Offset = it.fileOffset(pos)
		it.connection(c)
		return nil
	case OpIndexData:
		if it.partial {
			return nil // a chunk with a damaged length runs over its index data records
		}
	}
	return &record.Error{Offset: 0, Field: "op", Err: record.ErrFormat, Detail: op.String() + " record inside a chunk"}
}

// endChunk finishes the current chunk, reporting why a partial one ended.
func (it *linearIter) endChunk() error {
	it.chunk = nil
	if !it.partial {
		return nil
	}
	err := it.chunkErr
	it.partial, it.chunkErr = false, nil
	s := record.Skipped{Offset: it.chunkOff, Length: it.chunkLen, Kept: uint64(it.salvaged), Err: err}
	if it.lexStopped {
		return it.tail(s) // the file ends inside the chunk
	}
	if !it.r.opts.SkipBad {
		return err
	}
	it.skip(s)
	return nil
}
