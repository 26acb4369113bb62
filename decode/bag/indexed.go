package bag

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/baglab/baglab/decode/record"
)

// indexedIter merges the messages of the selected chunks in log time order.
//
// Chunks are taken in order of their start time. A dispatcher hands them to
// a pool of workers, which read, decompress and index them (from the index
// data records that follow each chunk, or by scanning the chunk when those
// are missing or disagree with it); the iterator receives them in dispatch
// order through a channel of bounded capacity. A chunk is merged in as soon
// as its start time is not after the earliest pending message, so chunks
// that overlap in time, or are stored out of order, still give a single time
// ordered stream. Ties are broken by chunk position, then by position in the
// chunk: equal times come out in file order.
type indexedIter struct {
	r     *Reader
	f     record.Filter
	want  map[uint32]bool   // selected connections
	rank  map[uint32]uint32 // connection id -> position in the index section
	chans []*record.Channel // by rank

	order   []*chunkRef // selected chunks by (start time, position)
	next    int         // next chunk of order to merge
	results chan *chunkJob
	stop    chan struct{}
	wg      sync.WaitGroup

	heap    jobHeap
	release *chunkJob // exhausted chunk, released on the next call
	seq     uint64
	err     error
}

// chunkJob is one chunk being or having been loaded.
type chunkJob struct {
	ref     *chunkRef
	done    chan struct{}
	buf     *[]byte // pooled buffer that data lives in
	data    []byte  // uncompressed chunk data
	entries []entry // selected messages in (time, offset) order
	pos     int     // next entry to yield
	err     error
}

// entry is one message in a chunk. It holds no pointers, so that sorting
// entries needs no write barriers.
type entry struct {
	time       int64
	rank       uint32 // the connection's position in the index section, see indexedIter.chans
	rec        uint32 // offset of the message data record
	start, end uint32 // its data
}

var (
	bufPool   = sync.Pool{New: func() any { return new([]byte) }}
	entryPool = sync.Pool{New: func() any { return new([]entry) }}
)

// worker is the reusable state of one worker goroutine.
type worker struct {
	dec     decompressor
	index   []byte  // index data records after a chunk
	runs    []int   // where each index data record's entries start
	scratch []entry // for merging runs
}

func (r *Reader) indexedMessages(f record.Filter) *indexedIter {
	it := &indexedIter{r: r, f: f, want: map[uint32]bool{}, rank: map[uint32]uint32{}, stop: make(chan struct{})}
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
			it.order = append(it.order, c)
		}
	}
	slices.SortStableFunc(it.order, func(a, b *chunkRef) int {
		return cmp.Or(cmp.Compare(a.info.StartTime, b.info.StartTime), cmp.Compare(a.pos, b.pos))
	})
	workers := r.opts.workers
	it.results = make(chan *chunkJob, workers)
	jobs := make(chan *chunkJob)
	it.wg.Add(1 + workers)
	go it.dispatch(jobs)
	for range workers {
		go it.work(jobs)
	}
	return it
}

func (it *indexedIter) dispatch(jobs chan<- *chunkJob) {
	defer it.wg.Done()
	defer close(it.results)
	defer close(jobs)
	for _, ref := range it.order {
		j := &chunkJob{ref: ref, done: make(chan struct{})}
		select {
		case jobs <- j:
		case <-it.stop:
			return
		}
		select {
		case it.results <- j:
		case <-it.stop:
			return
		}
	}
}

func (it *indexedIter) work(jobs <-chan *chunkJob) {
	defer it.wg.Done()
	var w worker
	for j := range jobs {
		j.err = it.load(j, &w)
		close(j.done)
	}
}

