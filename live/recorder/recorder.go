package recorder

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/internal/termtext"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
)

// topicState is one recorded topic.
type topicState struct {
	name     string
	record   atomic.Bool // false for /clock subscribed only to follow sim time
	sub      *rosnode.Subscriber
	received atomic.Int64
	bytes    atomic.Int64
	dropped  atomic.Int64
	written  atomic.Int64
	evicted  atomic.Int64 // from the snapshot buffer
	full     atomic.Bool  // reached Limit
}

// Result is what a finished recording reports.
type Result struct {
	// Files are the files written and kept, in order.
	Files []string
	// Topics are the per-topic counts, sorted by topic.
	Topics []TopicStats
	// Reason says why recording stopped.
	Reason string
}

// Dropped is the total of messages dropped from a full buffer.
func (r *Result) Dropped() int64 {
	var n int64
	for _, t := range r.Topics {
		n += t.Dropped
	}
	return n
}

// WriteSummary writes why recording stopped, a table of the messages
// received, written and dropped per topic, and the files written.
func (r *Result) WriteSummary(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "baglab record: stopped: %s\n", r.Reason)
	fmt.Fprintf(&b, "%-40s %10s %10s %8s\n", "TOPIC", "RECEIVED", "WRITTEN", "DROPPED")
	for _, t := range r.Topics {
		fmt.Fprintf(&b, "%-40s %10d %10d %8d\n", termtext.Line(t.Topic), t.Received, t.Written, t.Dropped)
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "wrote %s\n", f)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Recorder records live topics; see the package documentation.
type Recorder struct {
	o       Options
	regexes []*regexp.Regexp
	node    *rosnode.Node
	q       *queue
	started time.Time

	mu     sync.Mutex
	topics map[string]*topicState
	order  []*topicState

	stopOnce sync.Once
	stopCh   chan struct{}
	reason   atomic.Value // string

	lastDropWarn  atomic.Int64 // unix ns
	lastLargeWarn atomic.Int64 // unix ns
	lastPollErr   string       // discover's last error, said once

	// With /use_sim_time set, message times are the latest /clock (as
	// rosbag's ros::Time::now()); simNow is 0 until the first one.
	simTime bool
	simNow  atomic.Int64
	simSeen chan struct{}
	simOnce sync.Once

	cur    atomic.Pointer[output] // for the status table
	status *statusTable

	ring      *ring // snapshot mode's buffer; nil otherwise
	running   atomic.Pointer[rosnode.Node]
	snapMu    sync.Mutex // one snapshot written at a time
	snapshots []string   // snapshot files written
}

// New validates o and returns a recorder; Run starts it. An output that
// cannot be written (an existing file without Force: an error wrapping
// fs.ErrExist; a directory; in a directory that cannot be written or made)
// fails here, before any connection is made.
func New(o Options) (*Recorder, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	res, err := o.compileTopics()
	if err != nil {
		return nil, err
	}
	if o.NodeOptions.Name == "" {
		o.NodeOptions.Name = fmt.Sprintf("/baglab_record_%d", os.Getpid())
	}
	if o.NodeOptions.Logf == nil {
		o.NodeOptions.Logf = o.Logf
	}
	r := &Recorder{o: o, regexes: res, q: newQueue(o.BufSize), topics: map[string]*topicState{}, stopCh: make(chan struct{})}
	r.q.onEvict = r.warnDrop
	if s := o.Snapshot; s != nil {
		r.ring = &ring{maxBytes: s.Size, maxAge: s.Duration}
	}
	if o.Status != nil {
		r.status = newStatusTable(o.Status)
		r.o.Logf = r.status.logf(o.Logf)
		r.o.NodeOptions.Logf = r.status.logf(o.NodeOptions.Logf)
	}
	return r, nil
}

// MemoryLimit is the memory a recording needs: its buffer (--buffsize),
// an eighth more for the garbage collector's slack, plus what does not
// grow with the buffer (released message buffers kept for reuse, 32 MiB;
// the writer's batch and chunk; the node). 0 means no bound (--buffsize 0).
// It is for the command to set as a soft limit (runtime/debug), which
// keeps the collector from letting garbage double a full buffer.
func (r *Recorder) MemoryLimit() int64 {
	if r.o.BufSize < 0 {
		return 0
	}
	return r.o.BufSize + r.o.BufSize/8 + 32<<20
}

// stop ends the recording for reason (the first reason wins).
func (r *Recorder) stop(reason string) {
	r.stopOnce.Do(func() {
		r.reason.Store(reason)
		close(r.stopCh)
	})
}

