package mcapfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// item is one record met by a walker: a top-level record or one inside a
// chunk.
type item struct {
	op      mcap.OpCode
	body    []byte
	frame   frame // the top-level record (the chunk for records inside one)
	offset  int64 // file offset of the record, -1 inside a compressed chunk
	inChunk bool
	// unverified is set for the records of a chunk whose CRC fails or
	// whose compressed data is damaged, kept record.WithKeepUnverified.
	unverified bool
	chunkHdr   *chunk // the enclosing chunk, when inChunk
}

// messageOffset is the Message.Offset of a message record: its own offset,
// or inside a compressed chunk the chunk record's.
func (it item) messageOffset() int64 {
	if it.offset < 0 {
		return it.frame.offset
	}
	return it.offset
}

// walker yields the records of the data section in file order, expanding
// chunks. It stops at DataEnd or the footer, and walks past one out of
// place (dataBounds.stray). Made to go on (goOn), it walks past damage as
// Recover does, reporting each damaged stretch and such a record.
type walker struct {
	ra    io.ReaderAt
	file  string
	sc    *scanner
	limit int64 // end of the data the scanner reads
	// warn, when set, takes a stray data end or footer record instead of
	// the report of damage (record.WithWarning)
	warn   func(record.Skipped)
	bounds dataBounds // end of the data section as the footer puts it
	dec    decoders
	verify bool
	// going on past damage
	salvage bool
	// dropUnverified leaves out the records of a chunk that no CRC vouches
	// for (going on past damage, unless record.WithKeepUnverified).
	dropUnverified bool
	ckUnverified   bool
	starts         chunkStarts          // chunks of the summary's chunk index, to pick up at
	report         func(record.Skipped) // nil: skip silently
	// current chunk
	ck       *chunk
	ckFrame  frame
	ckData   []byte
	ckPlain  int64 // file offset of ckData[0] when uncompressed, else -1
	ckPos    int
	ckBuf    []byte
	finished bool
}

func newWalker(ra io.ReaderAt, file string, size int64, verify bool) *walker {
	limit, bounds := size, sectionEnd(nil, size)
	if footer, err := readFooter(ra, file, size); err == nil && footer != nil {
		limit, bounds = size-magicLen, sectionEnd(footer, size)
	}
	return &walker{ra: ra, file: file, sc: newScanner(ra, file, magicLen, limit), limit: limit, bounds: bounds, verify: verify}
}

// goOn makes the walker go on past damage: chunks whose CRC fails or whose
// data stops decompressing give the records that frame, and where the
// framing is lost the walk picks up at the next chunk starts lists, or ends.
// report, if not nil, gets each damaged stretch.
func (w *walker) goOn(starts chunkStarts, report func(record.Skipped)) {
	w.salvage, w.starts, w.report = true, starts, report
}

func (w *walker) close() { w.dec.close() }

func (w *walker) skip(s record.Skipped) {
	if w.report != nil {
		w.report(s)
	}
}

func (w *walker) skipErr(off, n int64, err error) {
	w.skip(record.Skipped{Offset: off, Length: n, Err: err})
}

