package foxglove

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/live/play"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Speed bounds of a PlaybackControlRequest, as the SDK's example player
// clamps them.
const (
	MinSpeed = 0.01
	MaxSpeed = 100
)

// PlaybackOptions configure a Playback.
type PlaybackOptions struct {
	// Paused starts paused, until a client asks to play. Otherwise
	// playback starts once clients have subscribed to something and then
	// nothing more for AutoplayDelay, so that clients without playback
	// control (foxglove.websocket.v1, Lichtblick) see the data from its
	// start on every topic they want.
	Paused bool
	// AutoplayDelay is that quiet time after a subscription (500 ms):
	// clients subscribe topic by topic, as the npm client and the app do.
	AutoplayDelay time.Duration
	// Speed is the initial speed (1).
	Speed float64
	// TimeEvery is the period of Time messages while playing through a gap
	// between messages (100 ms), so that the clients' clocks move on.
	TimeEvery time.Duration
	// Warn, when set, receives what the playback could not do (a channel
	// without a definition, a read that failed).
	Warn func(msg string)
}

// Playback plays recordings to the clients of a Server (see Run).
type Playback struct {
	src        play.Source
	res        *decode.Resolver
	topic      func(string) bool
	skip       func(error) error
	o          PlaybackOptions
	start, end int64 // playable range, ns

	chans  map[*record.Channel]*pchan
	byKey  map[string]*pchan
	nextID uint32
	srv    *Server

	reqs chan controlReq
	subs chan struct{}
	done chan struct{} // closed when Run returns

	mu   sync.Mutex
	snap PlaybackState // the state, for clients that connect
}

// pchan is an advertised channel and what plays on it.
type pchan struct {
	ch    Channel
	latch bool
	keys  map[string]int // publisher (callerid) -> latch slot
	none  bool           // the channel is not played (no definition, skipped)
}

type controlReq struct {
	c *Client
	r *PlaybackControlRequest
}

// NewPlayback prepares playback of the front door's inputs: their topic
// selection and time window, their definitions (a channel whose definition
// neither the recording nor the registry has is skipped through in.Skip:
// left out under --skip-bad, an error otherwise). Several inputs (a
// folder, several files) play as one, merged in log time order.
func NewPlayback(in *recording.Inputs, o PlaybackOptions) (*Playback, error) {
	if o.Speed == 0 {
		o.Speed = 1
	}
	if !(o.Speed >= MinSpeed && o.Speed <= MaxSpeed) {
		return nil, fmt.Errorf("speed %v: must be between %v and %v", o.Speed, MinSpeed, MaxSpeed)
	}
	if o.TimeEvery <= 0 {
		o.TimeEvery = 100 * time.Millisecond
	}
	if o.AutoplayDelay <= 0 {
		o.AutoplayDelay = 500 * time.Millisecond
	}
	sum := in.Summary()
	f := in.Filter()
	p := &Playback{src: play.FromInputs(in), res: in.Resolver(), topic: f.Topic, skip: in.Skip, o: o,
		start: sum.StartNs, end: sum.EndNs, chans: map[*record.Channel]*pchan{}, byKey: map[string]*pchan{},
		nextID: 1, reqs: make(chan controlReq, 16), subs: make(chan struct{}, 1), done: make(chan struct{})}
	if f.Start != 0 {
		p.start = max(p.start, f.Start)
	}
	if f.End != 0 {
		p.end = min(p.end, f.End-1)
	}
	if p.end < p.start {
		p.end = p.start
	}
	chans, err := p.src.Channels()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(chans, func(i, j int) bool { return chans[i].Topic < chans[j].Topic })
	for _, ch := range chans {
		if _, err := p.channel(ch); err != nil {
			return nil, err
		}
	}
	p.snap = PlaybackState{Status: Paused, CurrentTime: p.start, Speed: float32(o.Speed)}
	return p, nil
}

// Range is the time range played, ns since the epoch: serverInfo's
// dataStartTime and dataEndTime.
func (p *Playback) Range() (start, end int64) { return p.start, p.end }

