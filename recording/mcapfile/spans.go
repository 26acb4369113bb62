package mcapfile

import (
	"cmp"
	"encoding/binary"
	"io"
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/chunked"
	"github.com/foxglove/mcap/go/mcap"
)

// spanReader finds the exact log times of channels' first and last messages
// from the summary: it reads the message index records (or, for a chunk
// without usable ones, the chunk itself) of only the chunks whose time range
// can hold an extreme, caching what it read.
type spanReader struct {
	ra   io.ReaderAt
	file string
	ix   *index
	opts options

	// lists holds, per channel, the chunks with message index records of
	// it; unindexed the spans found in the chunks without any.
	lists     map[uint16]*channelChunks
	unindexed map[uint16]chunked.Span
	// lost bounds the chunks without message index records that could not
	// be read (with record.WithSkipBad).
	lost     chunked.Span
	haveLost bool

	indexed map[chunkChannel]spanResult                  // message index record reads
	chunks  map[*mcap.ChunkIndex]map[uint16]chunked.Span // chunk reads
	// sections holds the message index records that follow a chunk, read
	// with one ReadAt for all its channels (one request for a remote file).
	sections map[*mcap.ChunkIndex]*sectionAt
	buf      []byte
	dec      decoders
}

// channelChunks lists the chunks holding a channel by message start and by
// message end time.
type channelChunks struct{ byStart, byEnd []*mcap.ChunkIndex }

type chunkChannel struct {
	ci *mcap.ChunkIndex
	id uint16
}

type spanResult struct {
	s  chunked.Span
	ok bool // the chunk holds messages of the channel
}

func newSpanReader(ra io.ReaderAt, file string, ix *index, opts options) *spanReader {
	return &spanReader{ra: ra, file: file, ix: ix, opts: opts,
		lists: map[uint16]*channelChunks{}, unindexed: map[uint16]chunked.Span{},
		indexed: map[chunkChannel]spanResult{}, chunks: map[*mcap.ChunkIndex]map[uint16]chunked.Span{},
		sections: map[*mcap.ChunkIndex]*sectionAt{}}
}

// maxSection bounds the message index records of a chunk read at once.
const maxSection = 1 << 20

// sectionAt is an io.ReaderAt that answers from the bytes b at off when
// it can and from ra otherwise.
type sectionAt struct {
	ra  io.ReaderAt
	off int64
	b   []byte
}

func (s *sectionAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.off && off+int64(len(p)) <= s.off+int64(len(s.b)) {
		return copy(p, s.b[off-s.off:]), nil
	}
	return s.ra.ReadAt(p, off)
}

// section returns a reader of the message index records that follow
// chunk ci, read whole when they are at most maxSection bytes.
func (sr *spanReader) section(ci *mcap.ChunkIndex) io.ReaderAt {
	if s := sr.sections[ci]; s != nil {
		return s
	}
	s := &sectionAt{ra: sr.ra}
	from, to := int64(ci.ChunkStartOffset+ci.ChunkLength), sr.ix.messageIndexEnd(ci)
	if n := to - from; n > 0 && n <= maxSection {
		b := make([]byte, n)
		if err := readAt(sr.ra, b, from); err == nil {
			s.off, s.b = from, b
		}
	}
	sr.sections[ci] = s
	return s
}

// load lists the chunks of each channel and reads the chunks that have no
// message index records (they may hold any channel).
func (sr *spanReader) load() error {
	// By start time, ties in file order.
	order := slices.Clone(sr.ix.chunks)
	slices.SortFunc(order, func(a, b *mcap.ChunkIndex) int {
		return cmp.Or(cmp.Compare(chunkStart(a), chunkStart(b)), cmp.Compare(a.ChunkStartOffset, b.ChunkStartOffset))
	})
	for _, ci := range order {
		if len(ci.MessageIndexOffsets) == 0 {
			if ci.UncompressedSize == 0 {
				continue
			}
			spans, err := sr.chunk(ci)
			if err != nil {
				if !sr.opts.SkipBad {
					return err
				}
				b := chunked.Span{First: chunkStart(ci), Last: chunkEnd(ci)}
				if sr.haveLost {
					b = b.Union(sr.lost)
				}
				sr.lost, sr.haveLost = b, true
				continue
			}
			for id, s := range spans {
				if u, ok := sr.unindexed[id]; ok {
					s = s.Union(u)
				}
				sr.unindexed[id] = s
			}
			continue
		}
		for id := range ci.MessageIndexOffsets {
			l := sr.lists[id]
			if l == nil {
				l = &channelChunks{}
				sr.lists[id] = l
			}
			l.byStart = append(l.byStart, ci)
		}
	}
	for _, l := range sr.lists {
		l.byStart, l.byEnd = chunked.ByTime(l.byStart, chunkStart, chunkEnd)
	}
	return nil
}

// channel returns the log times of the first and last messages of channel
// id (see chunked.Extremes); ok is false when no chunk holds a message of
// it.
//
// With record.WithSkipBad a chunk that cannot be read counts as holding messages
// of the channel at its index's start and end times, and a channel found
// nowhere is bounded by the unreadable chunks without message indexes.
func (sr *spanReader) channel(id uint16) (s chunked.Span, ok bool, err error) {
	s, ok = sr.unindexed[id]
	l := sr.lists[id]
	if l == nil {
		if !ok && sr.haveLost {
			return sr.lost, true, nil
		}
		return s, ok, nil
	}
	s, first, last, err := chunked.Extremes(l.byStart, l.byEnd, chunkStart, chunkEnd, s, ok,
		func(ci *mcap.ChunkIndex) (chunked.Span, bool, error) { return sr.chunkChannel(ci, id) })
	if err != nil {
		return chunked.Span{}, false, err
	}
	if !first && sr.haveLost {
		return sr.lost, true, nil
	}
	return s, first && last, nil
}

