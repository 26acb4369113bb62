package remote

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune an Object; the zero value takes the defaults below.
type Options struct {
	// Head and Tail are the bytes Open fetches at either end (8 KiB and
	// 250,000 bytes), at once where the store allows: the magic and header
	// at the start, a bag's index or an MCAP summary at the end.
	Head, Tail int64
	// Block is the unit of the cache (8 KiB: a small read at a random
	// place, such as a record header, costs no more); the missing blocks
	// of one read are fetched with one request, however many. Cache bounds
	// the cache (64 MiB).
	Block, Cache int64
	// Readahead is the most a sequential reading fetches ahead (16 MiB),
	// in requests of ReadaheadRequest bytes (4 MiB) at once.
	Readahead, ReadaheadRequest int64
	// Parallel bounds the requests of one object in flight at once (16).
	Parallel int
	// Retries is how often a failed request is tried again (5), waiting
	// Backoff (200 ms), doubled each time up to 5 s.
	Retries int
	Backoff time.Duration
	// Stall ends a request whose response or body sends nothing for this
	// long (30 s); it is then retried.
	Stall time.Duration
	// HTTPClient reads http(s) URLs (a client of its own by default).
	HTTPClient *http.Client
	// OnNote receives what the reading does that the user should know: a
	// server that ignores Range requests.
	OnNote func(string)
}

// Memory is the most one Object holds while it is read, with these
// options: its cache (twice its bound while it is hashed: see evict), the
// readahead in flight beyond it, its head and tail. A command that sets a
// soft memory limit adds it per object read at once, or the collector
// would run ever more often to keep the rest under the limit.
func (o Options) Memory() int64 {
	o = o.withDefaults()
	return 2*o.Cache + o.Readahead + o.ReadaheadRequest + o.Head + o.Tail
}

func (o Options) withDefaults() Options {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Head, 8<<10)
	def(&o.Tail, 250_000)
	def(&o.Block, 8<<10)
	def(&o.Cache, 64<<20)
	def(&o.Readahead, 16<<20)
	def(&o.ReadaheadRequest, 4<<20)
	if o.Parallel <= 0 {
		o.Parallel = 16
	}
	if o.Retries == 0 {
		o.Retries = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = 200 * time.Millisecond
	}
	if o.Stall <= 0 {
		o.Stall = 30 * time.Second
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultClient
	}
	return o
}

var defaultClient = &http.Client{Transport: &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	MaxIdleConnsPerHost:   16,
	ResponseHeaderTimeout: 30 * time.Second,
	IdleConnTimeout:       90 * time.Second,
	DisableCompression:    true,
}}

// Stats counts what an Object fetched.
type Stats struct {
	Requests int64 // range requests made, retries included
	Bytes    int64 // body bytes received
	Retries  int64 // requests that were retries
	Size     int64 // the object's length
}

// Object is a remote object read through range requests: an io.ReaderAt,
// safe for concurrent use. Close it when done.
type Object struct {
	url    string
	f      fetcher
	o      Options
	ctx    context.Context
	cancel context.CancelFunc
	size   int64
	etag   string

	head, tail []byte // fetched by Open: [0, len(head)) and [tailOff, size)
	tailOff    int64
	spool      *os.File      // the whole object, when the server ignored Range
	sem        chan struct{} // bounds the requests in flight

	mu      sync.Mutex
	blocks  map[int64]*block
	lru     list.List // of *block, most recently used first
	cached  int64
	lastEnd int64     // end of the latest read, for readahead
	streak  int64     // bytes read in order so far
	ahead   int64     // the readahead window: half the streak, at most Readahead
	aheadTo int64     // blocks before this are read ahead already
	tap     *hashTap  // hashes the blocks in order (Hash), or nil
	plan    *readPlan // the ranges a reader announced (Plan), or nil

	requests, bytes, retries atomic.Int64
}

// block is one Block-sized piece of the object in the cache.
type block struct {
	idx  int64
	data []byte
	done chan struct{} // closed when data is filled or err set
	err  error
	refs int // reads waiting on it
	elem *list.Element
}

// IsURL reports whether name is a URL this package reads rather than a
// local path: s3://, gs://, azblob://, http:// or https://.
func IsURL(name string) bool {
	scheme, _, _ := strings.Cut(name, "://")
	return InBucket(name) || scheme == "http" || scheme == "https"
}