// Channels are the channels to advertise, one per topic (and message
// encoding and type, should one topic carry several).
func (p *Playback) Channels() []Channel {
	var chs []Channel
	for _, pc := range p.byKey {
		if !pc.none {
			chs = append(chs, pc.ch)
		}
	}
	sort.Slice(chs, func(i, j int) bool { return chs[i].ID < chs[j].ID })
	return chs
}

// ServerOptions fills in o what a server of this playback announces:
// capabilities time and playbackControl, the data's range, and the hooks
// Run needs.
func (p *Playback) ServerOptions(o Options) Options {
	o.Capabilities = append(o.Capabilities, CapTime, CapPlaybackControl)
	o.DataStart, o.DataEnd = p.start, p.end
	o.OnPlaybackControl = func(c *Client, r *PlaybackControlRequest) {
		select {
		case p.reqs <- controlReq{c: c, r: r}:
		case <-p.done:
			c.SendStatus(LevelError, "playback is over")
		}
	}
	o.OnSubscribers = func(_ uint32, n int) {
		if n > 0 {
			select {
			case p.subs <- struct{}{}:
			default:
			}
		}
	}
	o.OnConnect = func(c *Client) {
		p.mu.Lock()
		st := p.snap
		p.mu.Unlock()
		c.SendTime(st.CurrentTime)
		c.SendPlaybackState(st)
	}
	return o
}

// channelKey is what one advertised channel stands for.
func channelKey(ch *record.Channel) string {
	return ch.Topic + "\x00" + ch.MessageEncoding + "\x00" + recording.TypeName(ch)
}

// channel returns the advertised channel of a recorded one, making it
// when first met (an unindexed bag's reader hands out channels as it finds
// them); nil when the channel is not played.
func (p *Playback) channel(ch *record.Channel) (*pchan, error) {
	if pc, ok := p.chans[ch]; ok {
		return pc, nil
	}
	if p.topic != nil && !p.topic(ch.Topic) {
		p.chans[ch] = nil
		return nil, nil
	}
	key := channelKey(ch)
	pc, ok := p.byKey[key]
	if !ok {
		var err error
		if pc, err = p.newChannel(ch); err != nil {
			if err = p.skip(err); err != nil {
				return nil, err
			}
			pc = &pchan{none: true}
		}
		p.byKey[key] = pc
		if p.srv != nil && !pc.none {
			p.srv.Advertise(pc.ch)
		}
	}
	if pc.none {
		pc = nil
	}
	p.chans[ch] = pc
	return pc, nil
}

func (p *Playback) newChannel(ch *record.Channel) (*pchan, error) {
	c, err := p.res.WithDefinition(ch)
	if err != nil {
		return nil, record.WithFile(err, "", -1, ch.Topic)
	}
	s := c.Schema
	if s == nil {
		s = &record.Schema{}
	}
	enc := s.Encoding
	if enc == "" {
		switch ch.MessageEncoding {
		case "ros1":
			enc = "ros1msg"
		case "cdr":
			enc = "ros2msg"
		}
	}
	schema := string(s.Data)
	if enc == "protobuf" || enc == "flatbuffer" { // binary schemas travel in base64
		schema = base64.StdEncoding.EncodeToString(s.Data)
	}
	pc := &pchan{ch: Channel{ID: p.nextID, Topic: ch.Topic, Encoding: ch.MessageEncoding, SchemaName: s.Name,
		Schema: schema, SchemaEncoding: enc},
		latch: recording.Latched(ch) || strings.HasSuffix(ch.Topic, "/tf_static"), keys: map[string]int{}}
	p.nextID++
	return pc, nil
}

// latchSlot is the latch slot of a message's publisher on its channel.
func (pc *pchan) latchSlot(ch *record.Channel) int {
	id := ch.Metadata["callerid"]
	k, ok := pc.keys[id]
	if !ok {
		k = len(pc.keys)
		pc.keys[id] = k
	}
	return k
}

// publish sends one recorded message to the subscribers of its channel.
func (p *Playback) publish(m *record.Message) error {
	pc, err := p.channel(m.Channel)
	if err != nil || pc == nil {
		return err
	}
	slot := 0
	if pc.latch {
		slot = pc.latchSlot(m.Channel)
	}
	p.srv.Publish(pc.ch.ID, m.LogTime, m.Data, pc.latch, slot)
	return nil
}

