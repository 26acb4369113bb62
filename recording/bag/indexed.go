package bag

import (
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"runtime/debug"
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/chunked"
	"github.com/baglab/baglab/recording/internal/fileio"
)

// indexedIter reads the selected chunks through the shared ordered merge
// (decode/internal/chunked): equal times come out in file order. Workers
// read, decompress and index each chunk, from the index data records that
// follow it, or by scanning the chunk when those are missing or disagree
// with it.
type indexedIter struct {
	r     *Reader
	f     record.Filter
	want  map[uint32]bool   // selected connections
	rank  map[uint32]uint32 // connection id -> position in the index section
	chans []*record.Channel // by rank
	refs  []*chunkRef       // the selected chunks, as given to the merge
	lazy  bool              // workers read the chunk headers (a remote bag)
	merge *chunked.Merge
	seq   uint64
	msg   record.Message // what Next returns
}

// worker is the reusable state of one worker goroutine.
type worker struct {
	it      *indexedIter
	dec     decompressor
	index   []byte          // index data records after a chunk
	runs    []int           // where each index data record's entries start
	scratch []chunked.Entry // for merging runs
}

func (r *Reader) indexedMessages(f record.Filter) (*indexedIter, error) {
	it := &indexedIter{r: r, f: f, want: map[uint32]bool{}, rank: map[uint32]uint32{}}
	for i, id := range r.connOrder {
		ch := r.conns[id]
		it.rank[id] = uint32(i)
		it.chans = append(it.chans, ch)
		if f.Topic == nil || f.Topic(ch.Topic) {
			it.want[id] = true
		}
	}
	for _, c := range r.chunks {
		if f.End != 0 && c.info.StartTime >= f.End || f.Start != 0 && c.info.EndTime < f.Start {
			continue
		}
		if slices.ContainsFunc(c.info.Counts, func(cc ConnCount) bool { return cc.Count > 0 && it.want[cc.Conn] }) {
			it.refs = append(it.refs, c)
		}
	}
	// Of a remote bag, each worker reads the header of its chunk as it
	// loads it, from the requests the plan below makes: read here, each
	// header would be a request of its own. The chunk's length is then
	// up to the next chunk, its index data records included.
	_, it.lazy = r.r.(prefetcher) // remote, as readIndex tells
	if !it.lazy {
		if err := r.loadChunkHeaders(it.refs); err != nil {
			return nil, err
		}
	}
	chunks := make([]chunked.Chunk, len(it.refs))
	for i, c := range it.refs {
		end := c.indexEnd
		if !it.lazy {
			end = c.end()
		}
		var n uint64
		for _, cc := range c.info.Counts {
			if it.want[cc.Conn] {
				n += uint64(cc.Count)
			}
		}
		chunks[i] = chunked.Chunk{Pos: c.pos, Len: end - c.pos, Count: n, Start: c.info.StartTime, End: c.info.EndTime}
	}
	it.merge = chunked.New(chunks, func() chunked.Worker { return &worker{it: it} },
		chunked.Options{Workers: r.opts.Workers, SkipBad: r.opts.SkipBad, OnSkip: r.opts.OnSkip})
	it.merge.PlanReads(r.r)
	return it, nil
}

// Close releases the worker's state.
func (w *worker) Close() {}

