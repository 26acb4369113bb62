package play

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/record"
)

// forever is a wake-up time that never comes.
const forever = time.Duration(math.MaxInt64)

// Stats counts what a Run published.
type Stats struct {
	// Messages counts every message published (latched ones re-sent
	// before Start included); /clock is not counted.
	Messages uint64
	// PerTopic counts them by output topic.
	PerTopic map[string]uint64
	// Loops is the number of passes over the recording that completed.
	Loops int
	// Elapsed is the wall time from the first message to the end.
	Elapsed time.Duration
	// Lateness is how late messages went out against the schedule, as the
	// player saw it (a subscriber sees the transport's delay on top).
	Lateness Lateness
	// Dropped counts messages that publishers dropped because a subscriber
	// did not keep up and its queue was full (publishers that count them).
	Dropped int64
}

// Player replays one recording (several files merged count as one).
type Player struct {
	r    Source
	o    Options
	plan *plan
	clk  timeSource
	keys <-chan byte
	// ctl carries the control calls (SetPaused, Seek ...) to the play
	// loop; done is closed when Run returns.
	ctl chan func()
	// rosout is where log lines also go once Run advertised it; nil
	// without a node.
	rosout   RosoutLogger
	adv      Advertiser // Run's
	done     chan struct{}
	doneOnce sync.Once

	filter         record.Filter
	viewStart      int64 // the selected part of the recording, ns
	viewEnd        int64
	pauseTopics    map[string]bool
	pauseTopicsOn  bool
	clockPub       Publisher
	started        bool  // the schedule is anchored (a loop's first message is out)
	seeking        bool  // a Seek to seekTo waits for the play loop
	sought         bool  // the pass under way starts at seekTo
	seekTo         int64 // ns
	burst          *burst
	rateSeed       int64 // the rate-control stamp until one comes: the loop's first message
	step           bool
	prevBag        int64 // the last message published, or -1
	nextTick       time.Duration
	lastClock      int64
	loopOffset     int64 // added to /clock, so that loops never move it back
	nextStatus     time.Duration
	status         string
	firstPublished time.Duration
	late           lateHist
	stats          Stats

	// schedule is the timing (rate, anchor, paused and delayed), read and
	// changed by the play loop only.
	schedule
}

// New prepares playback of r: it selects the channels o asks for and finds
// each one's ROS1 type, MD5 sum and definition (CDR channels get the
// equivalent ROS1 definition from res). Nothing is advertised yet.
func New(r Source, res *decode.Resolver, o Options) (*Player, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	sum, err := r.Summary()
	if err != nil {
		return nil, err
	}
	chans, err := r.Channels()
	if err != nil {
		return nil, err
	}
	pl, err := newPlan(chans, res, &o)
	if err != nil {
		return nil, err
	}
	if len(pl.outs) == 0 {
		return nil, fmt.Errorf("%w: no topic to play", ErrOptions)
	}
	p := &Player{r: r, o: o, plan: pl, clk: newMonotonic(), keys: o.Keys,
		ctl: make(chan func()), done: make(chan struct{}), pauseTopics: map[string]bool{}, pauseTopicsOn: len(o.PauseTopics) > 0, prevBag: -1, schedule: newSchedule(o.Rate)}
	for _, t := range o.PauseTopics {
		p.pauseTopics[t] = true
	}
	p.viewStart = sum.StartNs + int64(o.Start)
	p.viewEnd = sum.EndNs
	if o.Duration > 0 {
		p.viewEnd = min(p.viewEnd, p.viewStart+int64(o.Duration))
	}
	p.filter = record.Filter{Topic: pl.selected, Start: p.viewStart}
	if o.Duration > 0 {
		p.filter.End = p.viewStart + int64(o.Duration) + 1 // rosbag's view includes its end time
	}
	for _, out := range pl.outs {
		out.idle = !p.inView(sum, out)
	}
	if !p.selectsSome(sum) {
		p.log(rosnode.LevelWarn, fmt.Sprintf("no message of the selected topics between %v and %v into the recording", o.Start, time.Duration(p.viewEnd-sum.StartNs)))
	}
	if o.Start > 0 && p.viewStart > sum.EndNs {
		return nil, fmt.Errorf("%w: start %v is past the end of the recording (%v long)", ErrOptions, o.Start, time.Duration(sum.EndNs-sum.StartNs))
	}
	return p, nil
}