// newFetcher makes the fetcher of a URL.
func newFetcher(ctx context.Context, raw string, o Options) (fetcher, error) {
	scheme, _, _ := strings.Cut(raw, "://")
	switch scheme {
	case "http", "https":
		if _, err := url.Parse(raw); err != nil {
			return nil, err
		}
		return &httpFetcher{url: raw, client: o.HTTPClient}, nil
	case "s3", "gs", "azblob":
		u, key, err := splitBlobURL(raw)
		if err != nil {
			return nil, err
		}
		if key == "" || strings.HasSuffix(key, "/") {
			return nil, fmt.Errorf("%w: %s names a prefix, not an object", ErrNotFound, raw)
		}
		b, err := bucketOf(ctx, u)
		if err != nil {
			return nil, err
		}
		return b.fetcher(raw, key, scheme), nil
	}
	return nil, fmt.Errorf("%w: scheme %q (want s3, gs, azblob, http or https)", ErrUnsupported, scheme)
}

// Open opens the object at url and fetches its head and tail. ctx bounds
// every request of the object's life: cancelling it stops them all.
func Open(ctx context.Context, url string, opts Options) (*Object, error) {
	o := opts.withDefaults()
	f, err := newFetcher(ctx, url, o)
	if err != nil {
		return nil, &Error{URL: url, Op: "open", Err: err}
	}
	return open(ctx, url, f, o)
}

func open(ctx context.Context, url string, f fetcher, o Options) (*Object, error) {
	ctx, cancel := context.WithCancel(ctx)
	obj := &Object{url: url, f: f, o: o, ctx: ctx, cancel: cancel, blocks: map[int64]*block{}, sem: make(chan struct{}, o.Parallel)}
	if err := obj.start(); err != nil {
		cancel()
		return nil, err
	}
	return obj, nil
}

// start fetches the head, learning the object's size and version, and
// the tail: beside the head when the fetcher can ask for the object's
// last bytes (suffixer), else after it.
func (obj *Object) start() error {
	suffix := obj.fetchSuffix()
	defer suffix.stop()
	head := make([]byte, obj.o.Head)
	var info objectInfo
	n, err := obj.fetch(0, head, func(i objectInfo, body io.Reader) (bool, error) {
		info = i
		if i.ranged {
			return true, nil
		}
		return false, obj.spoolBody(body, i)
	})
	if err != nil {
		return err
	}
	if obj.spool != nil {
		return nil
	}
	obj.size, obj.etag = info.size, info.etag
	if obj.size < 0 {
		return &Error{URL: obj.url, Op: "open", Err: fmt.Errorf("%w: the response to the first request gave no length", ErrProtocol)}
	}
	obj.head = head[:n]
	obj.tailOff = obj.size
	if obj.size <= int64(n) {
		return nil
	}
	obj.tailOff = max(int64(n), obj.size-obj.o.Tail)
	if obj.tail = suffix.tail(obj); obj.tail != nil {
		return nil
	}
	obj.tail = make([]byte, obj.size-obj.tailOff)
	_, err = obj.fetch(obj.tailOff, obj.tail, nil)
	return err
}

// suffixFetch is an object's last bytes, asked for beside its head.
type suffixFetch struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	data   []byte
	start  int64 // where data starts in the object
	info   objectInfo
	err    error
}

// fetchSuffix starts fetching the object's last Tail bytes, when the
// fetcher can ask for them before the head tells the object's size; nil
// when it cannot.
func (obj *Object) fetchSuffix() *suffixFetch {
	s, ok := obj.f.(suffixer)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancelCause(obj.ctx)
	sf := &suffixFetch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sf.done)
		watchdog := time.AfterFunc(obj.o.Stall, func() { cancel(errStalled) })
		defer watchdog.Stop()
		body, start, info, err := s.getSuffix(ctx, obj.o.Tail)
		if err != errNoSuffix {
			obj.requests.Add(1)
		}
		if err != nil {
			sf.err = err
			return
		}
		defer body.Close()
		buf := make([]byte, obj.o.Tail) // the body is at most this long
		n, err := obj.readBody(ctx, body, buf, watchdog, nil)
		if err != nil && err != io.EOF {
			sf.err = err
			return
		}
		sf.data, sf.start, sf.info = buf[:n], start, info
	}()
	return sf
}