// Load reads, decompresses and indexes chunk i.
func (w *worker) Load(i int, b *chunked.Buffers) (l *chunked.Loaded) {
	it := w.it
	ref, r := it.refs[i], it.r
	l = &chunked.Loaded{Base: -1}
	if it.lazy {
		if err := r.loadChunkHeaders([]*chunkRef{ref}); err != nil {
			l.Err = err
			return l
		}
	}
	raw, mapped := w.inPlace(ref)
	if mapped {
		l.Release = func() { r.r.(*fileio.Mapped).Release(ref.dataOffset, int64(ref.dataLen)) }
		// A fault reading the mapping (the file cut short meanwhile)
		// fails the chunk.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if err := fileio.Fault(recover()); err != nil {
				l = &chunked.Loaded{Base: -1, Release: l.Release, Err: &record.Error{File: r.path, Offset: ref.pos, Field: "chunk", Err: record.ErrTruncated, Detail: err.Error()}}
			}
		}()
	} else {
		raw = grow(b.Get(), int(ref.dataLen))
		if n, err := r.r.ReadAt(raw, ref.dataOffset); n < len(raw) {
			b.Put(raw)
			if err == nil || err == io.EOF {
				err = &record.Error{File: r.path, Offset: ref.dataOffset + int64(n), Field: "chunk.data", Err: record.ErrTruncated, Detail: "short read"}
			}
			l.Err = err
			return l
		}
	}
	salvage := r.opts.SkipBad
	var cut error // the chunk did not decompress whole
	if ref.stored() {
		l.Data, l.Base, l.Pinned = raw, ref.dataOffset, mapped
	} else {
		data, err := w.dec.decompress(b.Get(), ref.compression, raw, ref.size)
		if !mapped {
			b.Put(raw)
		}
		l.Data = data
		if err != nil {
			err = record.WithFile(err, r.path, ref.dataOffset, "")
			if !salvage || len(data) == 0 {
				b.Put(data)
				l.Err = err
				return l
			}
			// Read the complete records of what decompressed.
			cut = err
		}
	}
	if !l.Pinned {
		l.Owned = [][]byte{l.Data}
	}
	entries := b.Entries()
	w.runs = w.runs[:0]
	var dmg chunkDamage
	err := errIndexMismatch
	if cut == nil {
		entries, err = w.fromIndex(ref, l.Data, entries)
	}
	if err != nil {
		// The index data is missing or disagrees with the chunk: the chunk
		// itself is the authority.
		w.runs = w.runs[:0]
		if entries, dmg, err = it.fromScan(ref, l.Data, entries[:0], salvage); err != nil {
			l.Err = err
			return l
		}
	}
	if cut != nil || dmg.err != nil {
		l.Skipped = &record.Skipped{Offset: ref.pos, Length: ref.end() - ref.pos, Kept: dmg.kept, Err: cmp.Or(cut, dmg.err)}
	}
	l.Entries, w.scratch = chunked.Sort(entries, w.runs, w.scratch)
	return l
}

// inPlace returns the chunk's data in place when the bag is read in place
// (record.WithInPlace) from a file mapped into memory.
func (w *worker) inPlace(ref *chunkRef) ([]byte, bool) {
	m, ok := w.it.r.r.(*fileio.Mapped)
	if !ok {
		return nil, false
	}
	return m.Bytes(ref.dataOffset, int64(ref.dataLen))
}

// stored reports whether the chunk's data is stored uncompressed, so that
// offsets in it are file offsets too.
func (c *chunkRef) stored() bool { return c.compression == CompressionNone || c.compression == "" }

func (c *chunkRef) placeErr(err error, path string) error {
	data := int64(-1)
	if c.stored() {
		data = c.dataOffset
	}
	return chunkError(err, path, c.pos, data)
}

// fromIndex appends the selected messages of a chunk to entries from the
// index data records after it, checking each against the chunk.
func (w *worker) fromIndex(ref *chunkRef, chunk []byte, entries []chunked.Entry) ([]chunked.Entry, error) {
	it, r := w.it, w.it.r
	n := ref.indexEnd - ref.end()
	if n > maxIndexRegion {
		return entries, errIndexMismatch
	}
	w.index = grow(w.index, int(n))
	if m, _ := r.r.ReadAt(w.index, ref.end()); int64(m) < n {
		return entries, errIndexMismatch
	}
	var found []ConnCount
	for p := 0; p < len(w.index); {
		header, data, next, err := splitRecord(w.index, p)
		if err != nil {
			return entries, err
		}
		p = next
		conn, count, err := parseIndexHeader(header, data)
		if err != nil {
			return entries, err
		}
		found = append(found, ConnCount{Conn: conn, Count: count})
		if !it.want[conn] {
			continue
		}
		rank := it.rank[conn]
		w.runs = append(w.runs, len(entries))
		for e := range count {
			b := data[12*e:]
			t, off := timeNs(b), binary.LittleEndian.Uint32(b[8:])
			if !inRange(it.f, t) {
				continue
			}
			header, msg, next, err := splitRecord(chunk, int(off))
			if err != nil {
				return entries, errIndexMismatch
			}
			mconn, mt, err := parseMessageHeader(header)
			if err != nil || mconn != conn || mt != t {
				return entries, errIndexMismatch
			}
			entries = append(entries, chunked.Entry{Time: t, Conn: rank, At: off, Start: uint32(next - len(msg)), End: uint32(next)})
		}
	}
	for _, cc := range ref.info.Counts {
		i := slices.IndexFunc(found, func(f ConnCount) bool { return f.Conn == cc.Conn })
		if i < 0 || found[i].Count != cc.Count {
			return entries, errIndexMismatch
		}
	}
	return entries, nil
}