// next returns the next record, io.EOF after DataEnd or the footer, or an
// error (ErrTruncated when the file ends before them). A DataEnd or footer
// record out of place (dataBounds.stray) is walked past: the records after
// it are read, as @mcap/core's McapStreamReader reads those after a
// DataEnd record. Going on past damage, it reports such a record, returns
// io.EOF at a cut too, and errors only when reading fails.
func (w *walker) next() (item, error) {
	for {
		if w.ckData != nil {
			if w.ckPos < len(w.ckData) {
				it, err := w.chunkRecord()
				if err != nil {
					w.ckData = nil
					return item{}, err
				}
				if w.salvage && it.op == mcap.OpMessage && len(it.body) < messageHeadLen {
					continue // counted in the chunk's report
				}
				return it, nil
			}
			w.ckData = nil
		}
		if w.finished {
			return item{}, io.EOF
		}
		start := w.sc.pos
		fr, err := w.sc.next()
		if err == io.EOF {
			w.finished = true
			err := errorf(w.file, w.sc.pos, "data end", record.ErrTruncated, "file ends without a data end record or footer")
			if !w.salvage {
				return item{}, err
			}
			w.skipErr(start, 0, err)
			return item{}, io.EOF
		}
		if err == nil && w.salvage && fr.op != mcap.OpFooter {
			if next := w.starts.next(w.ra, w.file, fr.offset, fr.end(), w.limit); next >= 0 {
				err = errorf(w.file, fr.offset, fr.op.String()+" record length", record.ErrFormat,
					"the record runs over the chunk that the summary indexes at %d", next)
			}
		}
		if err != nil {
			if !w.salvage {
				w.finished = true
				return item{}, err
			}
			w.resync(start, err)
			continue
		}
		switch fr.op {
		case mcap.OpDataEnd, mcap.OpFooter:
			if err := w.bounds.stray(w.ra, w.file, fr); err != nil {
				s := record.Skipped{Offset: fr.offset, Length: fr.end() - fr.offset, Err: err, Note: "reading goes on past it"}
				if w.warn != nil {
					w.warn(s)
				} else {
					w.skip(s)
				}
				continue
			}
			w.finished = true
			return item{}, io.EOF
		case mcap.OpAttachment:
			// Attachments can be large: only their head is read.
			head, err := w.sc.head(fr, 64<<10)
			if err != nil {
				return item{}, err
			}
			return item{op: fr.op, body: head, frame: fr, offset: fr.offset}, nil
		case mcap.OpChunk:
			body, err := w.sc.bodyOf(fr)
			if err != nil {
				return item{}, err
			}
			if w.salvage {
				w.salvageChunk(fr, body, nil)
				if next, op := overlong(fr, body); next >= 0 {
					w.skip(record.Skipped{Offset: fr.offset, Length: fr.end() - fr.offset,
						Note: fmt.Sprintf("a %s record follows its records: reading goes on there", op),
						Err:  errorf(w.file, fr.offset, "chunk record length", record.ErrFormat, "the record runs %d bytes past its records", fr.end()-next)})
					w.sc.pos = next
				}
				continue
			}
			ck, err := parseChunk(w.file, fr.bodyOffset(), body)
			if err != nil {
				return item{}, err
			}
			data, err := w.dec.decompress(w.file, fr.offset, ck, w.ckBuf, w.verify)
			if err != nil {
				return item{}, err
			}
			w.setChunk(fr, ck, data)
			continue
		}
		body, err := w.sc.bodyOf(fr)
		if err != nil {
			return item{}, err
		}
		return item{op: fr.op, body: body, frame: fr, offset: fr.offset}, nil
	}
}

// setChunk makes data, the records of chunk ck (record fr), the ones to
// walk next.
func (w *walker) setChunk(fr frame, ck *chunk, data []byte) {
	if ck.compression == "" {
		w.ckPlain = fr.bodyOffset() + ck.recordsOffset
	} else {
		w.ckPlain = -1
		if cap(data) > cap(w.ckBuf) {
			w.ckBuf = data[:0]
		}
	}
	w.ck, w.ckFrame, w.ckData, w.ckPos, w.ckUnverified = ck, fr, data, 0, false
}

// resync goes on past the record at start, whose framing err says is lost:
// the complete records of the chunk there, if any, are walked, and then the
// walk picks up at the next chunk the summary lists, or ends.
func (w *walker) resync(start int64, err error) {
	next := w.starts.next(w.ra, w.file, start, w.limit, w.limit)
	end := next
	if end < 0 {
		end = w.limit
	}
	if fr, body, ok := cutChunk(w.ra, start, end); ok {
		w.salvageChunk(fr, body, err)
	} else {
		w.skipErr(start, end-start, err)
	}
	if next < 0 {
		w.finished = true
	} else {
		w.sc.pos = next
	}
}