// tail returns obj's tail from the fetched suffix, once the head has
// told the object's size and version; nil when the suffix fetch failed,
// or its response tells of another version (the object changed between
// the two), or it does not reach back to the tail, or it ends short of
// the object: the tail is then fetched after the head, as the version
// the head read.
func (sf *suffixFetch) tail(obj *Object) []byte {
	if sf == nil {
		return nil
	}
	<-sf.done
	if sf.err != nil || sf.info.size != obj.size || sf.info.etag != obj.etag ||
		sf.start > obj.tailOff || sf.start+int64(len(sf.data)) != obj.size {
		return nil
	}
	return sf.data[obj.tailOff-sf.start:]
}

// stop ends the suffix fetch, whether or not it is done.
func (sf *suffixFetch) stop() {
	if sf != nil {
		sf.cancel(nil)
		<-sf.done
	}
}

// spoolBody copies the whole object, the body of a response that ignored
// Range, into a private temporary file that ReadAt then reads.
func (obj *Object) spoolBody(body io.Reader, info objectInfo) error {
	if obj.o.OnNote != nil {
		obj.o.OnNote(fmt.Sprintf("%s: the server ignores Range requests; reading the whole object as one stream into a private temporary file", obj.url))
	}
	f, err := os.CreateTemp("", "baglab-remote-*")
	if err != nil {
		return err
	}
	os.Remove(f.Name()) // nothing stays behind
	n, err := io.Copy(f, &countingReader{r: body, n: &obj.bytes})
	if err == nil && info.size >= 0 && n != info.size {
		err = fmt.Errorf("%w: body of %d bytes, Content-Length %d", io.ErrUnexpectedEOF, n, info.size)
	}
	if err != nil {
		f.Close()
		return &Error{URL: obj.url, Op: "read", Err: err}
	}
	obj.spool, obj.size, obj.etag = f, n, info.etag
	return nil
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// URL is the object's URL.
func (obj *Object) URL() string { return obj.url }

// Size is the object's length in bytes.
func (obj *Object) Size() int64 { return obj.size }

// Spooled reports whether the object was read whole into a temporary
// file because its server ignores Range requests.
func (obj *Object) Spooled() bool { return obj.spool != nil }

// Stats returns what the object fetched so far.
func (obj *Object) Stats() Stats {
	return Stats{Requests: obj.requests.Load(), Bytes: obj.bytes.Load(), Retries: obj.retries.Load(), Size: obj.size}
}

// Trim drops the cached blocks no read waits on, keeping the head and
// the tail: a recording whose reading ended holds no more than those
// while its session keeps it for another reading.
func (obj *Object) Trim() {
	obj.mu.Lock()
	defer obj.mu.Unlock()
	for e := obj.lru.Back(); e != nil; {
		prev := e.Prev()
		b := e.Value.(*block)
		select {
		case <-b.done:
			if b.refs == 0 {
				obj.drop(b)
			}
		default:
		}
		e = prev
	}
	obj.lastEnd, obj.streak, obj.ahead, obj.aheadTo = 0, 0, 0, 0
	obj.plan = nil
}

// Close stops the object's requests and drops its cache; idempotent.
func (obj *Object) Close() error {
	obj.cancel()
	obj.mu.Lock()
	defer obj.mu.Unlock()
	obj.blocks, obj.head, obj.tail = map[int64]*block{}, nil, nil
	obj.lru.Init()
	obj.cached = 0
	if obj.spool != nil {
		err := obj.spool.Close()
		obj.spool = nil
		return err
	}
	return nil
}

// ReadAt reads len(p) bytes at off, from the head, the tail, the cache or
// new requests.
func (obj *Object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &Error{URL: obj.url, Op: "read", Off: off, Err: errors.New("negative offset")}
	}
	if obj.spool != nil {
		return obj.spool.ReadAt(p, off)
	}
	if off >= obj.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), obj.size-off)
	end := off + want
	pos := off
	for pos < end {
		switch {
		case pos < int64(len(obj.head)):
			pos += int64(copy(p[pos-off:want], obj.head[pos:]))
		case pos >= obj.tailOff:
			pos += int64(copy(p[pos-off:want], obj.tail[pos-obj.tailOff:]))
		default:
			to := min(end, obj.tailOff)
			if err := obj.readBlocks(p[pos-off:to-off], pos); err != nil {
				return int(pos - off), err
			}
			pos = to
		}
	}
	if want < int64(len(p)) {
		return int(want), io.EOF
	}
	return int(want), nil
}

