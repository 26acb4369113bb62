package chunked

import (
	"cmp"
	"container/heap"
	"io"
	"slices"
	"sync"

	"github.com/baglab/baglab/record"
)

// Chunk is one chunk as the file's index describes it.
type Chunk struct {
	Pos int64 // file offset of the chunk record: equal times come out by it
	Len int64 // bytes of the chunk record, reported when it is skipped
	// Count is how many selected messages the index says the chunk holds,
	// reported as dropped when it is skipped whole (0: unknown).
	Count uint64
	// Start and End are the log times of its first and last messages as
	// the index gives them.
	Start, End int64
}

// Entry is one selected message of a loaded chunk.
type Entry struct {
	Time int64
	// At is the offset of the message record in the chunk's data: equal
	// times in one chunk come out by it.
	At uint32
	// Conn, Start and End are the format's: a channel handle and the span
	// of the message data in the chunk's data.
	Conn       uint32
	Start, End uint32
}

// Compare orders entries by (Time, At): log time, then file order.
func Compare(a, b Entry) int {
	return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.At, b.At))
}

// Loaded is a chunk read and decompressed by a Worker.
type Loaded struct {
	// Data is the chunk's uncompressed records; Entries index the selected
	// messages in it, sorted by Compare (see Sort).
	Data    []byte
	Entries []Entry
	// Owned lists the buffers (from Buffers.Get) that Data lives in; they
	// are reused once the chunk's messages have all been yielded.
	Owned [][]byte
	// Skipped is damage the worker went past in the chunk (with skip-bad):
	// it is reported before the chunk's messages.
	Skipped *record.Skipped
	// Err means the chunk cannot be used at all: the iteration stops with
	// it, or with skip-bad the chunk is reported skipped whole.
	Err error
	// Base is the file offset of Data[0] when the chunk is stored
	// uncompressed, else -1.
	Base int64
	// Unverified is set when no CRC vouches for the chunk's content.
	Unverified bool
	// Pinned is set when Data lies in the file mapped into memory
	// (record.ReadOptions.InPlace): valid until the reader closes, and in
	// no buffer of Owned.
	Pinned bool
	// Release, if not nil, is called once the chunk's messages have all
	// been yielded (or the chunk is dropped), as Owned is given back.
	Release func()
	// Chunk is the chunk it was loaded from (set by Merge).
	Chunk Chunk
}

// Offset is the file offset of e's message record when the chunk is stored
// uncompressed, else the offset of its chunk record.
func (l *Loaded) Offset(e Entry) int64 {
	if l.Base >= 0 {
		return l.Base + int64(e.At)
	}
	return l.Chunk.Pos
}

// Worker loads chunks on one goroutine, with state of its own
// (decompressors, scratch buffers).
type Worker interface {
	// Load reads chunk i of the slice given to Merge; b lends buffers.
	Load(i int, b *Buffers) *Loaded
	// Close releases the worker's state.
	Close()
}

// Options configure Merge.
type Options struct {
	// Workers load chunks ahead in parallel (at least 1).
	Workers int
	// SkipBad goes on past a chunk that cannot be used, reporting it.
	SkipBad bool
	// OnSkip, if not nil, is called with each skipped range from the
	// goroutine calling Next, before the messages read from it.
	OnSkip func(record.Skipped)
}

// Buffers lends byte buffers to workers and takes them back once a chunk
// is done with, so that a merge reuses a bounded set of chunk buffers.
type Buffers struct {
	bytes   freeList[byte]
	entries freeList[Entry]
}

// Get returns a buffer of length 0 (nil when none is free).
func (b *Buffers) Get() []byte { return b.bytes.get() }

// Put gives a buffer back.
func (b *Buffers) Put(p []byte) { b.bytes.put(p) }

// Entries returns an empty entry slice to append to.
func (b *Buffers) Entries() []Entry { return b.entries.get() }

// freeList holds a bounded number of slices for reuse.
type freeList[T any] chan []T

func (f freeList[T]) get() []T {
	select {
	case p := <-f:
		return p
	default:
		return nil
	}
}

func (f freeList[T]) put(p []T) {
	if cap(p) == 0 {
		return
	}
	select {
	case f <- p[:0]:
	default:
	}
}

// Merge is an ordered, parallel read of chunks: the messages of all the
// chunks in log time order, equal times in file order (by chunk position,
// then by position in the chunk), whether the chunks overlap in time or are
// stored out of order.
//
// Chunks are taken in order of (Start, Pos). A dispatcher hands them to a
// pool of workers; the merge receives them in that order, and merges a
// chunk in as soon as its start time is not after the earliest pending
// message. A chunk starting at the same time as that message is merged
// first, so that a tie is decided by file position whatever chunk holds it.
type Merge struct {
	chunks []Chunk
	order  []int // chunk indexes by (Start, Pos)
	next   int   // next of order to merge
	opts   Options
	worker func() Worker
	bufs   Buffers
	plan   Planner // told the ranges the workers read (PlanReads), or nil

	started bool
	results chan *job
	stop    chan struct{}
	wg      sync.WaitGroup

	heap    loadedHeap
	release *job // exhausted chunk, released on the next call
	err     error
}

type job struct {
	chunk int
	done  chan struct{}
	l     *Loaded
	pos   int // next entry to yield
}

// New prepares a merge of chunks; newWorker makes each worker's state. No
// goroutine starts before the first call to Next.
func New(chunks []Chunk, newWorker func() Worker, o Options) *Merge {
	o.Workers = max(1, o.Workers)
	m := &Merge{chunks: chunks, opts: o, worker: newWorker, stop: make(chan struct{}),
		bufs: Buffers{bytes: make(freeList[byte], 2*o.Workers+2), entries: make(freeList[Entry], 2*o.Workers+2)}}
	m.order = make([]int, len(chunks))
	for i := range m.order {
		m.order[i] = i
	}
	slices.SortFunc(m.order, func(a, b int) int {
		return cmp.Or(cmp.Compare(chunks[a].Start, chunks[b].Start), cmp.Compare(chunks[a].Pos, chunks[b].Pos))
	})
	return m
}