// salvageChunk sets up the records of chunk record fr that still frame, and
// reports the chunk when it is damaged. cut says why its framing is lost,
// nil for a whole chunk record.
func (w *walker) salvageChunk(fr frame, body []byte, cut error) {
	ck, err := parseChunk(w.file, fr.bodyOffset(), body)
	if err != nil {
		w.skipErr(fr.offset, fr.end()-fr.offset, err)
		return
	}
	data, fate := salvageRecords(&w.dec, w.file, fr, ck, w.ckBuf, cut, w.verify)
	// A chunk damaged in place (its CRC fails, its compressed data is
	// corrupt) is unverified; one cut by the end of the file keeps its
	// complete records.
	fate.dropped = fate.damage != nil && fate.cut == nil && w.dropUnverified
	for p := 0; p < len(data); {
		op := mcap.OpCode(data[p])
		n := int(binary.LittleEndian.Uint64(data[p+1:]))
		p += recordHeaderLen + n
		if op != mcap.OpMessage {
			if !fate.dropped {
				fate.used++
			}
			continue
		}
		fate.seen++
		if fate.dropped {
			continue
		}
		if n < messageHeadLen {
			fate.bad++
			if fate.firstBad == nil {
				_, _, _, _, fate.firstBad = parseMessageHead(w.file, fr.offset, data[p-n:p])
			}
			continue
		}
		fate.used++
		fate.kept++
	}
	if !fate.whole() {
		w.skip(fate.skipped(fr.end() - fr.offset))
	}
	if len(data) > 0 && !fate.dropped {
		w.setChunk(fr, ck, data)
		w.ckUnverified = fate.damage != nil
	}
}

// chunkRecord frames the next record of the current chunk.
func (w *walker) chunkRecord() (item, error) {
	buf, p := w.ckData, w.ckPos
	if len(buf)-p < recordHeaderLen {
		return item{}, errorf(w.file, w.ckFrame.offset, "chunk record", record.ErrTruncated, "%d bytes left at uncompressed offset %d, need a record header", len(buf)-p, p)
	}
	op := mcap.OpCode(buf[p])
	n := binary.LittleEndian.Uint64(buf[p+1:])
	if n > uint64(len(buf)-p-recordHeaderLen) {
		return item{}, errorf(w.file, w.ckFrame.offset, op.String()+" record length", record.ErrLength,
			"length %d at uncompressed offset %d exceeds the %d bytes left in the chunk", n, p, len(buf)-p-recordHeaderLen)
	}
	it := item{op: op, body: buf[p+recordHeaderLen : p+recordHeaderLen+int(n)], frame: w.ckFrame, offset: -1, inChunk: true, chunkHdr: w.ck, unverified: w.ckUnverified}
	if w.ckPlain >= 0 {
		it.offset = w.ckPlain + int64(p)
	}
	w.ckPos = p + recordHeaderLen + int(n)
	return it, nil
}

// parseMessageHead reads the fixed fields of a message record body.
func parseMessageHead(file string, off int64, b []byte) (channel uint16, seq uint32, logTime, pubTime uint64, err error) {
	if len(b) < messageHeadLen {
		return 0, 0, 0, 0, errorf(file, off, "message", record.ErrTruncated, "message record is %d bytes, need at least %d", len(b), messageHeadLen)
	}
	return binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint32(b[2:]),
		binary.LittleEndian.Uint64(b[6:]), binary.LittleEndian.Uint64(b[14:]), nil
}

// maxTime is the latest MCAP timestamp baglab represents: record.Message
// holds times as int64 nanoseconds, so a uint64 time from 2^63 ns (after
// 2262-04-11T23:47:16.854775807Z) has none. No recorder writes such a time;
// it means damage or a synthetic file.
const maxTime = math.MaxInt64