// readBlocks fills p from off through the cache: the blocks missing are
// fetched, each run of consecutive ones with one request, the runs in
// parallel; a read that follows the previous one also starts readahead.
func (obj *Object) readBlocks(p []byte, off int64) error {
	B := obj.o.Block
	first, last := off/B, (off+int64(len(p))-1)/B
	var need []*block
	var runs, ahead [][]*block
	obj.mu.Lock()
	planned := obj.plan.reach(off, off+int64(len(p)))
	if planned {
		// Fetch along the plan first, so that this read's blocks come
		// in its large requests too. The hash fetches the gaps the plan
		// leaves up to the furthest read (fillGap).
		ahead = obj.planAhead()
		obj.lastEnd = max(obj.lastEnd, off+int64(len(p)))
	}
	for i := first; i <= last; i++ {
		b := obj.blocks[i]
		if b == nil {
			b = obj.newBlock(i)
			if n := len(runs); n > 0 && runs[n-1][len(runs[n-1])-1].idx == i-1 {
				runs[n-1] = append(runs[n-1], b)
			} else {
				runs = append(runs, []*block{b})
			}
		}
		b.refs++
		if !planned {
			// A planned reading reads each block once: its blocks keep
			// their place, first fetched first to go, behind those
			// fetched ahead of it.
			obj.lru.MoveToFront(b.elem)
		}
		need = append(need, b)
	}
	if !planned {
		ahead = obj.readahead(off, off+int64(len(p)), last)
	}
	obj.mu.Unlock()
	for _, r := range runs {
		go obj.fill(r)
	}
	for _, r := range ahead {
		go obj.fill(r)
	}
	var err error
	for _, b := range need {
		if err == nil {
			select {
			case <-b.done:
				if err = b.err; err == nil {
					bo := b.idx * B
					lo, hi := max(off, bo), min(off+int64(len(p)), bo+int64(len(b.data)))
					copy(p[lo-off:hi-off], b.data[lo-bo:hi-bo])
				}
			case <-obj.ctx.Done():
				err = &Error{URL: obj.url, Op: "read", Off: off, N: int64(len(p)), Err: context.Cause(obj.ctx)}
			}
		}
	}
	obj.mu.Lock()
	for _, b := range need {
		b.refs--
	}
	obj.evict()
	obj.mu.Unlock()
	return err
}

// Prefetch starts fetching, in parallel requests, the n bytes at each of
// offs that the cache lacks, and returns at once: a reader that knows the
// scattered places it will read next (a ROS1 bag's chunk headers) reads
// them then without a round trip each.
func (obj *Object) Prefetch(offs []int64, n int64) {
	if obj.spool != nil || n <= 0 {
		return
	}
	B := obj.o.Block
	var runs [][]*block
	obj.mu.Lock()
	for _, off := range offs {
		off, end := max(off, int64(len(obj.head))), min(off+n, obj.tailOff)
		if off >= end {
			continue
		}
		runs = obj.missingRuns(runs, off/B, (end-1)/B+1, 0)
	}
	obj.evict()
	obj.mu.Unlock()
	for _, r := range runs {
		go obj.fill(r)
	}
}

// newBlock adds an empty block to the cache; obj.mu is held.
func (obj *Object) newBlock(i int64) *block {
	b := &block{idx: i, done: make(chan struct{})}
	b.elem = obj.lru.PushFront(b)
	obj.blocks[i] = b
	obj.cached += obj.o.Block
	return b
}

// readahead returns the runs of blocks to fetch ahead of a read of [off,
// end) whose last block is last: none unless the read starts where the
// previous one ended (or a little past it); then half as many bytes ahead
// as the reads in order so far took (so that what a reading fetches ahead
// and then leaves is never more than half what it read), up to Readahead,
// cut into ReadaheadRequest runs, once less than half the window is
// left ahead. obj.mu is held.
func (obj *Object) readahead(off, end, last int64) [][]*block {
	// In order: at the end of the previous read, or a little past it (the
	// records a reading of chunks steps over, such as MCAP message
	// indexes), which readahead then fetches too.
	seq := off >= obj.lastEnd && off-obj.lastEnd <= nearGap && obj.lastEnd > 0
	obj.lastEnd = end
	if !seq {
		obj.streak, obj.ahead, obj.aheadTo = end-off, 0, 0
		return nil
	}
	obj.streak += end - off
	obj.ahead = min(obj.streak/2, obj.o.Readahead)
	B := obj.o.Block
	if obj.aheadTo*B-end > obj.ahead/2 {
		// More than half the window is fetched or on its way: top it up
		// later, with one larger request, rather than one small request
		// per small read.
		return nil
	}
	from := max(last+1, obj.aheadTo)
	to := min((end+obj.ahead+B-1)/B, (obj.tailOff+B-1)/B)
	runs := obj.missingRuns(nil, from, to, max(1, obj.o.ReadaheadRequest/B))
	obj.aheadTo = max(obj.aheadTo, to)
	return runs
}