// player is Run's state: one shared playback for every client, as the
// SDK's players keep it.
type player struct {
	status  PlaybackStatus
	speed   float64
	cur     int64 // data time reached, ns
	wall0   time.Time
	data0   int64 // data time at wall0 while playing
	it      record.Iterator
	pending *record.Message
	sent    int64 // last Time sent
	started bool  // playing started once (autoplay is done)
}

// Run plays to srv's clients until ctx ends, serving their playback
// control requests. srv must have been made with ServerOptions.
func (p *Playback) Run(ctx context.Context, srv *Server) error {
	defer close(p.done)
	p.srv = srv
	srv.Advertise(p.Channels()...)
	st := &player{status: Paused, speed: p.o.Speed, cur: p.start, sent: -1}
	defer func() {
		if st.it != nil {
			st.it.Close()
		}
	}()
	if err := p.seek(st, p.start); err != nil {
		return err
	}
	p.update(st)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var autoplay <-chan time.Time
	for {
		if st.status == Playing && st.pending == nil {
			m, err := st.it.Next()
			if err != nil {
				p.ended(st, err)
				continue
			}
			st.pending = m
		}
		wait := time.Duration(math.MaxInt64)
		if st.status == Playing {
			wait = time.Until(st.wall0.Add(time.Duration(float64(st.pending.LogTime-st.data0) / st.speed)))
			if wait <= 0 {
				if err := p.play(st); err != nil {
					return err
				}
				select {
				case r := <-p.reqs:
					if err := p.control(st, r); err != nil {
						return err
					}
				default:
				}
				if ctx.Err() != nil {
					return nil
				}
				continue
			}
			wait = min(wait, p.o.TimeEvery)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case r := <-p.reqs:
			if err := p.control(st, r); err != nil {
				return err
			}
		case <-p.subs:
			if !p.o.Paused && !st.started {
				autoplay = time.After(p.o.AutoplayDelay) // again: subscriptions come one by one
			}
		case <-autoplay:
			if !st.started && st.status == Paused {
				p.resume(st)
				p.update(st)
				srv.BroadcastPlaybackState(p.state(st, false, ""), nil)
			}
		case <-timer.C:
			if st.status == Playing {
				st.cur = p.reached(st)
				p.sendTime(st)
				p.update(st)
			}
		}
	}
}

// reached is the data time the wall clock has reached while playing,
// never before the last message sent nor past the next one.
func (p *Playback) reached(st *player) int64 {
	t := max(st.cur, st.data0+int64(float64(time.Since(st.wall0))*st.speed))
	if st.pending != nil {
		t = min(t, st.pending.LogTime)
	}
	return t
}

// play publishes the pending message, which is due.
func (p *Playback) play(st *player) error {
	m := st.pending
	st.pending = nil
	st.cur = max(st.cur, m.LogTime)
	p.sendTime(st)
	return p.publish(m)
}

func (p *Playback) sendTime(st *player) {
	if st.cur != st.sent {
		p.srv.BroadcastTime(st.cur)
		st.sent = st.cur
	}
}

// ended stops playback at the end of the data (err io.EOF) or at a read
// error, telling every client.
func (p *Playback) ended(st *player, err error) {
	if !errors.Is(err, io.EOF) {
		p.warn("reading stopped: %v", err)
		p.srv.BroadcastStatus(LevelError, fmt.Sprintf("baglab serve: reading stopped: %v", err))
	} else {
		st.cur = max(st.cur, p.end)
	}
	st.status = Ended
	p.sendTime(st)
	p.update(st)
	p.srv.BroadcastPlaybackState(p.state(st, false, ""), nil)
}

func (p *Playback) warn(format string, args ...any) {
	if p.o.Warn != nil {
		p.o.Warn(fmt.Sprintf(format, args...))
	}
}

func (p *Playback) resume(st *player) {
	st.status = Playing
	st.started = true
	st.wall0, st.data0 = time.Now(), st.cur
}