// messageTimes checks a message's log and publish times against maxTime:
// a message with a time beyond it cannot be read (with record.WithSkipBad it is
// left out and reported), never read with a negative time. off locates the
// message record (or its chunk) in errors.
func messageTimes(file string, off int64, logTime, pubTime uint64) error {
	field, t := "message.log_time", logTime
	if t <= maxTime {
		if pubTime <= maxTime {
			return nil
		}
		field, t = "message.publish_time", pubTime
	}
	return errorf(file, off, field, record.ErrFormat, "%s", farTime(t))
}

// farTime says that t is beyond maxTime.
func farTime(t uint64) string {
	return fmt.Sprintf("%d is after 2262-04-11, beyond the int64 nanoseconds baglab represents times in", t)
}

// errOffset is off, or the enclosing chunk's offset when off is unknown.
func (it item) errOffset() int64 {
	if it.offset >= 0 {
		return it.offset
	}
	return it.frame.offset
}

// parseAttachmentHead reads an attachment record's fields except its data.
func parseAttachmentHead(ra io.ReaderAt, file string, fr frame) (Attachment, error) {
	head := make([]byte, min(fr.bodyLen, 64<<10))
	if err := readAt(ra, head, fr.bodyOffset()); err != nil {
		return Attachment{}, ioError(file, fr.bodyOffset(), "attachment", err)
	}
	return attachmentFromHead(file, fr, head)
}

// attachmentFromHead parses the leading bytes of an attachment body.
func attachmentFromHead(file string, fr frame, head []byte) (Attachment, error) {
	bad := func(field string) (Attachment, error) {
		return Attachment{}, errorf(file, fr.offset, "attachment."+field, record.ErrLength, "field runs past the record")
	}
	if len(head) < 16 {
		return bad("log_time")
	}
	a := Attachment{Offset: fr.offset, LogTime: binary.LittleEndian.Uint64(head), CreateTime: binary.LittleEndian.Uint64(head[8:])}
	p := 16
	str := func() (string, bool) {
		if len(head)-p < 4 {
			return "", false
		}
		n := int(binary.LittleEndian.Uint32(head[p:]))
		if n > len(head)-p-4 {
			return "", false
		}
		s := string(head[p+4 : p+4+n])
		p += 4 + n
		return s, true
	}
	var ok bool
	if a.Name, ok = str(); !ok {
		return bad("name")
	}
	if a.MediaType, ok = str(); !ok {
		return bad("media_type")
	}
	if len(head)-p < 8 {
		return bad("data")
	}
	a.Size = binary.LittleEndian.Uint64(head[p:])
	p += 8
	if a.Size > uint64(fr.bodyLen)-uint64(p) || uint64(fr.bodyLen)-uint64(p)-a.Size < 4 {
		return bad("data")
	}
	a.dataOffset = fr.bodyOffset() + int64(p)
	return a, nil
}

// newWalker returns a walker over r's data section that, with record.WithSkipBad,
// goes on past damage, reporting it to report.
func (r *Reader) newWalker(report func(record.Skipped)) *walker {
	w := newWalker(r.ra, r.file, r.size, r.opts.verifyCRC)
	if r.opts.SkipBad {
		w.goOn(newChunkStarts(r.summary), report)
		w.dropUnverified = !r.opts.KeepUnverified
	}
	return w
}

// messageWalker is the walker of a message iterator: newWalker reporting
// damage to the record.WithSkipBad callback and stray records to record.WithWarning's.
func (r *Reader) messageWalker() *walker {
	w := r.newWalker(r.skip)
	w.warn = r.opts.OnWarning
	return w
}

// skip reports a damaged stretch to the record.WithSkipBad callback.
func (r *Reader) skip(s record.Skipped) {
	if r.opts.OnSkip != nil {
		r.opts.OnSkip(s)
	}
}