// maxIndexRegion bounds the bytes read as a chunk's index data records;
// they take 12 bytes per message, so rosbag's chunks need far less.
const maxIndexRegion = 64 << 20

// errIndexMismatch makes the iterator read a chunk's messages from the chunk
// itself.
var errIndexMismatch = errors.New("index data does not match the chunk")

// parseIndexHeader checks an index data record and returns its connection
// and entry count, without allocating.
func parseIndexHeader(header, data []byte) (conn, count uint32, err error) {
	var ver uint32
	var hasVer, hasConn, hasCount, isIndex bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return 0, 0, err
		}
		switch string(name) {
		case "op":
			isIndex = len(value) == 1 && Op(value[0]) == OpIndexData
		case "ver":
			ver, err = u32Field(value, off, "index_data.ver")
			hasVer = true
		case "conn":
			conn, err = u32Field(value, off, "index_data.conn")
			hasConn = true
		case "count":
			count, err = u32Field(value, off, "index_data.count")
			hasCount = true
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if !isIndex || !hasVer || !hasConn || !hasCount || ver != 1 || uint64(count)*12 > uint64(len(data)) {
		return 0, 0, errIndexMismatch
	}
	return conn, count, nil
}

// fromScan appends the selected messages of a chunk to entries by reading
// its records.
func (it *indexedIter) fromScan(ref *chunkRef, chunk []byte, entries []chunked.Entry, salvage bool) ([]chunked.Entry, chunkDamage, error) {
	var dmg chunkDamage
	for p := 0; p < len(chunk); {
		header, data, next, err := splitRecord(chunk, p)
		if err == nil {
			var op Op
			if op, err = RecordOp(header); err == nil && op == OpMessageData {
				var conn uint32
				var t int64
				if conn, t, err = parseMessageHeader(header); err == nil {
					dmg.kept++
					if it.want[conn] && inRange(it.f, t) {
						start := uint32(next - len(data))
						entries = append(entries, chunked.Entry{Time: t, Conn: it.rank[conn], At: uint32(p), Start: start, End: uint32(next)})
					}
				}
			}
			err = rebase(err, int64(p))
		}
		if err != nil {
			err = ref.placeErr(err, it.r.path)
			if !salvage {
				return nil, dmg, err
			}
			if dmg.err == nil {
				dmg.err = err
			}
			if next <= p {
				// The framing is lost: go on at the next plausible record.
				if next = nextRecord(chunk, p+1); next < 0 {
					break
				}
			}
		}
		p = next
	}
	return entries, dmg, nil
}

// chunkDamage is what a salvaging read of a chunk went past: the first
// problem, and the messages it still read.
type chunkDamage struct {
	err  error
	kept uint64
}

// nextRecord returns the offset of the first record after from in chunk
// that frames and parses as a message or connection record, or -1: where a
// read whose framing is lost inside a chunk picks up again.
func nextRecord(chunk []byte, from int) int {
	for q := from; q+8 <= len(chunk); q++ {
		header, data, _, err := splitRecord(chunk, q)
		if err != nil {
			continue
		}
		switch op, err := RecordOp(header); {
		case err != nil:
		case op == OpMessageData:
			if _, _, err := parseMessageHeader(header); err == nil {
				return q
			}
		case op == OpConnection:
			if _, err := ParseConnection(header, data); err == nil {
				return q
			}
		}
	}
	return -1
}

// Next returns the next message; see record.Iterator. The message and its
// Data are valid until the next call.
func (it *indexedIter) Next() (*record.Message, error) {
	if err := it.NextInto(&it.msg); err != nil {
		return nil, err
	}
	return &it.msg, nil
}

// NextInto fills m with the next message, reusing m; m.Data is valid until
// the next call.
func (it *indexedIter) NextInto(m *record.Message) error {
	l, e, err := it.merge.Next()
	if err != nil {
		return err
	}
	*m = record.Message{Channel: it.chans[e.Conn], LogTime: e.Time, PublishTime: e.Time, Sequence: it.seq,
		Source: it.r.path, Offset: l.Offset(e), Pinned: l.Pinned, Data: l.Data[e.Start:e.End:e.End]}
	it.seq++
	return nil
}

// Close stops the iteration and releases its buffers; idempotent.
func (it *indexedIter) Close() error {
	it.merge.Close()
	return nil
}
