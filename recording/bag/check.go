package bag

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/baglab/baglab/record"
)

// Check examines the bag at path and lists its problems, in file order:
// the record structure (framing, op codes, what follows the last chunk),
// every chunk (it must decompress to its declared size into well-formed
// connection and message records), the index data records after each
// chunk against the chunk's messages, the index section (bag header
// counts, chunk infos' counts and time ranges against the chunks,
// connection records against those inside the chunks). Definitions and
// MD5s are decode.Check's, for every format. It returns an error only when
// the file cannot be examined as a bag at all (not a bag, unreadable bag
// header).
func Check(path string) ([]record.Problem, error) {
	r, err := Open(path, record.WithoutIndex())
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return check(r), nil
}

// check examines a bag opened record.WithoutIndex.
func check(r *Reader) []record.Problem {
	c := &checker{r: r, conns: map[uint32]*Connection{}, connAt: map[uint32]int64{}, chunkAt: map[int64]*chunkSeen{}, framingLost: map[int64]bool{}}
	c.walk()
	c.checkIndex()
	slices.SortStableFunc(c.probs, func(a, b record.Problem) int { return cmp.Compare(a.Offset, b.Offset) })
	return c.probs
}

type checker struct {
	r     *Reader
	probs []record.Problem
	dec   decompressor
	raw   []byte
	out   []byte

	conns  map[uint32]*Connection // first record of each connection in the chunks
	connAt map[uint32]int64
	chunks []*chunkSeen
	// chunkAt finds chunks by position, for chunk infos.
	chunkAt map[int64]*chunkSeen
	cur     *chunkSeen // the chunk whose index data records may follow
	open    bool       // an unterminated stored chunk's records follow

	indexConns []*Connection // connection records outside chunks
	indexAt    int64         // offset of the first record outside the chunk section, -1 if none
	infos      []*ChunkInfo
	infoAt     []int64
	// framingLost holds the offsets where records stopped framing.
	framingLost map[int64]bool
}

// chunkSeen is what a chunk actually holds.
type chunkSeen struct {
	pos      int64
	entries  map[uint32][]IndexEntry // per connection, in chunk order
	start    int64
	end      int64
	index    map[uint32]*IndexData // the index data records after it
	indexPos map[uint32]int64
}

func (c *checker) add(off int64, sev record.Severity, format string, args ...any) *record.Problem {
	for i, a := range args {
		// A Problem carries its offset itself and doctor names the file.
		if err, ok := a.(error); ok {
			args[i] = record.Brief(err)
		}
	}
	c.probs = append(c.probs, record.Problem{Offset: off, Severity: sev, Message: fmt.Sprintf(format, args...)})
	return &c.probs[len(c.probs)-1]
}

// walk reads every record in file order.
func (c *checker) walk() {
	r := c.r
	c.indexAt = -1
	lex := NewLexer(r.r, r.size, r.path, r.dataStart)
	for {
		rec, err := lex.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			next := c.framingProblem(lex.Pos(), err)
			if next < 0 {
				break
			}
			lex.pos = next
			continue
		}
		if rec.Op != OpIndexData {
			c.endChunk()
		}
		if (rec.Op == OpConnection && !c.open) || rec.Op == OpChunkInfo {
			if c.indexAt < 0 {
				c.indexAt = rec.Offset
			}
		} else if c.indexAt >= 0 && rec.Op != OpMessageData {
			c.add(rec.Offset, record.SeverityWarning, "%s record after the index section began at offset %d", rec.Op, c.indexAt)
		}
		header := slices.Clone(rec.Header)
		if c.raw, err = lex.ReadData(rec, c.raw); err != nil {
			c.add(rec.Offset, record.SeverityError, "%v", err)
			break
		}
		if rec.Op != OpMessageData && rec.Op != OpConnection {
			c.open = false
		}
		switch rec.Op {
		case OpChunk:
			if !c.chunk(rec, header, c.raw) {
				return
			}
		case OpIndexData:
			c.indexData(rec, header, c.raw)
		case OpConnection:
			conn, err := ParseConnection(header, c.raw)
			if err != nil {
				c.recordProblem(rec.Offset, err)
				continue
			}
			if c.open {
				c.conns[conn.Conn] = conn
				c.connAt[conn.Conn] = rec.Offset
				continue
			}
			c.indexConns = append(c.indexConns, conn)
			c.connAt[conn.Conn] = cmp.Or(c.connAt[conn.Conn], rec.Offset)
		case OpChunkInfo:
			info, err := ParseChunkInfo(header, c.raw)
			if err != nil {
				c.recordProblem(rec.Offset, err)
				continue
			}
			c.infos = append(c.infos, info)
			c.infoAt = append(c.infoAt, rec.Offset)
		case OpMessageData:
			if !c.open {
				c.add(rec.Offset, record.SeverityWarning, "message data record outside any chunk (bag 2.0 keeps messages in chunks)")
			}
		default:
			c.add(rec.Offset, record.SeverityError, "unexpected %s record", rec.Op)
		}
	}
	c.endChunk()
}

