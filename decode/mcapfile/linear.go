package mcapfile

import (
	"encoding/binary"
	"io"
	"slices"

	"github.com/baglab/baglab/decode/record"
	"github.com/foxglove/mcap/go/mcap"
)

// item is one record met by a walker: a top-level record or one inside a
// chunk.
type item struct {
	op       mcap.OpCode
	body     []byte
	frame    frame // the top-level record (the chunk for records inside one)
	offset   int64 // file offset of the record, -1 inside a compressed chunk
	inChunk  bool
	chunkHdr *chunk // the enclosing chunk, when inChunk
}

// walker yields the records of the data section in file order, expanding
// chunks. It stops at DataEnd or the footer.
type walker struct {
	file   string
	sc     *scanner
	dec    decoders
	verify bool
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
	limit := size
	if footer, err := readFooter(ra, file, size); err == nil && footer != nil {
		limit = size - magicLen
	}
	return &walker{file: file, sc: newScanner(ra, file, magicLen, limit), verify: verify}
}

func (w *walker) close() { w.dec.close() }

// next returns the next record, io.EOF after DataEnd or the footer, or an
// error (ErrTruncated when the file ends before them).
func (w *walker) next() (item, error) {
	for {
		if w.ckData != nil {
			if w.ckPos < len(w.ckData) {
				it, err := w.chunkRecord()
				if err != nil {
					w.ckData = nil
					return item{}, err
				}
				return it, nil
			}
			w.ckData = nil
		}
		if w.finished {
			return item{}, io.EOF
		}
		fr, err := w.sc.next()
		if err == io.EOF {
			w.finished = true
			return item{}, errorf(w.file, w.sc.pos, "data end", record.ErrTruncated, "file ends without a data end record or footer")
		}
		if err != nil {
			w.finished = true
			return item{}, err
		}
		switch fr.op {
		case mcap.OpDataEnd, mcap.OpFooter:
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
			ck, err := parseChunk(w.file, fr.bodyOffset(), body)
			if err != nil {
				return item{}, err
			}
			data, err := w.dec.decompress(w.file, fr.offset, ck, w.ckBuf, w.verify)
			if err != nil {
				return item{}, err
			}
			if ck.compression == "" {
				w.ckPlain = fr.bodyOffset() + ck.recordsOffset
			} else {
				w.ckPlain = -1
				w.ckBuf = data
			}
			w.ck, w.ckFrame, w.ckData, w.ckPos = ck, fr, data, 0
			continue
		}
		body, err := w.sc.bodyOf(fr)
		if err != nil {
			return item{}, err
		}
		return item{op: fr.op, body: body, frame: fr, offset: fr.offset}, nil
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
	it := item{op: op, body: buf[p+recordHeaderLen : p+recordHeaderLen+int(n)], frame: w.ckFrame, offset: -1, inChunk: true, chunkHdr: w.ck}
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

// scanResult is what a full linear scan learns.
type scanResult struct {
	channels     []*record.Channel
	counts       map[uint16]uint64
	spans        map[uint16]span // log times of each channel's first and last messages
	total        uint64
	compressions []string
	attachments  []Attachment
	metadata     []Metadata
}

// scan reads the whole data section once and caches what it found.
func (r *Reader) scan() (*scanResult, error) {
	r.mu.Lock()
	if r.scanned != nil {
		defer r.mu.Unlock()
		return r.scanned, nil
	}
	r.mu.Unlock()
	w := newWalker(r.ra, r.file, r.size, r.opts.verifyCRC)
	defer w.close()
	sr := &scanResult{counts: map[uint16]uint64{}, spans: map[uint16]span{}, attachments: []Attachment{}, metadata: []Metadata{}}
	schemas := map[uint16]*mcap.Schema{}
	known := map[uint16]*record.Channel{}
	for {
		it, err := w.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch it.op {
		case mcap.OpSchema:
			s, err := safeParse(r.file, it.errOffset(), "schema", mcap.ParseSchema, it.body)
			if err != nil {
				return nil, err
			}
			schemas[s.ID] = s
		case mcap.OpChannel:
			c, err := safeParse(r.file, it.errOffset(), "channel", mcap.ParseChannel, it.body)
			if err != nil {
				return nil, err
			}
			s := schemas[c.SchemaID]
			if s == nil && c.SchemaID != 0 {
				return nil, errorf(r.file, it.errOffset(), "channel.schema_id", record.ErrFormat, "channel %d uses schema %d before its schema record", c.ID, c.SchemaID)
			}
			if _, seen := known[c.ID]; !seen {
				ch := r.channel(c, s)
				known[c.ID] = ch
				sr.channels = append(sr.channels, ch)
			}
		case mcap.OpMessage:
			id, _, lt, _, err := parseMessageHead(r.file, it.errOffset(), it.body)
			if err != nil {
				return nil, err
			}
			if known[id] == nil {
				return nil, errorf(r.file, it.errOffset(), "message.channel_id", record.ErrFormat, "message on channel %d before its channel record", id)
			}
			sr.total++
			sr.counts[id]++
			sr.spans[id] = sr.spans[id].with(lt, sr.counts[id] == 1)
			if it.inChunk {
				name := it.chunkHdr.compression
				if name == "" {
					name = "none"
				}
				if !slices.Contains(sr.compressions, name) {
					sr.compressions = append(sr.compressions, name)
				}
			}
		case mcap.OpAttachment:
			a, err := attachmentFromHead(r.file, it.frame, it.body)
			if err != nil {
				return nil, err
			}
			sr.attachments = append(sr.attachments, a)
		case mcap.OpMetadata:
			m, err := safeParse(r.file, it.errOffset(), "metadata", mcap.ParseMetadata, it.body)
			if err != nil {
				return nil, err
			}
			sr.metadata = append(sr.metadata, Metadata{Name: m.Name, Metadata: m.Metadata, Offset: it.offset})
		}
	}
	sortChannels(sr.channels)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scanned = sr
	return sr, nil
}

// linearIter yields messages in file order.
type linearIter struct {
	r       *Reader
	w       *walker
	f       record.Filter
	schemas map[uint16]*mcap.Schema
	chans   map[uint16]*record.Channel
	wanted  map[uint16]bool
	msg     record.Message
	err     error
}

func newLinearIter(r *Reader, f record.Filter) *linearIter {
	return &linearIter{
		r:       r,
		w:       newWalker(r.ra, r.file, r.size, r.opts.verifyCRC),
		f:       f,
		schemas: map[uint16]*mcap.Schema{},
		chans:   map[uint16]*record.Channel{},
		wanted:  map[uint16]bool{},
	}
}

// Next returns the next message in file order.
func (it *linearIter) Next() (*record.Message, error) {
	if it.err != nil {
		return nil, it.err
	}
	m, err := it.next()
	if err != nil {
		it.err = err
		it.w.close()
		return nil, err
	}
	return m, nil
}

func (it *linearIter) next() (*record.Message, error) {
	file := it.r.file
	for {
		rec, err := it.w.next()
		if err != nil {
			return nil, err
		}
		switch rec.op {
		case mcap.OpSchema:
			s, err := safeParse(file, rec.errOffset(), "schema", mcap.ParseSchema, rec.body)
			if err != nil {
				return nil, err
			}
			it.schemas[s.ID] = s
		case mcap.OpChannel:
			c, err := safeParse(file, rec.errOffset(), "channel", mcap.ParseChannel, rec.body)
			if err != nil {
				return nil, err
			}
			s := it.schemas[c.SchemaID]
			if s == nil && c.SchemaID != 0 {
				return nil, errorf(file, rec.errOffset(), "channel.schema_id", record.ErrFormat, "channel %d uses schema %d before its schema record", c.ID, c.SchemaID)
			}
			it.chans[c.ID] = it.r.channel(c, s)
			it.wanted[c.ID] = it.f.Topic == nil || it.f.Topic(c.Topic)
		case mcap.OpMessage:
			id, seq, lt, pt, err := parseMessageHead(file, rec.errOffset(), rec.body)
			if err != nil {
				return nil, err
			}
			ch := it.chans[id]
			if ch == nil {
				return nil, errorf(file, rec.errOffset(), "message.channel_id", record.ErrFormat, "message on channel %d before its channel record", id)
			}
			if !it.wanted[id] || !it.f.Match(ch.Topic, int64(lt)) {
				continue
			}
			it.msg = record.Message{
				Channel:     ch,
				LogTime:     int64(lt),
				PublishTime: int64(pt),
				Sequence:    uint64(seq),
				Source:      file,
				Offset:      rec.offset,
				Data:        rec.body[messageHeadLen:],
			}
			return &it.msg, nil
		}
	}
}

// Close releases the iterator; it is idempotent.
func (it *linearIter) Close() error {
	if it.err == nil {
		it.err = io.EOF
	}
	it.w.close()
	return nil
}
