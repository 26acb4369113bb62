package bag

import (
	"cmp"
	"io"
	"slices"

	"github.com/baglab/baglab/decode/record"
)

// timeSpan is the log time range of a connection's messages.
type timeSpan struct{ first, last int64 }

// with returns s widened to hold t, or the span of t alone when fresh.
func (s timeSpan) with(t int64, fresh bool) timeSpan {
	if fresh {
		return timeSpan{t, t}
	}
	return timeSpan{min(s.first, t), max(s.last, t)}
}

// union returns the span holding both s and o.
func (s timeSpan) union(o timeSpan) timeSpan {
	return timeSpan{min(s.first, o.first), max(s.last, o.last)}
}

// spanReader finds the exact log times of connections' first and last
// messages in an indexed bag. It reads the index data records that follow
// only the chunks whose time range (from their chunk infos) can hold an
// extreme, caching them per chunk; a chunk whose index data records are
// missing or disagree with its chunk info is read itself instead.
type spanReader struct {
	r *Reader
	// byStart and byEnd list the chunks by start and by end time.
	byStart, byEnd []*chunkRef
	chunks         map[*chunkRef]map[uint32]timeSpan
	buf, out       []byte
	dec            decompressor
}

func newSpanReader(r *Reader) *spanReader {
	sr := &spanReader{r: r, chunks: map[*chunkRef]map[uint32]timeSpan{}}
	byStart := func(a, b *chunkRef) int { return cmp.Compare(a.info.StartTime, b.info.StartTime) }
	byEnd := func(a, b *chunkRef) int { return cmp.Compare(a.info.EndTime, b.info.EndTime) }
	sr.byStart, sr.byEnd = sorted(r.chunks, byStart), sorted(r.chunks, byEnd)
	return sr
}

// sorted returns a stably sorted copy of chunks (they usually are in order).
func sorted(chunks []*chunkRef, order func(a, b *chunkRef) int) []*chunkRef {
	out := slices.Clone(chunks)
	if !slices.IsSortedFunc(out, order) {
		slices.SortStableFunc(out, order)
	}
	return out
}

// holds reports whether chunk c holds messages of conn.
func (c *chunkRef) holds(conn uint32) bool {
	for _, cc := range c.info.Counts {
		if cc.Conn == conn {
			return cc.Count > 0
		}
	}
	return false
}

// conn returns the log times of the first and last messages of conn.
//
// Its chunks are taken by start time until one starts at or after the
// earliest message found so far, and by end time (latest first) until one
// ends at or before the latest found: one chunk each unless chunks overlap
// in time. Should no chunk hold a message of conn after all (chunk infos
// that disagree with the chunks), the chunk infos' times bound it.
func (sr *spanReader) conn(conn uint32) (timeSpan, error) {
	var s timeSpan
	ok := false
	for _, c := range sr.byStart {
		if ok && c.info.StartTime >= s.first {
			break
		}
		if !c.holds(conn) {
			continue
		}
		spans, err := sr.chunk(c)
		if err != nil {
			return timeSpan{}, err
		}
		if cs, in := spans[conn]; in && (!ok || cs.first < s.first) {
			s.first, ok = cs.first, true
		}
	}
	if !ok {
		return sr.bounds(conn), nil
	}
	ok = false
	for _, c := range slices.Backward(sr.byEnd) {
		if ok && c.info.EndTime <= s.last {
			break
		}
		if !c.holds(conn) {
			continue
		}
		spans, err := sr.chunk(c)
		if err != nil {
			return timeSpan{}, err
		}
		if cs, in := spans[conn]; in && (!ok || cs.last > s.last) {
			s.last, ok = cs.last, true
		}
	}
	return s, nil
}

// bounds is the span of the chunk infos listing conn.
func (sr *spanReader) bounds(conn uint32) timeSpan {
	var s timeSpan
	ok := false
	for _, c := range sr.byStart {
		if c.holds(conn) {
			cs := timeSpan{c.info.StartTime, c.info.EndTime}
			if ok {
				cs = cs.union(s)
			}
			s, ok = cs, true
		}
	}
	return s
}

// chunk returns the span of each connection's messages in chunk c.
func (sr *spanReader) chunk(c *chunkRef) (map[uint32]timeSpan, error) {
	if spans, ok := sr.chunks[c]; ok {
		return spans, nil
	}
	spans, ok := sr.fromIndex(c)
	if !ok {
		var err error
		if spans, err = sr.fromChunk(c); err != nil {
			if !sr.r.opts.skipBad {
				return nil, err
			}
			// The iterator reports the damage; the chunk info bounds what
			// the chunk held.
			spans = map[uint32]timeSpan{}
			for _, cc := range c.info.Counts {
				spans[cc.Conn] = timeSpan{c.info.StartTime, c.info.EndTime}
			}
		}
	}
	sr.chunks[c] = spans
	return spans, nil
}

// fromIndex reads the span of each connection in chunk c from the index
// data records after it (entries need not be sorted by time). ok is false
// when they are unreadable or do not count what the chunk info counts.
func (sr *spanReader) fromIndex(c *chunkRef) (spans map[uint32]timeSpan, ok bool) {
	n := c.indexEnd - c.end()
	if n > maxIndexRegion {
		return nil, false
	}
	sr.buf = grow(sr.buf, int(n))
	if m, _ := sr.r.r.ReadAt(sr.buf, c.end()); int64(m) < n {
		return nil, false
	}
	spans = map[uint32]timeSpan{}
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
			s = s.with(timeNs(data[12*e:]), !seen && e == 0)
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
func (sr *spanReader) fromChunk(c *chunkRef) (map[uint32]timeSpan, error) {
	path := sr.r.path
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
	spans := map[uint32]timeSpan{}
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
			spans[conn] = s.with(t, !seen)
		}
		p = next
	}
	return spans, nil
}