func chunkStart(ci *mcap.ChunkIndex) int64 { return int64(ci.MessageStartTime) }
func chunkEnd(ci *mcap.ChunkIndex) int64   { return int64(ci.MessageEndTime) }

// chunkChannel returns the span of channel id's messages in chunk ci, from
// its message index record when that is sound, else from the chunk.
func (sr *spanReader) chunkChannel(ci *mcap.ChunkIndex, id uint16) (chunked.Span, bool, error) {
	key := chunkChannel{ci, id}
	if r, done := sr.indexed[key]; done {
		return r.s, r.ok, nil
	}
	if s, in, ok := sr.messageIndex(ci, id, ci.MessageIndexOffsets[id]); ok {
		sr.indexed[key] = spanResult{s, in}
		return s, in, nil
	}
	spans, err := sr.chunk(ci)
	if err != nil {
		if sr.opts.SkipBad {
			return chunked.Span{First: chunkStart(ci), Last: chunkEnd(ci)}, true, nil
		}
		return chunked.Span{}, false, err
	}
	s, in := spans[id]
	return s, in, nil
}

// messageIndex reads the message index record of channel id at off that
// follows chunk ci and returns the span of its entries (in is false when it
// has none). ok is false when the record is unreadable or does not match.
func (sr *spanReader) messageIndex(ci *mcap.ChunkIndex, id uint16, off uint64) (s chunked.Span, in, ok bool) {
	ra := sr.section(ci)
	fr, err := readFrame(ra, sr.file, int64(off), sr.ix.messageIndexEnd(ci))
	if err != nil || fr.op != mcap.OpMessageIndex || fr.bodyLen < 6 {
		return chunked.Span{}, false, false
	}
	sr.buf, err = readBody(ra, sr.file, fr, sr.buf)
	if err != nil {
		return chunked.Span{}, false, false
	}
	b := sr.buf
	n := uint64(binary.LittleEndian.Uint32(b[2:]))
	if binary.LittleEndian.Uint16(b) != id || n%16 != 0 || n > uint64(len(b)-6) {
		return chunked.Span{}, false, false
	}
	for e := b[6 : 6+n]; len(e) > 0; e = e[16:] {
		t := binary.LittleEndian.Uint64(e)
		if t > maxTime {
			return chunked.Span{}, false, false // the chunk read reports it
		}
		s = s.With(int64(t), !in)
		in = true
	}
	return s, in, true
}

// chunk reads and decompresses chunk ci and returns the span of each
// channel's messages in it.
func (sr *spanReader) chunk(ci *mcap.ChunkIndex) (map[uint16]chunked.Span, error) {
	if spans, ok := sr.chunks[ci]; ok {
		return spans, nil
	}
	off := int64(ci.ChunkStartOffset)
	fr, err := readFrame(sr.ra, sr.file, off, off+int64(ci.ChunkLength))
	if err == nil && (fr.op != mcap.OpChunk || fr.end() != off+int64(ci.ChunkLength)) {
		err = errorf(sr.file, off, "chunk_index.chunk_start_offset", record.ErrFormat, "chunk index points at a %s record of %d bytes, want a chunk of %d", fr.op, fr.end()-off, ci.ChunkLength)
	}
	if err != nil {
		return nil, err
	}
	body, err := readBody(sr.ra, sr.file, fr, nil)
	if err != nil {
		return nil, err
	}
	ck, err := parseChunk(sr.file, fr.bodyOffset(), body)
	if err != nil {
		return nil, err
	}
	records, err := sr.dec.decompress(sr.file, off, ck, nil, sr.opts.verifyCRC)
	if err != nil {
		return nil, err
	}
	spans := map[uint16]chunked.Span{}
	err = chunkRecords(sr.file, off, records, func(op mcap.OpCode, _ int, body []byte) error {
		if op != mcap.OpMessage {
			return nil
		}
		id, _, lt, pt, err := parseMessageHead(sr.file, off, body)
		if err == nil {
			err = messageTimes(sr.file, off, lt, pt)
		}
		if err != nil {
			return err
		}
		s, seen := spans[id]
		spans[id] = s.With(int64(lt), !seen)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sr.chunks[ci] = spans
	return spans, nil
}

// messageIndexEnd is the end of the message index records that follow
// chunk ci, bounded by the footer (validate checked the chunk itself).
func (ix *index) messageIndexEnd(ci *mcap.ChunkIndex) int64 {
	end := ci.ChunkStartOffset + ci.ChunkLength
	if rest := uint64(ix.footerOffset) - end; ci.MessageIndexLength < rest {
		return int64(end + ci.MessageIndexLength)
	}
	return ix.footerOffset
}

// close returns the decompressors.
func (sr *spanReader) close() { sr.dec.close() }

// spans returns the span of every channel that per counts messages on, or
// ok false when the chunks do not hold a message of one of them (the
// summary does not describe the data; a scan will).
func (ix *index) spans(ra io.ReaderAt, file string, opts options, per map[uint16]uint64) (map[uint16]chunked.Span, bool, error) {
	sr := newSpanReader(ra, file, ix, opts)
	defer sr.close()
	if err := sr.load(); err != nil {
		return nil, false, err
	}
	out := make(map[uint16]chunked.Span, len(per))
	for _, id := range ix.channelIDs {
		if per[id] == 0 {
			continue
		}
		s, ok, err := sr.channel(id)
		if err != nil || !ok {
			return nil, false, err
		}
		out[id] = s
	}
	for id, n := range per {
		if _, listed := out[id]; n > 0 && !listed {
			return nil, false, nil // counted on a channel the summary does not list
		}
	}
	return out, true, nil
}