// selectsSome reports whether the summary shows a message of a played
// topic inside the time window.
func (p *Player) selectsSome(sum *record.Summary) bool {
	for _, t := range sum.Topics {
		if t.MessageCount > 0 && p.plan.selected(t.Topic) && t.EndNs >= p.viewStart && t.StartNs <= p.viewEnd {
			return true
		}
	}
	return false
}

// inView reports whether an output has a message in the selected part of
// the recording, or with Start a latched one before it, by the summary's
// topic times. rosbag play advertises only those connections, so that
// --wait-for-subscribers does not wait for a topic with nothing to play
// (one that ended before -s START).
func (p *Player) inView(sum *record.Summary, out *output) bool {
	for _, t := range sum.Topics {
		if t.MessageCount == 0 || !slices.Contains(out.recorded, t.Topic) {
			continue
		}
		if t.EndNs >= p.viewStart && t.StartNs <= p.viewEnd {
			return true
		}
		if p.o.Start > 0 && t.StartNs < p.viewStart && p.plan.latches(t.Topic) {
			return true
		}
	}
	return false
}

// Topics lists the topics Run plays, sorted by name (/clock not
// included); one with no message in the selected part of the recording
// is advertised only if a message comes after all.
func (p *Player) Topics() []Topic {
	out := make([]Topic, len(p.plan.outs))
	for i, o := range p.plan.outs {
		out[i] = o.topic
	}
	return out
}

// Run advertises every topic on adv (and, when adv is a PauseServer, the
// pause service), waits (--delay, --wait-for-subscribers), re-sends
// latched messages from before Start and plays the recording on schedule,
// looping or keeping alive as asked. It returns when playback is over or
// ctx is cancelled (not an error: the usual way to stop a loop).
func (p *Player) Run(ctx context.Context, adv Advertiser) (Stats, error) {
	defer p.doneOnce.Do(func() { close(p.done) })
	p.stats.PerTopic = map[string]uint64{}
	err := p.run(ctx, adv)
	p.clearStatus()
	if p.stats.Messages > 0 {
		p.stats.Elapsed = p.clk.now() - p.firstPublished
	}
	p.stats.Lateness = p.late.summary()
	for _, out := range p.plan.outs {
		if d, ok := out.pub.(dropCounter); ok {
			p.stats.Dropped += d.Drops()
		}
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		err = nil
	}
	return p.stats, err
}