// Run records until ctx is cancelled, a limit is reached or the node is
// shut down, then drains the queue and closes the file.
func (r *Recorder) Run(ctx context.Context) (*Result, error) {
	o := &r.o
	nodeOpts := o.NodeOptions
	nodeOpts.OnShutdown = func(reason string) { r.stop("shutdown requested: " + reason) }
	nodeOpts.Now = r.now
	node, err := rosnode.New(ctx, nodeOpts)
	if err != nil {
		return nil, err
	}
	r.node = node
	defer node.Close()
	if err := r.waitForMaster(ctx); err != nil {
		return nil, err
	}
	if err := node.AdvertiseRosout(); err != nil {
		r.o.Logf("not logging to %s: %v", rosnode.RosoutTopic, err)
	}
	if err := r.followSimTime(ctx); err != nil {
		return nil, err
	}
	r.started = r.now()

	var beginWrite *rosnode.Publisher
	if o.Publish {
		beginWrite, err = node.Advertise("begin_write", rosnode.TopicInfo{Type: stringType, MD5: stringMD5, Definition: stringDef, Latching: true})
		if err != nil {
			return nil, err
		}
	}
	r.running.Store(node)
	var out *output
	if r.ring != nil {
		if err := r.serveSnapshot(); err != nil {
			return nil, err
		}
	} else if out, err = r.open(0, r.started, beginWrite); err != nil {
		return nil, err
	}

	for _, t := range o.Topics {
		if !o.Regex {
			if err := r.subscribe(node.Resolve(t), true); err != nil {
				if out != nil {
					out.w.Close()
					out.f.Close()
					os.Remove(out.active)
				}
				return nil, err
			}
		}
	}
	var wg sync.WaitGroup
	pollCtx, stopPoll := context.WithCancel(ctx)
	if o.All || o.Regex || o.Node != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.discover(pollCtx)
		}()
	}
	if status := r.status; status != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status.run(pollCtx, r)
		}()
	}

	writerDone := make(chan error, 1)
	var closed []string
	if r.ring != nil {
		go func() { writerDone <- r.snapshotLoop() }()
	} else {
		go func() { writerDone <- r.writeLoop(&out, &closed, beginWrite) }()
	}

	var werr error
	select {
	case <-ctx.Done():
		r.stop("interrupted")
	case <-r.stopCh:
	case werr = <-writerDone:
		r.stop("write error")
		writerDone = nil
	}
	stopPoll()
	wg.Wait()
	if r.status != nil {
		r.status.clear()
	}
	// Stop receiving, then drain what is queued.
	r.mu.Lock()
	order := append([]*topicState(nil), r.order...)
	r.mu.Unlock()
	for _, t := range order {
		if t.sub != nil {
			t.sub.Stop() // unregistered by node.Close, after the file is closed
		}
	}
	r.q.close()
	if writerDone != nil {
		werr = <-writerDone
	}
	res := &Result{Reason: r.reason.Load().(string)}
	res.Topics = r.topicStats(nil)
	if out != nil {
		r.rosout(rosnode.LevelInfo, fmt.Sprintf("Closing '%s'.", out.path))
		if err := out.finish(r.stats(out), node.Name()); err != nil {
			werr = errors.Join(werr, err)
		} else {
			closed = append(closed, out.path)
		}
	}
	r.snapMu.Lock()
	closed = append(closed, r.snapshots...)
	r.snapMu.Unlock()
	res.Files = closed
	return res, werr
}

// now is the recording clock: the latest /clock with sim time, else the
// wall clock.
func (r *Recorder) now() time.Time {
	if r.simTime {
		return time.Unix(0, r.simNow.Load())
	}
	return time.Now()
}

// followSimTime checks /use_sim_time and, when it is set, subscribes to
// /clock and waits for its first message, as rosbag waits for a valid time.
func (r *Recorder) followSimTime(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	v, ok, err := r.node.Master().GetParam(cctx, "/use_sim_time")
	cancel()
	if err != nil {
		return fmt.Errorf("reading /use_sim_time: %w", err)
	}
	if on, _ := v.(bool); !ok || !on {
		return nil
	}
	r.simTime = true
	r.simSeen = make(chan struct{})
	if err := r.subscribe("/clock", false); err != nil {
		return err
	}
	r.logf(rosnode.LevelInfo, "/use_sim_time is set: message times follow /clock; waiting for it")
	select {
	case <-r.simSeen:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for /clock (/use_sim_time is set): %w", ctx.Err())
	}
}