// load reads, decompresses and indexes one chunk.
func (it *indexedIter) load(j *chunkJob, w *worker) error {
	ref, r := j.ref, it.r
	raw := bufPool.Get().(*[]byte)
	*raw = grow(*raw, int(ref.dataLen))
	if n, err := r.r.ReadAt(*raw, ref.dataOffset); n < len(*raw) {
		bufPool.Put(raw)
		if err == nil || err == io.EOF {
			err = &record.Error{File: r.path, Offset: ref.dataOffset + int64(n), Field: "chunk.data", Err: record.ErrTruncated, Detail: "short read"}
		}
		return err
	}
	if ref.compression == CompressionNone || ref.compression == "" {
		j.buf, j.data = raw, *raw
	} else {
		out := bufPool.Get().(*[]byte)
		data, err := w.dec.decompress(*out, ref.compression, *raw, ref.size)
		bufPool.Put(raw)
		*out = data[:cap(data)]
		j.buf, j.data = out, data
		if err != nil {
			return record.WithFile(err, r.path, ref.dataOffset, "")
		}
	}
	entries := (*entryPool.Get().(*[]entry))[:0]
	w.runs = w.runs[:0]
	entries, err := it.fromIndex(j, w, entries)
	if err != nil {
		// The index data is missing or disagrees with the chunk: the chunk
		// itself is the authority.
		w.runs = w.runs[:0]
		entries, err = it.fromScan(j, entries[:0])
		if err != nil {
			entryPool.Put(&entries)
			return err
		}
	}
	j.entries = w.order(entries)
	return nil
}

func entryOrder(a, b entry) int {
	return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.rank, b.rank), cmp.Compare(a.rec, b.rec))
}

// order sorts entries by (time, rank, offset). When they come from index
// data records (w.runs set), each record's entries are already sorted
// (rosbag keeps them so) and merging the runs pairwise takes linear time per
// pass; otherwise, or when a run is not sorted, they are sorted.
func (w *worker) order(entries []entry) []entry {
	runs := append(w.runs, len(entries))
	sorted := true
	for i := 0; i+1 < len(runs) && sorted; i++ {
		sorted = slices.IsSortedFunc(entries[runs[i]:runs[i+1]], entryOrder)
	}
	if len(w.runs) == 0 || !sorted {
		if !slices.IsSortedFunc(entries, entryOrder) {
			slices.SortFunc(entries, entryOrder)
		}
		return entries
	}
	for len(runs) > 2 {
		out := w.scratch[:0]
		next := runs[:1]
		for i := 0; i+1 < len(runs); i += 2 {
			if i+2 < len(runs) {
				out = mergeEntries(out, entries[runs[i]:runs[i+1]], entries[runs[i+1]:runs[i+2]])
			} else {
				out = append(out, entries[runs[i]:runs[i+1]]...)
			}
			next = append(next, len(out))
		}
		w.scratch, entries, runs = entries[:0], out, next
	}
	return entries
}

