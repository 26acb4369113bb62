package bag

import (
	"io"

	"github.com/baglab/baglab/recording/internal/chunked"

	"github.com/baglab/baglab/record"
)

// spanReader finds the exact log times of connections' first and last
// messages in an indexed bag. It reads the index data records that follow
// only the chunks whose time range (from their chunk infos) can hold an
// extreme, caching them per chunk (none for a chunk of one connection,
// whose chunk info's times are its messages'); a chunk whose index data
// records are missing or disagree with its chunk info is read itself
// instead.
type spanReader struct {
	r *Reader
	// lists holds, per connection, its message count and the chunks with
	// messages of it.
	lists    map[uint32]*connChunks
	chunks   map[*chunkRef]map[uint32]chunked.Span
	buf, out []byte
	dec      decompressor
}

// connChunks counts a connection's messages and lists the chunks holding
// it by start and by end time.
type connChunks struct {
	count          uint64
	byStart, byEnd []*chunkRef
}

func newSpanReader(r *Reader) *spanReader {
	sr := &spanReader{r: r, lists: map[uint32]*connChunks{}, chunks: map[*chunkRef]map[uint32]chunked.Span{}}
	for _, c := range r.chunks {
		for _, cc := range c.info.Counts {
			if cc.Count > 0 {
				l := sr.lists[cc.Conn]
				if l == nil {
					l = &connChunks{}
					sr.lists[cc.Conn] = l
				}
				l.count += uint64(cc.Count)
				l.byStart = append(l.byStart, c)
			}
		}
	}
	for _, l := range sr.lists {
		l.byStart, l.byEnd = chunked.ByTime(l.byStart, chunkStart, chunkEnd)
	}
	return sr
}

// prefetch starts fetching, in parallel, the index data records of the
// chunks where conn first looks for each connection's first and last
// messages (the first chunk by start time, the last by end time) when
// the bag is remote: a summary then waits one round trip for them all,
// not one per chunk. Chunks of one connection need none (fromInfo).
func (sr *spanReader) prefetch() {
	p, ok := sr.r.r.(prefetcher)
	if !ok {
		return
	}
	seen := map[*chunkRef]bool{}
	for _, l := range sr.lists {
		for _, c := range []*chunkRef{l.byStart[0], l.byEnd[len(l.byEnd)-1]} {
			if seen[c] {
				continue
			}
			seen[c] = true
			if _, one := fromInfo(c.info); one {
				continue
			}
			start := sr.r.indexStart(c)
			if n := c.indexEnd - start; n > 0 && n <= maxIndexRegion {
				p.Prefetch([]int64{start}, n)
			}
		}
	}
}

func chunkStart(c *chunkRef) int64 { return c.info.StartTime }
func chunkEnd(c *chunkRef) int64   { return c.info.EndTime }

// conn returns the log times of the first and last messages of conn (see
// chunked.Extremes). Should no chunk hold a message of conn after all
// (chunk infos that disagree with the chunks), the chunk infos' times
// bound it.
func (sr *spanReader) conn(conn uint32) (chunked.Span, error) {
	l := sr.lists[conn]
	if l == nil {
		return chunked.Span{}, nil
	}
	s, first, last, err := chunked.Extremes(l.byStart, l.byEnd, chunkStart, chunkEnd, chunked.Span{}, false,
		func(c *chunkRef) (chunked.Span, bool, error) {
			spans, err := sr.chunk(c)
			cs, ok := spans[conn]
			return cs, ok, err
		})
	if err != nil {
		return chunked.Span{}, err
	}
	if !first || !last {
		// Bound it by the chunk infos.
		return chunked.Span{First: l.byStart[0].info.StartTime, Last: l.byEnd[len(l.byEnd)-1].info.EndTime}, nil
	}
	return s, nil
}