func (p *Player) run(ctx context.Context, adv Advertiser) error {
	defer p.endBurst()
	p.adv = adv
	for _, out := range p.plan.outs {
		if !out.idle {
			if err := p.advertise(out); err != nil {
				return err
			}
		}
	}
	if p.o.Clock {
		pub, err := adv.Advertise(Topic{Name: clockTopic, Type: clockType, MD5: clockMD5, Definition: clockDef})
		if err != nil {
			return fmt.Errorf("advertise %s: %w", clockTopic, err)
		}
		p.clockPub = pub
	}
	if l, ok := adv.(RosoutLogger); ok {
		// Log lines are an extra, as in record: without them the
		// recording still plays.
		if err := l.AdvertiseRosout(); err != nil {
			p.log(rosnode.LevelWarn, fmt.Sprintf("not logging to %s: %v", rosnode.RosoutTopic, err))
		} else {
			p.rosout = l
		}
	}
	if cs, ok := adv.(ControlServer); ok {
		srv, err := cs.ServeControl(p)
		if err != nil {
			return fmt.Errorf("advertise the player's services: %w", err)
		}
		defer srv.Close()
	}
	var latched []item
	if p.o.Start > 0 {
		var err error
		if latched, err = p.latchedBefore(ctx, p.viewStart); err != nil {
			return err
		}
	}
	// The first pass starts reading now, so that it is ahead by the time
	// the delay and the wait for subscribers are over.
	ra, err := startReadAhead(ctx, p.r, p.filter, p.plan, p.o.ReadAhead)
	if err != nil {
		return err
	}
	defer ra.stop()
	if p.o.WaitForSubscribers {
		if err := p.waitForSubscribers(ctx); err != nil {
			return err
		}
	}
	if err := p.pause(ctx, p.clk.now()+p.o.Delay); err != nil {
		return err
	}
	for _, it := range latched {
		if err := p.publish(it); err != nil {
			return err
		}
	}
	p.paused = p.o.Pause
	for {
		if ra == nil {
			if ra, err = startReadAhead(ctx, p.r, p.filter, p.plan, p.o.ReadAhead); err != nil {
				return err
			}
		}
		n, first, last, err := p.playOnce(ctx, ra)
		ra.stop()
		ra = nil
		if errors.Is(err, errSeek) {
			if err := p.seek(ctx); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		p.sought = false // a seek past the last message: the next loop starts at the start
		p.stats.Loops++
		p.endBurst() // the data ended before the burst did
		if !p.o.Loop || n == 0 {
			break
		}
		p.filter.Start = p.viewStart // after a seek, the next loop starts at the start
		p.loopOffset += last - first
		p.endLoop(last)
	}
	if p.o.KeepAlive {
		for {
			if _, _, err := p.sleep(ctx, p.wakeAt(forever), nil); err != nil {
				return err
			}
			p.tick(p.clk.now(), math.MaxInt64)
		}
	}
	return p.flush(ctx)
}

// advertise advertises an output on Run's Advertiser.
func (p *Player) advertise(out *output) error {
	pub, err := p.adv.Advertise(out.topic)
	if err != nil {
		return fmt.Errorf("advertise %s: %w", out.topic.Name, err)
	}
	out.pub = pub
	return nil
}

// flush waits (at most 5 s) until every publisher that can tell has sent
// what it was given, so that the last messages are not cut off when the
// node closes.
func (p *Player) flush(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	pubs := []Publisher{p.clockPub}
	for _, out := range p.plan.outs {
		pubs = append(pubs, out.pub)
	}
	for _, pub := range pubs {
		if f, ok := pub.(flusher); ok {
			if err := f.Flush(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
		}
	}
	return nil
}

// waitForSubscribers polls every 100 ms until each publisher has a subscriber.
func (p *Player) waitForSubscribers(ctx context.Context) error {
	p.log(rosnode.LevelInfo, "waiting for a subscriber on every topic (--wait-for-subscribers)")
	for {
		ready := true
		for _, out := range p.plan.outs {
			ready = ready && (out.pub == nil || out.pub.NumSubscribers() > 0)
		}
		if ready {
			return nil
		}
		if err := p.pause(ctx, p.clk.now()+100*time.Millisecond); err != nil {
			return err
		}
	}
}

// pause waits until the monotonic time until, ignoring keys.
func (p *Player) pause(ctx context.Context, until time.Duration) error {
	if until <= p.clk.now() {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.clk.timer(until):
		p.clk.reached(until)
		return nil
	}
}

// latchedBefore returns, for every latched source (recorded callerid and
// topic), its last message before t, in time order, for Run to publish
// first, so that -s (and a seek) does not lose latched state (rosbag PR
// #1537, which publishes the last message of each latched callerid).
func (p *Player) latchedBefore(ctx context.Context, t int64) ([]item, error) {
	latchedTopic := map[string]bool{}
	p.plan.mu.Lock()
	for _, s := range p.plan.sources {
		if s.latch {
			latchedTopic[s.topic] = true
		}
	}
	p.plan.mu.Unlock()
	if len(latchedTopic) == 0 {
		return nil, nil
	}
	f := record.Filter{Topic: func(topic string) bool { return latchedTopic[topic] }, End: t}
	ra, err := startReadAhead(ctx, p.r, f, p.plan, p.o.ReadAhead)
	if err != nil {
		return nil, err
	}
	last := map[*source]item{}
	for it := range ra.items {
		ra.taken(it)
		if it.src != nil && it.src.latch {
			last[it.src] = it
		}
	}
	ra.stop()
	if ra.err != nil {
		return nil, ra.err
	}
	out := slices.SortedFunc(maps.Values(last), func(a, b item) int { return cmp.Compare(a.t, b.t) })
	return out, ctx.Err()
}

// playOnce plays the selected messages once and returns how many it
// published and the log times of the first and last.
func (p *Player) playOnce(ctx context.Context, ra *readAhead) (n int, first, last int64, err error) {
	p.started = false // no /clock until this loop's first message anchors it
	if err := ra.primed(ctx); err != nil {
		return 0, 0, 0, err
	}
	for {
		it, ok, err := p.next(ctx, ra)
		if err != nil || !ok {
			return n, first, last, err
		}
		if n == 0 {
			first = it.t
			// After a seek the schedule starts at the time sought, so
			// that the gap to the first message is kept.
			from := it.t
			if p.sought {
				from, p.sought = min(p.seekTo, it.t), false
			}
			p.anchor(p.loopStart(p.clk.now()), from)
			p.started = true
			p.pausedBag = from
			p.prevBag = -1
			p.rateSeed = it.t
		}
		err = p.waitFor(ctx, it)
		if err == nil {
			if !p.stopped() && !p.o.Immediate {
				p.late.add(p.clk.now() - p.due(it.t))
			}
			err = p.publish(it)
		}
		// Let the connections' writers run between messages, so that a
		// burst (catching up, -i, dense topics) does not overflow their
		// queues: with -i on a loaded 2-core machine this cut the drops
		// of 30 000 messages into one subscriber from 17 830 to 228.
		runtime.Gosched()
		ra.taken(it)
		if err != nil {
			return n, first, last, err
		}
		n++
		last = it.t
	}
}

// next takes the next message from the read-ahead queue, serving keys,
// /clock and the status line while it waits. A pending SetPaused is
// applied first, also when no wait is needed (behind schedule, -i).
func (p *Player) next(ctx context.Context, ra *readAhead) (item, bool, error) {
	select {
	case f := <-p.ctl:
		f()
	default:
	}
	if p.seeking {
		return item{}, false, errSeek
	}
	select {
	case it, ok := <-ra.items:
		if !ok {
			return item{}, false, ra.err
		}
		return it, true, nil
	default:
	}
	for {
		w, it, err := p.sleep(ctx, p.wakeAt(forever), ra.items)
		switch {
		case err != nil:
			return item{}, false, err
		case w == wakeItem:
			return it, true, nil
		case w == wakeClosed:
			return item{}, false, ra.err
		case p.seeking:
			return item{}, false, errSeek
		}
		p.tick(p.clk.now(), math.MaxInt64)
	}
}

// waitFor waits until it is due: its log time on the schedule, or at once
// with --immediate, after a gap longer than --skip-empty, or on a step.
func (p *Player) waitFor(ctx context.Context, it item) error {
	if p.pauseTopicsOn && p.pauseTopics[it.recorded] && !p.paused {
		p.setPaused(p.clk.now(), true, it.t)
	}
	for {
		now := p.clk.now()
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.seeking {
			return errSeek
		}
		p.rateControl(now, it.t)
		if p.stopped() {
			if p.step && p.paused {
				p.step = false
				p.pausedBag = it.t
				return nil
			}
			if p.burst != nil && p.paused {
				p.burst.sent++
				if p.burst.sent == p.burst.want {
					p.endBurst()
				}
				p.pausedBag = it.t
				return nil
			}
		} else {
			if p.o.Immediate {
				// The schedule follows the messages, so /clock is each
				// one's time (rosbag play's stepClock).
				p.anchor(now, it.t)
				return nil
			}
			if p.o.SkipEmpty > 0 && p.prevBag >= 0 && it.t-p.prevBag > int64(p.o.SkipEmpty) {
				p.anchor(now, it.t)
				return nil
			}
			if now >= p.due(it.t) {
				return nil
			}
		}
		due := forever
		switch {
		case p.delayed && !p.paused:
			due = now + rateControlPoll
		case !p.stopped():
			due = p.due(it.t)
			if p.o.RateControl != nil {
				due = min(due, now+rateControlPoll)
			}
		}
		if _, _, err := p.sleep(ctx, p.wakeAt(due), nil); err != nil {
			return err
		}
		p.tick(p.clk.now(), it.t)
	}
}

// publish sends one message, with a /clock tick first when one is due (with
// --immediate, one with every message, as rosbag play) and the schedule is
// anchored: the latched messages re-sent before Start go out before it is,
// and /clock starts at the first message played, as in rosbag play.
func (p *Player) publish(it item) error {
	now := p.clk.now()
	if p.stats.Messages == 0 {
		p.firstPublished = now
	}
	if p.clockPub != nil && p.started && (now >= p.nextTick || p.o.Immediate) {
		if err := p.publishClock(now, it.t); err != nil {
			return err
		}
	}
	if it.out.pub == nil {
		if err := p.advertise(it.out); err != nil {
			return err
		}
	}
	var err error
	if sp, ok := it.out.pub.(SourcePublisher); ok && it.src != nil {
		err = sp.PublishFrom(it.src.key, it.src.latch, it.data)
	} else {
		err = it.out.pub.Publish(it.data)
	}
	if err != nil {
		return fmt.Errorf("publish on %s: %w", it.out.topic.Name, err)
	}
	it.out.sent++
	p.stats.Messages++
	p.stats.PerTopic[it.out.topic.Name]++
	p.prevBag = it.t
	if !p.stopped() {
		p.pausedBag = it.t
	}
	p.showStatus(now, it.t)
	return nil
}

// setPaused pauses or resumes at wall time now.
func (p *Player) setPaused(now time.Duration, paused bool, limit int64) {
	p.setStopped(now, limit, func() { p.paused = paused })
}

// setStopped changes the schedule's paused and delayed states
// (schedule.setStopped) and writes the status line when it is due.
func (p *Player) setStopped(now time.Duration, limit int64, change func()) {
	p.schedule.setStopped(now, limit, change)
	p.showStatus(now, limit) // when due: never more than 1/StatusEvery
}

// rateControlPoll is how often a delayed player looks at the rate-control
// topic again.
const rateControlPoll = 10 * time.Millisecond

// rateControl delays playback while the bag time is more than
// RateControlMaxDelay ahead of the last stamp on the rate-control topic,
// as rosbag play --rate-control-topic does. Until a stamp comes (or while
// the stamps are older), each loop's first message counts as the last
// stamp, as rosbag play sets it ("so the program doesn't start
// delayed"): the first RateControlMaxDelay of the recording plays
// without one, so that a node that stamps its output only once it got
// input does not wait for playback that waits for it.
func (p *Player) rateControl(now time.Duration, limit int64) {
	if p.o.RateControl == nil {
		return
	}
	stamp, ok := p.o.RateControl()
	if !ok || stamp < p.rateSeed {
		stamp = p.rateSeed
	}
	behind := p.bagNow(now, limit)-stamp > int64(p.o.RateControlMaxDelay)
	if behind != p.delayed {
		p.setStopped(now, limit, func() { p.delayed = behind })
	}
}

// wakeAt is the earliest of due, the next /clock tick and the next status line.
func (p *Player) wakeAt(due time.Duration) time.Duration {
	w := due
	if p.clockPub != nil && p.started {
		w = min(w, p.nextTick)
	}
	if p.o.Status != nil {
		w = min(w, p.nextStatus)
	}
	return w
}

// tick publishes /clock and the status line when they are due.
func (p *Player) tick(now time.Duration, limit int64) {
	if p.clockPub != nil && p.started && now >= p.nextTick {
		_ = p.publishClock(now, limit)
	}
	p.showStatus(now, limit)
}

// publishClock publishes the schedule's bag time (plus the loop offset,
// never going back) and sets the next tick.
func (p *Player) publishClock(now time.Duration, limit int64) error {
	t := max(p.bagNow(now, limit)+p.loopOffset, p.lastClock)
	p.lastClock = t
	period := time.Duration(float64(time.Second) / p.o.ClockHz)
	p.nextTick = max(p.nextTick+period, now)
	if err := p.clockPub.Publish(clockMessage(t)); err != nil {
		return fmt.Errorf("publish on %s: %w", clockTopic, err)
	}
	return nil
}

type wake int

const (
	wakeTime wake = iota
	wakeKey
	wakeItem
	wakeClosed
)

// sleep waits until the monotonic time until, a key press, a SetPaused or
// (with items not nil) the next message, whichever comes first.
func (p *Player) sleep(ctx context.Context, until time.Duration, items <-chan item) (wake, item, error) {
	var timer <-chan time.Time
	if until != forever {
		timer = p.clk.timer(until)
	}
	select {
	case <-ctx.Done():
		return wakeTime, item{}, ctx.Err()
	case <-timer:
		p.clk.reached(until)
		return wakeTime, item{}, nil
	case k, ok := <-p.keys:
		if !ok {
			p.keys = nil
		} else {
			p.key(k)
		}
		return wakeKey, item{}, nil
	case f := <-p.ctl:
		f()
		return wakeKey, item{}, nil
	case it, ok := <-items:
		if !ok {
			return wakeClosed, item{}, nil
		}
		return wakeItem, it, nil
	}
}

// Keys understood while playing, as in rosbag play.
const (
	KeyPause       = ' ' // pause or resume
	KeyStep        = 's' // publish the next message while paused
	KeyPauseTopics = 't' // toggle pausing on --pause-topics
)

func (p *Player) key(k byte) {
	now := p.clk.now()
	switch k {
	case KeyPause:
		p.setPaused(now, !p.paused, math.MaxInt64)
	case KeyStep:
		if p.paused {
			p.step = true
		}
	case KeyPauseTopics:
		p.pauseTopicsOn = !p.pauseTopicsOn
	}
}

// log reports msg through Options.Warn and, once Run has advertised it,
// on /rosout at level.
func (p *Player) log(level rosnode.Level, msg string) {
	if p.o.Warn != nil {
		p.o.Warn(msg)
	}
	if p.rosout != nil {
		p.rosout.Log(level, msg)
	}
}

// showStatus writes the status line when it is due.
func (p *Player) showStatus(now time.Duration, limit int64) {
	if p.o.Status == nil || now < p.nextStatus {
		return
	}
	p.nextStatus = now + p.o.StatusEvery
	state := "RUNNING"
	switch {
	case p.paused:
		state = "PAUSED "
	case p.delayed:
		state = "DELAYED"
	}
	bag := p.viewStart
	if p.started {
		bag = p.bagNow(now, limit)
	}
	if p.started && limit == math.MaxInt64 && !p.stopped() && p.prevBag >= 0 {
		bag = min(bag, max(p.prevBag, p.viewEnd))
	}
	p.status = fmt.Sprintf(" [%s]  Bag Time: %17.6f   Duration: %.6f / %.6f ", state,
		float64(bag)/1e9, max(0, float64(bag-p.viewStart)/1e9), float64(p.viewEnd-p.viewStart)/1e9)
	_, _ = io.WriteString(p.o.Status, "\r"+p.status)
}

// clearStatus ends the status line.
func (p *Player) clearStatus() {
	if p.o.Status != nil && p.status != "" {
		_, _ = io.WriteString(p.o.Status, "\n")
	}
}