func (p *Playback) state(st *player, didSeek bool, id string) PlaybackState {
	return PlaybackState{Status: st.status, CurrentTime: st.cur, Speed: float32(st.speed), DidSeek: didSeek, RequestID: id}
}

func (p *Playback) update(st *player) {
	p.mu.Lock()
	p.snap = p.state(st, false, "")
	p.mu.Unlock()
}

// control applies a PlaybackControlRequest — seek first, then speed, then
// play or pause, as the SDK's example player does — and answers it: the
// requester gets the state with its request id, the other clients the
// same state without one. After a seek the latched and static topics'
// last messages before the new time follow the answer.
func (p *Playback) control(st *player, r controlReq) error {
	if st.status == Playing {
		st.cur = p.reached(st)
	}
	didSeek := r.r.Seek
	var latched []*record.Message
	if didSeek {
		t := min(max(r.r.SeekTime, p.start), p.end)
		var err error
		if latched, err = p.reopen(st, t); err != nil {
			return err
		}
		if st.status == Ended {
			st.status = Paused
		}
	}
	if s := float64(r.r.Speed); s > 0 && !math.IsInf(s, 0) && !math.IsNaN(s) {
		st.speed = min(max(s, MinSpeed), MaxSpeed)
	}
	switch r.r.Command {
	case CommandPlay:
		if st.status != Ended {
			p.resume(st)
		}
	case CommandPause:
		if st.status == Playing {
			st.status = Paused
		}
	}
	if st.status == Playing {
		st.wall0, st.data0 = time.Now(), st.cur
	}
	p.update(st)
	r.c.SendPlaybackState(p.state(st, didSeek, r.r.RequestID))
	p.srv.BroadcastPlaybackState(p.state(st, didSeek, ""), r.c)
	if didSeek {
		st.sent = -1
		p.sendTime(st)
		return p.resend(latched)
	}
	return nil
}

// seek starts playback at t (at the start: without a state message).
func (p *Playback) seek(st *player, t int64) error {
	latched, err := p.reopen(st, t)
	if err != nil {
		return err
	}
	return p.resend(latched)
}

// reopen moves the reading to t and returns the last message of every
// latched publisher before t, in time order, for resend.
func (p *Playback) reopen(st *player, t int64) ([]*record.Message, error) {
	if st.it != nil {
		st.it.Close()
		st.it = nil
	}
	st.pending = nil
	st.cur = t
	latched, err := p.latchedBefore(t)
	if err != nil {
		return nil, err
	}
	it, err := p.src.Messages(record.Filter{Topic: p.topic, Start: t, End: p.end + 1})
	if err != nil {
		return nil, err
	}
	st.it = it
	return latched, nil
}

// latchedBefore reads the latched channels' messages in [start, t) and
// keeps the last of each publisher.
func (p *Playback) latchedBefore(t int64) ([]*record.Message, error) {
	topics := map[string]bool{}
	for _, pc := range p.chans {
		if pc != nil && pc.latch {
			topics[pc.ch.Topic] = true
		}
	}
	if len(topics) == 0 || t <= p.start {
		return nil, nil
	}
	it, err := p.src.Messages(record.Filter{Topic: func(s string) bool { return topics[s] }, Start: p.start, End: t})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	type slot struct {
		ch  uint32
		key int
	}
	last := map[slot]*record.Message{}
	for {
		m, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		pc, err := p.channel(m.Channel)
		if err != nil {
			return nil, err
		}
		if pc == nil || !pc.latch {
			continue
		}
		c := *m
		c.Data = append([]byte(nil), m.Data...)
		last[slot{pc.ch.ID, pc.latchSlot(m.Channel)}] = &c
	}
	msgs := make([]*record.Message, 0, len(last))
	for _, m := range last {
		msgs = append(msgs, m)
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].LogTime < msgs[j].LogTime })
	return msgs, nil
}

// resend replaces the kept latched messages with msgs and sends them.
func (p *Playback) resend(msgs []*record.Message) error {
	p.srv.ResetLatched()
	for _, m := range msgs {
		if err := p.publish(m); err != nil {
			return err
		}
	}
	return nil
}