// framingProblem reports records that cannot be framed from off on. It
// returns where the walk goes on (the next chunk, or the index section), or
// -1.
func (c *checker) framingProblem(off int64, err error) int64 {
	r := c.r
	c.endChunk()
	c.framingLost[off] = true
	pos := int64(r.header.IndexPos)
	if c.indexAt < 0 && pos > off && pos < r.size || pos == 0 {
		if next := r.resync(off); next > off && (pos == 0 || next < pos) {
			c.add(off, record.SeverityError, "records cannot be framed from here up to the chunk at %d (a damaged length): %v", next, err).Repair = record.RepairReindex
			return next
		}
	}
	switch {
	case c.indexAt < 0 && pos > off && pos < r.size:
		c.add(off, record.SeverityError, "records cannot be framed from here up to the index section at %d "+
			"(damaged data, or bytes left by rosbag reindex of a cut bag, ros_comm #2282): %v", pos, err).Repair = record.RepairReindex
		return pos
	case errIsTruncation(err):
		c.add(off, record.SeverityError, "file is cut: %v", err).Repair = record.RepairReindex
	default:
		c.add(off, record.SeverityError, "%v", err)
	}
	return -1
}

// recordProblem reports a record that is framed but does not parse.
func (c *checker) recordProblem(off int64, err error) {
	c.add(off, record.SeverityError, "%v", record.WithFile(err, c.r.path, off, ""))
}

// chunk checks one chunk record and the records inside it. It returns
// false when the rest of the file cannot be framed as records.
func (c *checker) chunk(rec *Record, header, data []byte) bool {
	h, err := ParseChunkHeader(header)
	if err != nil {
		c.recordProblem(rec.Offset, err)
		return true
	}
	if rec.DataLen == 0 && h.Size == 0 {
		c.add(rec.Offset, record.SeverityError, "unterminated %s chunk: the recording stopped while writing it", h.Compression).Repair = record.RepairReindex
		c.open = h.Compression == CompressionNone || h.Compression == ""
		return c.open
	}
	seen := &chunkSeen{pos: rec.Offset, entries: map[uint32][]IndexEntry{}, index: map[uint32]*IndexData{}, indexPos: map[uint32]int64{}}
	c.chunks = append(c.chunks, seen)
	c.chunkAt[rec.Offset] = seen
	c.cur = seen
	if (h.Compression == CompressionNone || h.Compression == "") && uint32(len(data)) != h.Size {
		c.add(rec.Offset, record.SeverityWarning, "uncompressed chunk holds %d bytes, its size field says %d", len(data), h.Size)
	}
	out, err := c.dec.decompress(c.out, h.Compression, data, h.Size)
	if h.Compression != CompressionNone && h.Compression != "" && out != nil {
		c.out = out
	}
	if err != nil {
		c.add(rec.Offset, record.SeverityError, "chunk does not decompress: %v", record.WithFile(err, c.r.path, rec.DataOffset, ""))
		return true
	}
	stored := int64(-1)
	if h.Compression == CompressionNone || h.Compression == "" {
		stored = rec.DataOffset
	}
	first := true
	for p := 0; p < len(out); {
		ih, idata, next, err := splitRecord(out, p)
		if err != nil {
			c.add(rec.Offset, record.SeverityError, "chunk content: %v", chunkError(err, c.r.path, rec.Offset, stored))
			return true
		}
		if err := c.chunkRecord(seen, ih, idata, p, &first); err != nil {
			c.add(rec.Offset, record.SeverityError, "chunk content: %v", chunkError(rebase(err, int64(p)), c.r.path, rec.Offset, stored))
		}
		p = next
	}
	return true
}