// missingRuns adds to the cache the blocks of [from, to) it lacks and
// appends them to runs as runs of consecutive blocks, each of at most per
// blocks when per > 0: one request each. obj.mu is held.
func (obj *Object) missingRuns(runs [][]*block, from, to, per int64) [][]*block {
	var run []*block
	for i := from; i < to; i++ {
		if obj.blocks[i] != nil || per > 0 && int64(len(run)) == per {
			if len(run) > 0 {
				runs = append(runs, run)
			}
			run = nil
		}
		if obj.blocks[i] == nil {
			run = append(run, obj.newBlock(i))
		}
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}
	return runs
}

// evict drops the least recently used filled blocks that no read waits on
// and the hash (if any) has taken until the cache fits its bound; obj.mu
// is held.
func (obj *Object) evict() {
	if obj.tap == nil {
		obj.evictTo(obj.o.Cache, nil)
		return
	}
	hashed := obj.tap.hashed.Load()
	obj.evictTo(obj.o.Cache, func(b *block) bool { return (b.idx+1)*obj.o.Block <= hashed })
	// A hash held up (by a block a reading skipped that is still on its
	// way) keeps what it has not taken up to twice the bound; past that
	// those blocks go too, and Sum fetches them again.
	obj.evictTo(2*obj.o.Cache, nil)
}

// evictTo drops the least recently used filled blocks that no read waits
// on (and that may go, when may is set) until the cache holds at most
// limit bytes; obj.mu is held.
func (obj *Object) evictTo(limit int64, may func(*block) bool) {
	for e := obj.lru.Back(); e != nil && obj.cached > limit; {
		prev := e.Prev()
		b := e.Value.(*block)
		select {
		case <-b.done:
			if b.refs == 0 && (may == nil || may(b)) {
				obj.drop(b)
			}
		default:
		}
		e = prev
	}
}

// drop removes b from the cache; obj.mu is held.
func (obj *Object) drop(b *block) {
	if obj.blocks[b.idx] == b {
		delete(obj.blocks, b.idx)
		obj.lru.Remove(b.elem)
		obj.cached -= obj.o.Block
	}
}

// fill fetches a run of consecutive blocks with one request, handing on
// each block as soon as its bytes are in; what of the run the head or the
// tail holds is copied, not fetched again. Failed blocks leave the cache,
// so that a later read tries them again.
func (obj *Object) fill(run []*block) {
	B := obj.o.Block
	start := run[0].idx * B
	end := min(obj.size, (run[len(run)-1].idx+1)*B)
	buf := make([]byte, end-start)
	for i, b := range run {
		b.data = buf[int64(i)*B : min(int64(i+1)*B, end-start)]
	}
	from, to := max(start, int64(len(obj.head))), min(end, obj.tailOff)
	if from > start {
		copy(buf, obj.head[start:])
	}
	if to < end {
		copy(buf[to-start:], obj.tail[to-obj.tailOff:])
	}
	next := 0
	ready := func(got int64) { // bytes of buf in: from-start+got
		for next < len(run) && min(int64(next+1)*B, end-start) <= from-start+got {
			close(run[next].done)
			next++
		}
	}
	var err error
	if from < to {
		select {
		case obj.sem <- struct{}{}:
			defer func() { <-obj.sem }()
		case <-obj.ctx.Done():
			err = &Error{URL: obj.url, Op: "read", Off: from, N: to - from, Err: context.Cause(obj.ctx)}
		}
	}
	if from < to && err == nil {
		var n int
		n, err = obj.fetch(from, buf[from-start:to-start], nil, ready)
		if err == nil && int64(n) < to-from {
			err = &Error{URL: obj.url, Op: "read", Off: from + int64(n), N: to - from - int64(n),
				Err: fmt.Errorf("%w: the object ended early", ErrChanged)}
		}
	}
	if err == nil {
		ready(end - from) // the tail's part
	}
	if next == len(run) {
		obj.advanceHash()
		return
	}
	obj.mu.Lock()
	for _, b := range run[next:] {
		b.err = err
		obj.drop(b)
		close(b.done)
	}
	obj.mu.Unlock()
}