// Planner is an io.ReaderAt that can be told the ranges a reading will
// take, in order (a remote object, package remote), and then fetches
// ahead along them.
type Planner interface {
	Plan(ranges [][2]int64)
}

// PlanReads has the merge tell r, when it is a Planner, the byte ranges
// of the chunks ([Pos, Pos+Len)), in the order it loads them, as it
// starts.
func (m *Merge) PlanReads(r any) {
	if p, ok := r.(Planner); ok && len(m.order) > 0 {
		m.plan = p
	}
}

func (m *Merge) start() {
	if m.plan != nil {
		ranges := make([][2]int64, len(m.order))
		for k, i := range m.order {
			ranges[k] = [2]int64{m.chunks[i].Pos, m.chunks[i].Pos + m.chunks[i].Len}
		}
		m.plan.Plan(ranges)
	}
	m.started = true
	w := m.opts.Workers
	m.results = make(chan *job, w)
	jobs := make(chan *job)
	m.wg.Add(1 + w)
	go m.dispatch(jobs)
	for range w {
		go func() {
			defer m.wg.Done()
			wk := m.worker()
			defer wk.Close()
			for j := range jobs {
				j.l = wk.Load(j.chunk, &m.bufs)
				close(j.done)
			}
		}()
	}
}

func (m *Merge) dispatch(jobs chan<- *job) {
	defer m.wg.Done()
	defer close(m.results)
	defer close(jobs)
	for _, i := range m.order {
		j := &job{chunk: i, done: make(chan struct{})}
		select {
		case jobs <- j:
		case <-m.stop:
			return
		}
		select {
		case m.results <- j:
		case <-m.stop:
			return
		}
	}
}

// Next returns the next message: the chunk holding it and its entry. l is
// valid until the next call.
func (m *Merge) Next() (l *Loaded, e Entry, err error) {
	if m.err != nil {
		return nil, Entry{}, m.err
	}
	if !m.started {
		m.start()
	}
	if m.release != nil {
		m.put(m.release)
		m.release = nil
	}
	for m.next < len(m.order) && (len(m.heap) == 0 || m.chunks[m.order[m.next]].Start <= m.heap.top().Time) {
		j, ok := <-m.results
		if !ok {
			return nil, Entry{}, m.fail(io.EOF) // stopped
		}
		<-j.done
		m.next++
		j.l.Chunk = m.chunks[j.chunk]
		if s := j.l.Skipped; s != nil {
			m.skip(*s)
		}
		if err := j.l.Err; err != nil {
			c := j.l.Chunk
			m.put(j)
			if !m.opts.SkipBad {
				return nil, Entry{}, m.fail(err)
			}
			m.skip(record.Skipped{Offset: c.Pos, Length: c.Len, Dropped: c.Count, Err: err})
			continue
		}
		if len(j.l.Entries) == 0 {
			m.put(j)
			continue
		}
		heap.Push(&m.heap, j)
	}
	if len(m.heap) == 0 {
		return nil, Entry{}, m.fail(io.EOF)
	}
	j := m.heap[0]
	e = j.l.Entries[j.pos]
	j.pos++
	if j.pos == len(j.l.Entries) {
		heap.Pop(&m.heap)
		m.release = j
	} else {
		heap.Fix(&m.heap, 0)
	}
	return j.l, e, nil
}

func (m *Merge) skip(s record.Skipped) {
	if m.opts.OnSkip != nil {
		m.opts.OnSkip(s)
	}
}

// put returns a job's buffers.
func (m *Merge) put(j *job) {
	if j.l == nil {
		return
	}
	for _, b := range j.l.Owned {
		m.bufs.Put(b)
	}
	if j.l.Release != nil {
		j.l.Release()
	}
	m.bufs.entries.put(j.l.Entries)
	j.l = nil
}

func (m *Merge) fail(err error) error {
	m.err = err
	m.shutdown()
	return err
}

// shutdown stops the dispatcher and workers and waits for them.
func (m *Merge) shutdown() {
	if !m.started {
		return
	}
	select {
	case <-m.stop:
		return
	default:
	}
	close(m.stop)
	for j := range m.results {
		<-j.done
		m.put(j)
	}
	m.wg.Wait()
	for _, j := range m.heap {
		m.put(j)
	}
	m.heap = nil
	if m.release != nil {
		m.put(m.release)
		m.release = nil
	}
}

// Close stops the merge and releases its buffers; idempotent.
func (m *Merge) Close() {
	if m.err == nil {
		m.err = io.EOF
	}
	m.shutdown()
}

// loadedHeap orders loaded chunks by their next entry: time, then chunk
// position, then position in the chunk.
type loadedHeap []*job

func (h loadedHeap) top() Entry { return h[0].l.Entries[h[0].pos] }

func (h loadedHeap) Len() int { return len(h) }
func (h loadedHeap) Less(a, b int) bool {
	x, y := h[a].l.Entries[h[a].pos], h[b].l.Entries[h[b].pos]
	if x.Time != y.Time {
		return x.Time < y.Time
	}
	if pa, pb := h[a].l.Chunk.Pos, h[b].l.Chunk.Pos; pa != pb {
		return pa < pb
	}
	return x.At < y.At
}
func (h loadedHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *loadedHeap) Push(x any)   { *h = append(*h, x.(*job)) }
func (h *loadedHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}