func (c *checker) chunkRecord(seen *chunkSeen, header, data []byte, p int, first *bool) error {
	op, err := RecordOp(header)
	if err != nil {
		return err
	}
	switch op {
	case OpConnection:
		conn, err := ParseConnection(header, data)
		if err != nil {
			return err
		}
		if old, ok := c.conns[conn.Conn]; ok {
			if !slices.Equal(old.Fields, conn.Fields) || old.Topic != conn.Topic {
				c.add(seen.pos, record.SeverityError, "connection %d is defined twice with different headers (first at %d)", conn.Conn, c.connAt[conn.Conn])
			}
			return nil
		}
		c.conns[conn.Conn] = conn
		c.connAt[conn.Conn] = seen.pos
	case OpMessageData:
		conn, t, err := parseMessageHeader(header)
		if err != nil {
			return err
		}
		if c.conns[conn] == nil {
			return errUnknownConn(conn)
		}
		seen.entries[conn] = append(seen.entries[conn], IndexEntry{Time: t, Offset: uint32(p)})
		if *first || t < seen.start {
			seen.start = t
		}
		if *first || t > seen.end {
			seen.end = t
		}
		*first = false
	default:
		return &record.Error{Offset: 0, Field: "op", Err: record.ErrFormat, Detail: op.String() + " record inside a chunk"}
	}
	return nil
}

func (c *checker) indexData(rec *Record, header, data []byte) {
	x, err := ParseIndexData(header, data)
	if err != nil {
		c.recordProblem(rec.Offset, err)
		return
	}
	if uint64(len(data)) != 12*uint64(x.Count) {
		c.add(rec.Offset, record.SeverityWarning, "index data for connection %d has %d bytes, %d entries need %d", x.Conn, len(data), x.Count, 12*x.Count)
	}
	if c.cur == nil {
		c.add(rec.Offset, record.SeverityWarning, "index data record that follows no chunk")
		return
	}
	if _, dup := c.cur.index[x.Conn]; dup {
		c.add(rec.Offset, record.SeverityWarning, "second index data record for connection %d after chunk %d", x.Conn, c.cur.pos)
	}
	c.cur.index[x.Conn] = x
	c.cur.indexPos[x.Conn] = rec.Offset
}

// endChunk compares the index data records after a chunk with it.
func (c *checker) endChunk() {
	s := c.cur
	if s == nil {
		return
	}
	c.cur = nil
	for _, conn := range slices.Sorted(maps.Keys(s.entries)) {
		got := s.entries[conn]
		x := s.index[conn]
		if x == nil {
			c.add(s.pos, record.SeverityWarning, "chunk has %d messages of connection %d but no index data record for them", len(got), conn)
			continue
		}
		want := slices.Clone(x.Entries)
		sortEntries := func(e []IndexEntry) {
			slices.SortFunc(e, func(a, b IndexEntry) int { return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.Time, b.Time)) })
		}
		sortEntries(want)
		sortEntries(got)
		if !slices.Equal(want, got) {
			c.add(s.indexPos[conn], record.SeverityWarning, "index data for connection %d lists %d messages that do not match the chunk's %d", conn, len(want), len(got))
		}
	}
	for _, conn := range slices.Sorted(maps.Keys(s.index)) {
		if _, ok := s.entries[conn]; !ok {
			c.add(s.indexPos[conn], record.SeverityWarning, "index data for connection %d, which has no messages in the chunk", conn)
		}
	}
}