// mergeEntries appends the merge of two sorted runs to out.
func mergeEntries(out, a, b []entry) []entry {
	for len(a) > 0 && len(b) > 0 {
		if entryOrder(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
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
func (it *indexedIter) fromIndex(j *chunkJob, w *worker, entries []entry) ([]entry, error) {
	ref, r := j.ref, it.r
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
			header, msg, next, err := splitRecord(j.data, int(off))
			if err != nil {
				return entries, errIndexMismatch
			}
			mconn, mt, err := parseMessageHeader(header)
			if err != nil || mconn != conn || mt != t {
				return entries, errIndexMismatch
			}
			entries = append(entries, entry{time: t, rank: rank, rec: off, start: uint32(next - len(msg)), end: uint32(next)})
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
func (it *indexedIter) fromScan(j *chunkJob, entries []entry) ([]entry, error) {
	for p := 0; p < len(j.data); {
		header, data, next, err := splitRecord(j.data, p)
		if err != nil {
			return nil, j.ref.placeErr(err, it.r.path)
		}
		op, err := RecordOp(header)
		if err != nil {
			return nil, j.ref.placeErr(rebase(err, int64(p)), it.r.path)
		}
		if op == OpMessageData {
			conn, t, err := parseMessageHeader(header)
			if err != nil {
				return nil, j.ref.placeErr(rebase(err, int64(p)), it.r.path)
			}
			if it.want[conn] && inRange(it.f, t) {
				start := uint32(next - len(data))
				entries = append(entries, entry{time: t, rank: it.rank[conn], rec: uint32(p), start: start, end: uint32(next)})
			}
		}
		p = next
	}
	return entries, nil
}

// Next returns the next message; see record.Iterator.
func (it *indexedIter) Next() (*record.Message, error) {
	m := new(record.Message)
	if err := it.NextInto(m); err != nil {
		return nil, err
	}
	return m, nil
}

// NextInto fills m with the next message, reusing m; m.Data is valid until
// the next call.
func (it *indexedIter) NextInto(m *record.Message) error {
	if it.err != nil {
		return it.err
	}
	if it.release != nil {
		it.put(it.release)
		it.release = nil
	}
	for it.next < len(it.order) && (len(it.heap) == 0 || it.order[it.next].info.StartTime <= it.heap[0].entries[it.heap[0].pos].time) {
		j, ok := <-it.results
		if !ok {
			return it.fail(io.EOF) // stopped
		}
		<-j.done
		it.next++
		if j.err != nil {
			it.put(j)
			if !it.r.opts.skipBad {
				return it.fail(j.err)
			}
			it.r.skip(Skipped{Offset: j.ref.pos, Length: j.ref.end() - j.ref.pos, Err: j.err})
			continue
		}
		if len(j.entries) == 0 {
			it.put(j)
			continue
		}
		heap.Push(&it.heap, j)
	}
	if len(it.heap) == 0 {
		return it.fail(io.EOF)
	}
	j := it.heap[0]
	e := j.entries[j.pos]
	j.pos++
	if j.pos == len(j.entries) {
		heap.Pop(&it.heap)
		it.release = j
	} else {
		heap.Fix(&it.heap, 0)
	}
	off := j.ref.pos
	if j.ref.stored() {
		off = j.ref.dataOffset + int64(e.rec)
	}
	*m = record.Message{Channel: it.chans[e.rank], LogTime: e.time, PublishTime: e.time, Sequence: it.seq,
		Source: it.r.path, Offset: off, Data: j.data[e.start:e.end:e.end]}
	it.seq++
	return nil
}

// put returns a job's buffers to their pools.
func (it *indexedIter) put(j *chunkJob) {
	if j.buf != nil {
		bufPool.Put(j.buf)
		j.buf, j.data = nil, nil
	}
	if e := j.entries; e != nil {
		entryPool.Put(&e)
		j.entries = nil
	}
}

func (it *indexedIter) fail(err error) error {
	it.err = err
	if err == io.EOF {
		it.shutdown()
	}
	return err
}

// shutdown stops the dispatcher and workers and waits for them.
func (it *indexedIter) shutdown() {
	select {
	case <-it.stop:
		return
	default:
	}
	close(it.stop)
	for j := range it.results {
		<-j.done
		it.put(j)
	}
	it.wg.Wait()
	for _, j := range it.heap {
		it.put(j)
	}
	it.heap = nil
	if it.release != nil {
		it.put(it.release)
		it.release = nil
	}
}

// Close stops the iteration and releases its buffers; idempotent.
func (it *indexedIter) Close() error {
	if it.err == nil {
		it.err = io.EOF
	}
	it.shutdown()
	return nil
}

// jobHeap orders loaded chunks by their next entry: time, connection rank,
// then chunk position.
type jobHeap []*chunkJob

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(a, b int) bool {
	x, y := h[a].entries[h[a].pos], h[b].entries[h[b].pos]
	if x.time != y.time {
		return x.time < y.time
	}
	if x.rank != y.rank {
		return x.rank < y.rank
	}
	return h[a].ref.pos < h[b].ref.pos
}
func (h jobHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *jobHeap) Push(x any)   { *h = append(*h, x.(*chunkJob)) }
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}
