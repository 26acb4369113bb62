package mcapfile

import (
	"container/heap"
	"encoding/binary"
	"io"
	"sort"
	"sync"

	"github.com/baglab/baglab/decode/record"
	"github.com/foxglove/mcap/go/mcap"
)

// entry locates one selected message in a decompressed chunk.
type entry struct {
	logTime uint64
	at      int // offset of the record in the chunk's records
}

// loadedChunk is a decompressed chunk with its selected messages sorted by
// log time (file order within equal times).
type loadedChunk struct {
	fileOffset int64  // chunk record offset (tie-breaker: file order)
	records    []byte // uncompressed records
	owned      []byte // the buffer records lives in, returned to the pool
	plain      int64  // file offset of records[0] when uncompressed, else -1
	entries    []entry
	pos        int
	err        error
	skipped    *Skipped // the chunk's damage, with WithSkipBad
}

// chunkHeap orders loaded chunks by their next message.
type chunkHeap []*loadedChunk

func (h chunkHeap) Len() int { return len(h) }
func (h chunkHeap) Less(i, j int) bool {
	a, b := h[i].entries[h[i].pos].logTime, h[j].entries[h[j].pos].logTime
	if a != b {
		return a < b
	}
	return h[i].fileOffset < h[j].fileOffset
}
func (h chunkHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *chunkHeap) Push(x any)   { *h = append(*h, x.(*loadedChunk)) }
func (h *chunkHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type chunkJob struct {
	ci  *mcap.ChunkIndex
	out chan *loadedChunk
}

// indexedIter merges the selected chunks' messages in log time order. A
// feeder hands the chunks, in the order they are needed, to a pool of
// workers that read, decompress and index them; futures keep the order.
type indexedIter struct {
	r      *Reader
	f      record.Filter
	chunks []*mcap.ChunkIndex
	want   map[uint16]bool
	chans  map[uint16]*record.Channel

	started bool
	stopped bool
	futures chan chan *loadedChunk
	done    chan struct{}
	wg      sync.WaitGroup
	free    chan []byte

	next    int // index in chunks of the next chunk to take
	heap    chunkHeap
	release *loadedChunk
	msg     record.Message
	err     error
}

func newIndexedIter(r *Reader, f record.Filter) *indexedIter {
	it := &indexedIter{r: r, f: f, want: map[uint16]bool{}, chans: map[uint16]*record.Channel{}}
	for _, id := range r.ix.channelIDs {
		c := r.ix.channels[id]
		it.chans[id] = r.channel(c, r.ix.schemas[c.SchemaID])
		it.want[id] = f.Topic == nil || f.Topic(c.Topic)
	}
	for _, ci := range r.ix.chunks {
		if f.Start != 0 && int64(ci.MessageEndTime) < f.Start || f.End != 0 && int64(ci.MessageStartTime) >= f.End {
			continue
		}
		if len(ci.MessageIndexOffsets) > 0 {
			any := false
			for id := range ci.MessageIndexOffsets {
				any = any || it.want[id]
			}
			if !any {
				continue
			}
		}
		it.chunks = append(it.chunks, ci)
	}
	sort.SliceStable(it.chunks, func(i, j int) bool {
		a, b := it.chunks[i], it.chunks[j]
		if a.MessageStartTime != b.MessageStartTime {
			return a.MessageStartTime < b.MessageStartTime
		}
		return a.ChunkStartOffset < b.ChunkStartOffset
	})
	return it
}

// start launches the feeder and the workers.
func (it *indexedIter) start() {
	it.started = true
	workers := it.r.opts.workers
	it.futures = make(chan chan *loadedChunk, workers)
	it.done = make(chan struct{})
	done := it.done
	it.free = make(chan []byte, 2*workers+2)
	jobs := make(chan chunkJob)
	it.wg.Add(1 + workers)
	go func() {
		defer it.wg.Done()
		defer close(jobs)
		for _, ci := range it.chunks {
			out := make(chan *loadedChunk, 1)
			select {
			case it.futures <- out:
			case <-done:
				return
			}
			select {
			case jobs <- chunkJob{ci: ci, out: out}:
			case <-done:
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer it.wg.Done()
			var dec decoders
			defer dec.close()
			var raw []byte // this worker's read buffer
			for {
				select {
				case job, ok := <-jobs:
					if !ok {
						return
					}
					job.out <- it.load(&dec, &raw, job.ci)
				case <-done:
					return
				}
			}
		}()
	}
}

func (it *indexedIter) getBuf() []byte {
	select {
	case b := <-it.free:
		return b
	default:
		return nil
	}
}

func (it *indexedIter) putBuf(b []byte) {
	if b == nil {
		return
	}
	select {
	case it.free <- b[:0]:
	default:
	}
}

// load reads, decompresses and indexes one chunk (on a worker). raw is the
// worker's read buffer; an uncompressed chunk keeps it, and the worker takes
// a new one next time. With WithSkipBad a damaged chunk gives the messages
// that can still be read, and its damage in lc.skipped.
func (it *indexedIter) load(dec *decoders, raw *[]byte, ci *mcap.ChunkIndex) *loadedChunk {
	file := it.r.file
	skipBad := it.r.opts.skipBad
	off := int64(ci.ChunkStartOffset)
	end := off + int64(ci.ChunkLength)
	lc := &loadedChunk{fileOffset: off, plain: -1}
	fr, body, ck, err := it.readChunk(raw, off, end)
	var cut error // why the chunk record's framing is lost
	if err != nil {
		if !skipBad {
			lc.err = err
			return lc
		}
		// Take the bytes the chunk index gives the chunk.
		cfr, cbody, ok := cutChunk(it.r.ra, off, end)
		if ok {
			var perr error
			ck, perr = parseChunk(file, cfr.bodyOffset(), cbody)
			ok = perr == nil
		}
		if !ok {
			lc.skipped = &Skipped{Offset: off, Length: end - off, Reason: describe(err) + "; none of its records can be read", Err: err}
			return lc
		}
		fr, body, cut = cfr, cbody, err
	}
	var fate chunkFate
	if ck.compression == "" {
		lc.owned = body
		if cut == nil {
			*raw = nil // body is the read buffer
		}
		lc.plain = fr.bodyOffset() + ck.recordsOffset
		if skipBad {
			lc.records, fate = salvageRecords(dec, file, fr, ck, nil, cut, it.r.opts.verifyCRC)
		} else {
			lc.records, lc.err = dec.decompress(file, off, ck, nil, it.r.opts.verifyCRC)
		}
	} else {
		if skipBad {
			lc.records, fate = salvageRecords(dec, file, fr, ck, it.getBuf(), cut, it.r.opts.verifyCRC)
		} else {
			lc.records, lc.err = dec.decompress(file, off, ck, it.getBuf(), it.r.opts.verifyCRC)
		}
		lc.owned = lc.records
	}
	if lc.err != nil {
		return lc
	}
	sorted := true
	var last uint64
	lc.err = chunkRecords(file, off, lc.records, func(op mcap.OpCode, at int, body []byte) error {
		if op != mcap.OpMessage {
			fate.used++
			return nil
		}
		fate.seen++
		id, _, lt, _, err := parseMessageHead(file, off, body)
		want, known := it.want[id]
		if err == nil && !known {
			err = errorf(file, off, "message.channel_id", record.ErrFormat, "message on channel %d, which the summary does not list", id)
		}
		if err != nil {
			if !skipBad {
				return err
			}
			fate.bad++
			if fate.firstBad == nil {
				fate.firstBad = err
			}
			return nil
		}
		fate.used++
		fate.kept++
		if !want || it.f.Start != 0 && int64(lt) < it.f.Start || it.f.End != 0 && int64(lt) >= it.f.End {
			return nil
		}
		if lt < last {
			sorted = false
		}
		last = lt
		lc.entries = append(lc.entries, entry{logTime: lt, at: at})
		return nil
	})
	if !sorted {
		sort.SliceStable(lc.entries, func(i, j int) bool { return lc.entries[i].logTime < lc.entries[j].logTime })
	}
	if skipBad && !fate.whole() {
		s := fate.skipped(fr.end() - fr.offset)
		lc.skipped = &s
	}
	return lc
}

// readChunk reads and parses the chunk record that the chunk index places
// at [off, end), into the worker's read buffer raw.
func (it *indexedIter) readChunk(raw *[]byte, off, end int64) (frame, []byte, *chunk, error) {
	file := it.r.file
	fr, err := readFrame(it.r.ra, file, off, end)
	if err == nil && (fr.op != mcap.OpChunk || fr.end() != end) {
		err = errorf(file, off, "chunk_index.chunk_start_offset", record.ErrFormat, "chunk index points at a %s record of %d bytes, want a chunk of %d", fr.op, fr.end()-off, end-off)
	}
	if err != nil {
		return fr, nil, nil, err
	}
	if *raw == nil {
		*raw = it.getBuf()
	}
	body, err := readBody(it.r.ra, file, fr, *raw)
	*raw = body
	if err != nil {
		return fr, nil, nil, err
	}
	ck, err := parseChunk(file, fr.bodyOffset(), body)
	return fr, body, ck, err
}

// Next returns the next message in log time order.
func (it *indexedIter) Next() (*record.Message, error) {
	if it.err != nil {
		return nil, it.err
	}
	if !it.started {
		it.start()
	}
	if it.release != nil {
		it.putBuf(it.release.owned)
		it.release = nil
	}
	for it.next < len(it.chunks) && (len(it.heap) == 0 || it.chunks[it.next].MessageStartTime < it.heap[0].entries[it.heap[0].pos].logTime) {
		lc := <-<-it.futures
		it.next++
		if lc.skipped != nil {
			it.r.skip(*lc.skipped)
		}
		if lc.err != nil {
			return nil, it.fail(lc.err)
		}
		if len(lc.entries) == 0 {
			it.putBuf(lc.owned)
			continue
		}
		heap.Push(&it.heap, lc)
	}
	if len(it.heap) == 0 {
		return nil, it.fail(io.EOF)
	}
	lc := it.heap[0]
	e := lc.entries[lc.pos]
	lc.pos++
	if lc.pos == len(lc.entries) {
		heap.Pop(&it.heap)
		it.release = lc
	} else {
		heap.Fix(&it.heap, 0)
	}
	n := binary.LittleEndian.Uint64(lc.records[e.at+1:])
	body := lc.records[e.at+recordHeaderLen : e.at+recordHeaderLen+int(n)]
	id := binary.LittleEndian.Uint16(body)
	off := int64(-1)
	if lc.plain >= 0 {
		off = lc.plain + int64(e.at)
	}
	it.msg = record.Message{
		Channel:     it.chans[id],
		LogTime:     int64(e.logTime),
		PublishTime: int64(binary.LittleEndian.Uint64(body[14:])),
		Sequence:    uint64(binary.LittleEndian.Uint32(body[2:])),
		Source:      it.r.file,
		Offset:      off,
		Data:        body[messageHeadLen:],
	}
	return &it.msg, nil
}

// fail makes err sticky and stops the workers.
func (it *indexedIter) fail(err error) error {
	it.err = err
	it.stop()
	return err
}

func (it *indexedIter) stop() {
	if it.started && !it.stopped {
		it.stopped = true
		close(it.done)
		it.wg.Wait()
	}
}

// Close stops the workers; it is idempotent.
func (it *indexedIter) Close() error {
	if it.err == nil {
		it.err = io.EOF
	}
	it.stop()
	return nil
}