// chunk returns the span of each connection's messages in chunk c.
func (sr *spanReader) chunk(c *chunkRef) (map[uint32]chunked.Span, error) {
	if spans, ok := sr.chunks[c]; ok {
		return spans, nil
	}
	spans, ok := fromInfo(c.info)
	if !ok {
		spans, ok = sr.fromIndex(c)
	}
	if !ok {
		var err error
		if spans, err = sr.fromChunk(c); err != nil {
			if !sr.r.opts.SkipBad {
				return nil, err
			}
			// The iterator reports the damage; the chunk info bounds what
			// the chunk held.
			spans = map[uint32]chunked.Span{}
			for _, cc := range c.info.Counts {
				spans[cc.Conn] = chunked.Span{First: c.info.StartTime, Last: c.info.EndTime}
			}
		}
	}
	sr.chunks[c] = spans
	return spans, nil
}

// fromInfo returns the span of the one connection in the chunk of ci,
// whose messages are all the chunk's, so that the chunk info's start and
// end times are theirs: a chunk of one large message (a point cloud, an
// image) costs no read. ok is false when the chunk holds several.
func fromInfo(ci *ChunkInfo) (spans map[uint32]chunked.Span, ok bool) {
	for _, cc := range ci.Counts {
		if cc.Count == 0 {
			continue
		}
		if spans != nil {
			return nil, false
		}
		spans = map[uint32]chunked.Span{cc.Conn: {First: ci.StartTime, Last: ci.EndTime}}
	}
	return spans, spans != nil
}

// fromIndex reads the span of each connection in chunk c from the index
// data records after it (entries need not be sorted by time), without
// reading the chunk's header (see Reader.indexStart). ok is false when
// they are unreadable or do not count what the chunk info counts.
func (sr *spanReader) fromIndex(c *chunkRef) (spans map[uint32]chunked.Span, ok bool) {
	start := sr.r.indexStart(c)
	n := c.indexEnd - start
	if n < 0 || n > maxIndexRegion {
		return nil, false
	}
	sr.buf = grow(sr.buf, int(n))
	if m, _ := sr.r.r.ReadAt(sr.buf, start); int64(m) < n {
		return nil, false
	}
	spans = map[uint32]chunked.Span{}
	counts := map[uint32]uint32{}
	for p := 0; p < len(sr.buf); {
		header, data, next, err := splitRecord(sr.buf, p)
		if err != nil {
			return nil, false
		}
		p = next
		conn, count, err := parseIndexHeader(header, data)
		if err != nil {
			return nil, false
		}
		s, seen := spans[conn]
		for e := range count {
			s = s.With(timeNs(data[12*e:]), !seen && e == 0)
		}
		if count > 0 {
			spans[conn] = s
		}
		counts[conn] += count
	}
	for _, cc := range c.info.Counts {
		if counts[cc.Conn] != cc.Count {
			return nil, false
		}
	}
	return spans, true
}

// fromChunk reads and decompresses chunk c and returns the span of each
// connection's messages in it.
func (sr *spanReader) fromChunk(c *chunkRef) (map[uint32]chunked.Span, error) {
	path := sr.r.path
	if err := sr.r.loadChunkHeaders([]*chunkRef{c}); err != nil {
		return nil, err
	}
	sr.buf = grow(sr.buf, int(c.dataLen))
	if n, err := sr.r.r.ReadAt(sr.buf, c.dataOffset); n < len(sr.buf) {
		if err == nil || err == io.EOF {
			err = &record.Error{File: path, Offset: c.dataOffset + int64(n), Field: "chunk.data", Err: record.ErrTruncated, Detail: "short read"}
		}
		return nil, err
	}
	data, err := sr.dec.decompress(sr.out, c.compression, sr.buf, c.size)
	if !c.stored() {
		sr.out = data[:cap(data)]
	}
	if err != nil {
		return nil, record.WithFile(err, path, c.dataOffset, "")
	}
	spans := map[uint32]chunked.Span{}
	for p := 0; p < len(data); {
		header, _, next, err := splitRecord(data, p)
		if err != nil {
			return nil, c.placeErr(err, path)
		}
		op, err := RecordOp(header)
		if err != nil {
			return nil, c.placeErr(rebase(err, int64(p)), path)
		}
		if op == OpMessageData {
			conn, t, err := parseMessageHeader(header)
			if err != nil {
				return nil, c.placeErr(rebase(err, int64(p)), path)
			}
			s, seen := spans[conn]
			spans[conn] = s.With(t, !seen)
		}
		p = next
	}
	return spans, nil
}