// waitForMaster waits until the master answers, as ROS nodes do.
func (r *Recorder) waitForMaster(ctx context.Context) error {
	warned := false
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := r.node.Master().GetURI(cctx)
		cancel()
		if err == nil {
			return nil
		}
		if !warned {
			r.logf(rosnode.LevelWarn, "waiting for the ROS master at %s: %v", r.node.Master().URI, err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no ROS master at %s: %w", r.node.Master().URI, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// open starts file number idx, whose --duration runs from start.
func (r *Recorder) open(idx int, start time.Time, beginWrite *rosnode.Publisher) (*output, error) {
	out, err := r.o.openOutput(r.o.outputPath(idx), start)
	if err != nil {
		return nil, err
	}
	r.cur.Store(out)
	r.rosout(rosnode.LevelInfo, fmt.Sprintf("Recording to '%s'.", out.path))
	if beginWrite != nil {
		_ = beginWrite.Publish(stringMsg(out.path))
	}
	return out, nil
}

// subscribe subscribes to topic (already resolved) unless it already is;
// record says whether its messages are recorded.
func (r *Recorder) subscribe(topic string, record bool) error {
	r.mu.Lock()
	if ts := r.topics[topic]; ts != nil {
		if record {
			ts.record.Store(true)
		}
		r.mu.Unlock()
		return nil
	}
	ts := &topicState{name: topic}
	ts.record.Store(record)
	r.topics[topic] = ts
	r.order = append(r.order, ts)
	r.mu.Unlock()
	if record {
		r.rosout(rosnode.LevelInfo, "Subscribing to "+topic)
	}
	sub, err := r.node.Subscribe(topic, rosnode.SubscribeOptions{
		OnMessage: func(m *rosnode.Message) { r.receive(ts, m) },
		Budget:    r.q,
		// A message larger than the buffer could never be kept: it is
		// dropped as it arrives, evicting nothing.
		MaxMessage: r.maxMessage(),
		OnDrop: func(c *rosnode.Connection, size int, err error) {
			if r.keep(ts) {
				ts.dropped.Add(1)
				r.warnLarge(topic, c, size, err)
			}
		},
		OnConnect: func(c *rosnode.Connection) {
			r.logf(rosnode.LevelInfo, "%s: connected to %s (%s)", topic, c.Header.Value("callerid"), c.Header.Value("type"))
		},
	})
	if err != nil {
		r.mu.Lock()
		delete(r.topics, topic)
		r.order = r.order[:len(r.order)-1]
		r.mu.Unlock()
		return err
	}
	r.mu.Lock()
	ts.sub = sub
	r.mu.Unlock()
	return nil
}

// receive queues one message, whose bytes the queue reserved as they
// arrived.
func (r *Recorder) receive(ts *topicState, m *rosnode.Message) {
	t := m.Received
	if r.simTime {
		if ts.name == "/clock" && len(m.Data) >= 8 {
			sec, nsec := binary.LittleEndian.Uint32(m.Data), binary.LittleEndian.Uint32(m.Data[4:])
			r.simNow.Store(int64(sec)*1e9 + int64(nsec))
			r.simOnce.Do(func() { close(r.simSeen) })
		}
		t = r.now()
	}
	if !r.keep(ts) {
		r.q.Release(len(m.Data))
		m.Release()
		return
	}
	ts.bytes.Add(int64(len(m.Data)))
	r.q.put(item{topic: ts, conn: m.Conn, data: m.Data, t: t, msg: m})
}

// keep counts a message of ts and says whether it is to be recorded.
func (r *Recorder) keep(ts *topicState) bool {
	if !ts.record.Load() {
		return false
	}
	if lim := int64(r.o.Limit); lim > 0 {
		if ts.received.Load() >= lim {
			return false
		}
		if ts.received.Add(1) == lim {
			ts.full.Store(true)
			r.checkLimit()
		}
	} else {
		ts.received.Add(1)
	}
	return true
}

// warnDrop says, at most every 5 s, that the buffer is full.
func (r *Recorder) warnDrop() {
	now := time.Now().UnixNano()
	if last := r.lastDropWarn.Load(); now-last > 5e9 && r.lastDropWarn.CompareAndSwap(last, now) {
		r.logf(rosnode.LevelWarn, "buffer of %s exceeded (--buffsize): dropping the oldest queued messages; %d dropped so far", human(float64(r.o.BufSize)), r.totalDropped())
	}
}

// maxMessage is the largest message that can be kept: --max-message, or
// --buffsize when that is smaller (0 for the node's limit).
func (r *Recorder) maxMessage() int {
	if r.o.BufSize > 0 && r.o.BufSize < int64(r.node.MaxMessage()) {
		return int(r.o.BufSize)
	}
	return 0
}

// warnLarge says, at most every 5 s, that a message was dropped as it
// arrived: larger than what can be kept, or with the buffer held by
// messages still arriving.
func (r *Recorder) warnLarge(topic string, c *rosnode.Connection, size int, err error) {
	now := time.Now().UnixNano()
	if last := r.lastLargeWarn.Load(); now-last > 5e9 && r.lastLargeWarn.CompareAndSwap(last, now) {
		why := "no room in the buffer (--buffsize)"
		if errors.Is(err, tcpros.ErrTooLarge) {
			why = "larger than --buffsize or --max-message"
		}
		r.logf(rosnode.LevelWarn, "%s: dropped a message of %s from %s: %s; %d dropped so far", topic, human(float64(size)), c.Header.Value("callerid"), why, r.totalDropped())
	}
}

// logf prints a log line (Options.Logf) and publishes it on /rosout at
// level, as rosbag record's ROS_INFO and ROS_WARN lines go there.
func (r *Recorder) logf(level rosnode.Level, format string, args ...any) {
	r.o.Logf(format, args...)
	r.rosout(level, fmt.Sprintf(format, args...))
}

// rosout publishes msg on /rosout at level, once Run has a node.
func (r *Recorder) rosout(level rosnode.Level, msg string) {
	if r.node != nil {
		r.node.Log(level, msg)
	}
}

func (r *Recorder) totalDropped() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, t := range r.order {
		n += t.dropped.Load()
	}
	return n
}

// checkLimit stops when every topic has reached Limit.
func (r *Recorder) checkLimit() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.order {
		if t.record.Load() && !t.full.Load() {
			return
		}
	}
	r.stop(fmt.Sprintf("every topic reached --limit %d", r.o.Limit))
}

// discover polls the master every second for topics to record.
func (r *Recorder) discover(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		r.discoverOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (r *Recorder) discoverOnce(ctx context.Context) {
	m := r.node.Master()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var topics []rosnode.TopicType
	var err error
	if r.o.Node != "" {
		var uri string
		if uri, err = m.LookupNode(cctx, r.node.Resolve(r.o.Node)); err == nil {
			topics, err = m.GetSubscriptions(cctx, uri)
		}
	} else {
		topics, err = m.GetPublishedTopics(cctx, "")
	}
	if err != nil {
		// Said once per distinct error, not every second.
		if ctx.Err() == nil && err.Error() != r.lastPollErr {
			r.logf(rosnode.LevelWarn, "polling the master for topics: %v", err)
		}
		r.lastPollErr = err.Error()
		return
	}
	r.lastPollErr = ""
	for _, tt := range topics {
		if !r.wanted(tt.Topic) {
			continue
		}
		if err := r.subscribe(tt.Topic, true); err != nil && ctx.Err() == nil {
			r.logf(rosnode.LevelError, "subscribing to %s: %v", tt.Topic, err)
		}
	}
}

// wanted reports whether a discovered topic is to be recorded.
func (r *Recorder) wanted(topic string) bool {
	if r.o.Exclude != nil && r.o.Exclude.MatchString(topic) {
		return false
	}
	if r.o.All || r.o.Node != "" {
		return true
	}
	for _, re := range r.regexes {
		if re.MatchString(topic) {
			return true
		}
	}
	return false
}

// writeLoop writes queued messages until the queue is closed and empty,
// splitting files and stopping at the limits. *out is the file being
// written (nil after a failure); closed collects finished files.
//
// As rosbag's writer thread does, --size and --duration are checked
// before each message is written: a file over --size, or a message
// received more than --duration after the file's start, ends the file
// (or the recording, without --split; that message and the rest are not
// written). Files split by duration follow one another on a fixed grid
// (the next starts where the last one's duration ends, never when the
// split happened to run), and the grid is also checked while no message
// arrives.
func (r *Recorder) writeLoop(outp **output, closed *[]string, beginWrite *rosnode.Publisher) error {
	o := &r.o
	var batch []item
	latched := map[string]item{} // topic + callerid -> last latched message
	idx := 0
	lastSpace := time.Time{}
	ended := false // a limit ended the recording (without --split)
	// split ends *outp and starts the next file, whose duration starts at
	// start.
	split := func(start time.Time) error {
		out := *outp
		r.rosout(rosnode.LevelInfo, fmt.Sprintf("Closing '%s'.", out.path))
		if err := out.finish(r.stats(out), r.node.Name()); err != nil {
			*outp = nil
			return err
		}
		*closed = append(*closed, out.path)
		r.pruneSplits(closed)
		idx++
		next, err := r.open(idx, start, beginWrite)
		if err != nil {
			*outp = nil
			return err
		}
		*outp = next
		now := r.now()
		for _, k := range sortedKeys(latched) {
			it := latched[k]
			if err := next.write(&it, now); err != nil {
				return fmt.Errorf("writing %s: %w", next.active, err)
			}
		}
		return nil
	}
	// due checks the limits at time t and splits or ends as they say; it
	// reports whether the recording ended.
	due := func(t time.Time, checkSize bool) (bool, error) {
		if ended {
			return true, nil
		}
		out := *outp
		if checkSize && o.Size > 0 && out.size() > o.Size {
			if !o.Split {
				ended = true
				r.stop(fmt.Sprintf("file reached --size %d MB", o.Size>>20))
				return true, nil
			}
			if err := split(out.start); err != nil {
				return true, err
			}
		}
		for o.Duration > 0 && t.Sub((*outp).start) > o.Duration {
			if !o.Split {
				ended = true
				r.stop(fmt.Sprintf("recorded for --duration %s", o.Duration))
				return true, nil
			}
			if err := split((*outp).start.Add(o.Duration)); err != nil {
				return true, err
			}
		}
		return false, nil
	}
	for {
		var done bool
		batch, done = r.q.take(batch[:0], 100*time.Millisecond)
		for i := range batch {
			it := &batch[i]
			stop, err := due(it.t, true)
			if err != nil {
				return err
			}
			if !stop {
				out := *outp
				if err := out.write(it, it.t); err != nil {
					return fmt.Errorf("writing %s: %w", out.active, err)
				}
				it.topic.written.Add(1)
				if o.RepeatLatched && it.conn.Header.Value("latching") == "1" {
					kept := *it
					kept.data, kept.msg = bytes.Clone(it.data), nil
					latched[it.topic.name+"\x00"+it.conn.Header.Value("callerid")] = kept
				}
			}
			it.release()
			*it = item{}
		}
		if !done {
			if _, err := due(r.now(), false); err != nil {
				return err
			}
		}
		if wall := time.Now(); o.MinSpace > 0 && wall.Sub(lastSpace) >= 20*time.Second {
			lastSpace = wall
			r.checkSpace((*outp).path)
		}
		if done {
			return nil
		}
	}
}

// pruneSplits deletes the oldest closed files beyond MaxSplits, not
// counting the one about to be opened, as rosbag does (recorder.cpp
// checkNumSplits): --max-splits N leaves N+1 files.
func (r *Recorder) pruneSplits(closed *[]string) {
	if r.o.MaxSplits <= 0 {
		return
	}
	for len(*closed) > r.o.MaxSplits {
		old := (*closed)[0]
		if err := os.Remove(old); err != nil {
			r.logf(rosnode.LevelWarn, "--max-splits: removing %s: %v", old, err)
		}
		*closed = (*closed)[1:]
	}
}

// checkSpace stops below MinSpace free and warns below five times that.
func (r *Recorder) checkSpace(path string) {
	free, ok := freeBytes(filepath.Dir(path))
	if !ok {
		return
	}
	switch {
	case free < r.o.MinSpace:
		r.logf(rosnode.LevelError, "less than %d MB free on the disk of %s: recording stopped (--min-space)", r.o.MinSpace>>20, path)
		r.stop("disk nearly full (--min-space)")
	case free < 5*r.o.MinSpace:
		r.logf(rosnode.LevelWarn, "less than %d MB free on the disk of %s", 5*r.o.MinSpace>>20, path)
	}
}

// stats is the statistics record for out.
func (r *Recorder) stats(out *output) Stats {
	return Stats{Node: r.node.Name(), Started: r.started, Closed: r.now(), Topics: r.topicStats(out)}
}

// topicStats snapshots every topic's counts (FileWritten for out).
func (r *Recorder) topicStats(out *output) []TopicStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := make([]TopicStats, 0, len(r.order))
	for _, t := range r.order {
		if !t.record.Load() {
			continue
		}
		s := TopicStats{Topic: t.name, Received: t.received.Load(), Written: t.written.Load(), Dropped: t.dropped.Load(),
			Evicted: t.evicted.Load(), Bytes: t.bytes.Load()}
		if out != nil {
			s.FileWritten = out.written[t]
		}
		res = append(res, s)
	}
	sort.Slice(res, func(i, j int) bool { return res[i].Topic < res[j].Topic })
	return res
}

func sortedKeys(m map[string]item) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