// fetch fills dst with the bytes at off, retrying temporary failures with
// bounded backoff and resuming where a body was cut. accept, when set,
// sees the first response: returning false stops the fetch there (the
// body was consumed). progress, when given, is told how many bytes of dst
// are in after each read. It returns the bytes filled: len(dst), or fewer
// when the object ends first.
func (obj *Object) fetch(off int64, dst []byte, accept func(objectInfo, io.Reader) (bool, error), progress ...func(int64)) (int, error) {
	got, failures := 0, 0
	backoff := obj.o.Backoff
	for got < len(dst) {
		at := off + int64(got)
		n, done, err := obj.request(at, dst[got:], accept, progress, got)
		accept = nil
		got += n
		if err == nil && done {
			return got, nil
		}
		if err == nil {
			continue // a cut body: ask for the rest
		}
		if n > 0 {
			failures = 0 // progress: the count starts again
		}
		if !temporary(err) || failures >= obj.o.Retries {
			if failures > 0 {
				err = fmt.Errorf("%w (after %d retries)", err, failures)
			}
			return got, &Error{URL: obj.url, Op: "read", Off: at, N: int64(len(dst) - got), Err: err}
		}
		failures++
		obj.retries.Add(1)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-obj.ctx.Done():
			t.Stop()
			return got, &Error{URL: obj.url, Op: "read", Off: at, N: int64(len(dst) - got), Err: context.Cause(obj.ctx)}
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return got, nil
}

// nearGap is the most a read may start past the end of the previous one
// and still count as reading in order.
const nearGap = 256 << 10

// errStalled ends a request whose server sent nothing for Options.Stall.
var errStalled = errors.New("no data for too long")

// request makes one request for dst's bytes at off and reads its body
// into dst. done is true when the range is complete or the object ended;
// a body cut short returns done false (and a temporary error).
func (obj *Object) request(off int64, dst []byte, accept func(objectInfo, io.Reader) (bool, error), progress []func(int64), base int) (n int, done bool, err error) {
	ctx, cancel := context.WithCancelCause(obj.ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(obj.o.Stall, func() { cancel(errStalled) })
	defer watchdog.Stop()
	obj.requests.Add(1)
	body, info, err := obj.f.get(ctx, off, int64(len(dst)), obj.etag)
	if err != nil {
		if c := context.Cause(ctx); c == errStalled {
			err = errStalled
		}
		return 0, false, err
	}
	defer body.Close()
	if accept != nil {
		keep, err := accept(info, body)
		if !keep || err != nil {
			return 0, true, err
		}
	}
	if !info.ranged {
		return 0, false, fmt.Errorf("%w: the server answered a range request with the whole object", ErrProtocol)
	}
	if obj.etag != "" && info.etag != "" && info.etag != obj.etag {
		return 0, false, fmt.Errorf("%w (ETag %s, was %s)", ErrChanged, info.etag, obj.etag)
	}
	if obj.size > 0 && info.size >= 0 && info.size != obj.size {
		return 0, false, fmt.Errorf("%w (%d bytes long, was %d)", ErrChanged, info.size, obj.size)
	}
	if info.size >= 0 && off+int64(len(dst)) > info.size {
		dst = dst[:max(0, info.size-off)]
	}
	n, err = obj.readBody(ctx, body, dst, watchdog, func(n int) {
		for _, p := range progress {
			p(int64(base + n))
		}
	})
	switch {
	case err == io.EOF && n < len(dst):
		return n, false, io.ErrUnexpectedEOF
	case err != nil && err != io.EOF:
		return n, false, err
	}
	return n, true, nil
}

// readBody reads body into dst until dst is full (err nil) or the body
// ends (io.EOF), counting the bytes, telling progress (when set) how many
// are in after each read, and restarting the watchdog, which cancels ctx
// with errStalled, before each read.
func (obj *Object) readBody(ctx context.Context, body io.Reader, dst []byte, watchdog *time.Timer, progress func(n int)) (n int, err error) {
	for n < len(dst) {
		watchdog.Reset(obj.o.Stall)
		m, rerr := body.Read(dst[n:])
		n += m
		obj.bytes.Add(int64(m))
		if progress != nil {
			progress(n)
		}
		if rerr == io.EOF {
			return n, io.EOF
		}
		if rerr != nil {
			if context.Cause(ctx) == errStalled {
				rerr = errStalled
			}
			return n, rerr
		}
	}
	return n, nil
}