// checkIndex compares the index section with the chunks.
func (c *checker) checkIndex() {
	h := c.r.header
	if h.IndexPos == 0 {
		c.add(int64(len(Magic)), record.SeverityWarning, "bag is not indexed (index_pos is 0, as rosbag leaves a recording it could not close)").Repair = record.RepairReindex
		return
	}
	if c.r.cut != nil {
		c.add(c.r.size, record.SeverityError, "file is cut: %s", c.r.cut.Detail).Repair = record.RepairReindex
		return
	}
	if c.indexAt < 0 && int64(h.IndexPos) == c.r.size {
		c.indexAt = c.r.size // an empty index section at the end of the file
	}
	if int64(h.IndexPos) != c.indexAt {
		if c.indexAt < 0 {
			c.add(int64(len(Magic)), record.SeverityWarning, "bag header gives index_pos %d but no index section was found", h.IndexPos)
			return
		}
		c.add(int64(len(Magic)), record.SeverityWarning, "bag header gives index_pos %d, the index section starts at %d", h.IndexPos, c.indexAt)
	}
	if int(h.ConnCount) != len(c.indexConns) {
		c.add(int64(len(Magic)), record.SeverityWarning, "bag header counts %d connections, the index section has %d", h.ConnCount, len(c.indexConns))
	}
	if int(h.ChunkCount) != len(c.infos) {
		c.add(int64(len(Magic)), record.SeverityWarning, "bag header counts %d chunks, the index section has %d chunk infos", h.ChunkCount, len(c.infos))
	}
	described := map[int64]bool{}
	for i, info := range c.infos {
		at := c.infoAt[i]
		s := c.chunkAt[int64(info.ChunkPos)]
		if s == nil && c.framingLost[int64(info.ChunkPos)] {
			continue // its chunk is reported damaged
		}
		if s == nil {
			c.add(at, record.SeverityWarning, "chunk info points at offset %d, where no chunk starts", info.ChunkPos)
			continue
		}
		described[s.pos] = true
		counts := map[uint32]uint32{}
		for _, cc := range info.Counts {
			counts[cc.Conn] += cc.Count
		}
		for conn, e := range s.entries {
			if counts[conn] != uint32(len(e)) {
				c.add(at, record.SeverityWarning, "chunk info of chunk %d counts %d messages of connection %d, the chunk has %d", s.pos, counts[conn], conn, len(e))
			}
			delete(counts, conn)
		}
		for _, conn := range slices.Sorted(maps.Keys(counts)) {
			if counts[conn] != 0 {
				c.add(at, record.SeverityWarning, "chunk info of chunk %d counts %d messages of connection %d, the chunk has none", s.pos, counts[conn], conn)
			}
		}
		if len(s.entries) > 0 && (info.StartTime != s.start || info.EndTime != s.end) {
			c.add(at, record.SeverityWarning, "chunk info of chunk %d gives times %d..%d ns, its messages span %d..%d", s.pos, info.StartTime, info.EndTime, s.start, s.end)
		}
	}
	for _, s := range c.chunks {
		if !described[s.pos] {
			c.add(s.pos, record.SeverityWarning, "chunk has no chunk info in the index section")
		}
	}
	index := map[uint32]*Connection{}
	for _, ic := range c.indexConns {
		index[ic.Conn] = ic
		if cc := c.conns[ic.Conn]; cc != nil && (cc.Topic != ic.Topic || !slices.Equal(cc.Fields, ic.Fields)) {
			c.add(c.connAt[ic.Conn], record.SeverityWarning, "connection %d differs between its chunk record and the index section", ic.Conn)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.conns)) {
		if index[id] == nil {
			c.add(c.connAt[id], record.SeverityWarning, "connection %d (%s) is missing from the index section", id, c.conns[id].Topic)
		}
	}
}
