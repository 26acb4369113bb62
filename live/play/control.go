package play

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/live/rosnode"
)

// ErrNotPlaying is returned by the control calls (SetPaused, Seek ...)
// once Run has returned.
var ErrNotPlaying = errors.New("play: playback is over")

// errSeek ends a pass over the recording for a Seek.
var errSeek = errors.New("play: seek")

// ControlServer is an Advertiser that also serves the player's services.
// Run calls ServeControl once its topics are advertised and closes what it
// returns when playback ends.
type ControlServer interface {
	ServeControl(p *Player) (io.Closer, error)
}

// do runs f in the play loop, the next time it waits or takes a message
// (during --delay and --wait-for-subscribers the call waits for playback
// to begin), and returns once f ran, when ctx ends, or with ErrNotPlaying
// when Run has returned. The control calls are safe to make from any
// goroutine while Run runs.
func (p *Player) do(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	select {
	case p.ctl <- func() { f(); close(ran) }:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.done:
		return ErrNotPlaying
	}
	<-ran
	return nil
}

// SetPaused pauses (true) or resumes (false) playback as the space key
// does, and reports whether that changed anything: false when playback
// was already paused or running, as rosbag play's pause_playback service
// answers.
func (p *Player) SetPaused(ctx context.Context, paused bool) (changed bool, err error) {
	err = p.do(ctx, func() {
		changed = paused != p.paused
		if changed {
			p.setPaused(p.clk.now(), paused, math.MaxInt64)
		}
	})
	return changed, err
}

// TogglePaused pauses or resumes and returns whether playback is now
// paused.
func (p *Player) TogglePaused(ctx context.Context) (paused bool, err error) {
	err = p.do(ctx, func() {
		p.setPaused(p.clk.now(), !p.paused, math.MaxInt64)
		paused = p.paused
	})
	return paused, err
}

// IsPaused reports whether playback is paused.
func (p *Player) IsPaused(ctx context.Context) (paused bool, err error) {
	err = p.do(ctx, func() { paused = p.paused })
	return paused, err
}

// Rate is the playback rate.
func (p *Player) Rate(ctx context.Context) (rate float64, err error) {
	err = p.do(ctx, func() { rate = p.rate })
	return rate, err
}

// SetRate changes the rate from the bag time reached on; false (and no
// change) for a rate that is not a positive number.
func (p *Player) SetRate(ctx context.Context, rate float64) (ok bool, err error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return false, nil
	}
	err = p.do(ctx, func() { p.setRate(p.clk.now(), rate) })
	return err == nil, err
}

// PlayNext publishes the next message while paused, as the s key does;
// false when playback is not paused.
func (p *Player) PlayNext(ctx context.Context) (ok bool, err error) {
	err = p.do(ctx, func() {
		ok = p.paused
		if ok {
			p.step = true
		}
	})
	return ok, err
}

// burst is a Burst under way.
type burst struct {
	want, sent uint64
	done       chan uint64 // buffered
}

// endBurst answers the Burst under way, if any, with what it sent.
func (p *Player) endBurst() {
	if p.burst != nil {
		p.burst.done <- p.burst.sent
		p.burst = nil
	}
}

// Burst publishes the next n messages at once while paused, as rosbag2's
// player bursts, and returns how many went out (fewer at the end of the
// data); 0 when playback is not paused.
func (p *Player) Burst(ctx context.Context, n uint64) (sent uint64, err error) {
	if n == 0 {
		return 0, nil
	}
	var b *burst
	err = p.do(ctx, func() {
		if !p.paused {
			return
		}
		p.endBurst()
		b = &burst{want: n, done: make(chan uint64, 1)}
		p.burst = b
	})
	if err != nil || b == nil {
		return 0, err
	}
	select {
	case sent = <-b.done:
		return sent, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Seek moves playback to bag time t (ns since the epoch, clamped to the
// part played); the latched topics get their last message before t
// again. Paused playback stays paused.
func (p *Player) Seek(ctx context.Context, t int64) error {
	return p.do(ctx, func() {
		p.seeking = true
		p.seekTo = min(max(t, p.viewStart), p.viewEnd)
	})
}

// seek restarts reading at seekTo, after the latched messages before it.
func (p *Player) seek(ctx context.Context) error {
	p.seeking, p.sought = false, true
	t := p.seekTo
	p.filter.Start = t
	p.loopEnd = -1
	latched, err := p.latchedBefore(ctx, t)
	if err != nil {
		return err
	}
	for _, it := range latched {
		if err := p.publish(it); err != nil {
			return err
		}
	}
	p.pausedBag = t
	return nil
}

// Service types: std_srvs where one fits, so that `rosservice call` works
// with ROS's standard packages alone; the three that take a number have
// rosbag2_interfaces' fields under baglab_msgs.
const (
	setBoolType = "std_srvs/SetBool"
	setBoolSrv  = "bool data # e.g. for hardware enabling / disabling\n" +
		"---\n" +
		"bool success   # indicate successful run of triggered service\n" +
		"string message # informational, e.g. for error messages\n"
	triggerType = "std_srvs/Trigger"
	triggerSrv  = "---\n" +
		"bool success   # indicate successful run of triggered service\n" +
		"string message # informational, e.g. for error messages\n"
	setRateType = "baglab_msgs/SetRate"
	setRateSrv  = "float64 rate\n---\nbool success\n"
	seekType    = "baglab_msgs/Seek"
	seekSrv     = "time time\n---\nbool success\n"
	burstType   = "baglab_msgs/Burst"
	burstSrv    = "uint64 num_messages\n---\nuint64 actually_burst\n"
)

// pauseService is rosbag play's private ~pause_playback.
const pauseService = "pause_playback"

// service is one control service: name under the node, type, and the
// handler of its request bytes.
type service struct {
	name, typ, srv string
	reqLen         int // the request's size, -1 when it varies
	handle         func(ctx context.Context, req []byte) ([]byte, error)
}

// services are the player's services, rosbag play's ~pause_playback
// first, then rosbag2's player's by their names.
func services(p *Player) []service {
	trigger := func(name string, f func(ctx context.Context) (bool, string, error)) service {
		return service{name: name, typ: triggerType, srv: triggerSrv, reqLen: 0, handle: func(ctx context.Context, _ []byte) ([]byte, error) {
			ok, msg, err := f(ctx)
			if err != nil {
				return nil, err
			}
			return boolString(ok, msg), nil
		}}
	}
	return []service{
		{name: pauseService, typ: setBoolType, srv: setBoolSrv, reqLen: 1, handle: func(ctx context.Context, b []byte) ([]byte, error) {
			paused := b[0] != 0
			changed, err := p.SetPaused(ctx, paused)
			if err != nil {
				return nil, err
			}
			return boolString(changed, pauseMessage(changed, paused)), nil
		}},
		trigger("pause", func(ctx context.Context) (bool, string, error) {
			changed, err := p.SetPaused(ctx, true)
			return changed, pauseMessage(changed, true), err
		}),
		trigger("resume", func(ctx context.Context) (bool, string, error) {
			changed, err := p.SetPaused(ctx, false)
			return changed, pauseMessage(changed, false), err
		}),
		trigger("toggle_paused", func(ctx context.Context) (bool, string, error) {
			paused, err := p.TogglePaused(ctx)
			return true, pauseMessage(true, paused), err
		}),
		trigger("is_paused", func(ctx context.Context) (bool, string, error) {
			paused, err := p.IsPaused(ctx)
			return paused, map[bool]string{true: "paused", false: "playing"}[paused], err
		}),
		trigger("get_rate", func(ctx context.Context) (bool, string, error) {
			rate, err := p.Rate(ctx)
			return true, strconv.FormatFloat(rate, 'g', -1, 64), err
		}),
		trigger("play_next", func(ctx context.Context) (bool, string, error) {
			ok, err := p.PlayNext(ctx)
			if !ok {
				return false, "play_next works while playback is paused", err
			}
			return true, "publishing the next message", err
		}),
		{name: "set_rate", typ: setRateType, srv: setRateSrv, reqLen: 8, handle: func(ctx context.Context, b []byte) ([]byte, error) {
			ok, err := p.SetRate(ctx, math.Float64frombits(binary.LittleEndian.Uint64(b)))
			return boolByte(ok), err
		}},
		{name: "seek", typ: seekType, srv: seekSrv, reqLen: 8, handle: func(ctx context.Context, b []byte) ([]byte, error) {
			sec, nsec := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
			err := p.Seek(ctx, int64(sec)*1e9+int64(nsec))
			return boolByte(err == nil), err
		}},
		{name: "burst", typ: burstType, srv: burstSrv, reqLen: 8, handle: func(ctx context.Context, b []byte) ([]byte, error) {
			sent, err := p.Burst(ctx, binary.LittleEndian.Uint64(b))
			return binary.LittleEndian.AppendUint64(nil, sent), err
		}},
	}
}

// ServeControl advertises the player's services on the node: rosbag
// play's ~pause_playback (std_srvs/SetBool) and rosbag2's player's ~pause,
// ~resume, ~toggle_paused, ~is_paused, ~get_rate, ~play_next
// (std_srvs/Trigger), ~set_rate, ~seek and ~burst (baglab_msgs, with
// rosbag2_interfaces' fields).
func (a NodeAdvertiser) ServeControl(p *Player) (io.Closer, error) {
	var open closers
	for _, s := range services(p) {
		req, resp, err := msgdef.ParseService(s.typ, s.srv, msgdef.ROS1, nil)
		if err != nil {
			open.Close()
			return nil, err
		}
		info := rosnode.ServiceInfo{Type: s.typ, MD5: msgdef.ServiceMD5(req, resp)}
		s := s
		svc, err := a.Node.AdvertiseService(a.Node.Name()+"/"+s.name, info, func(ctx context.Context, b []byte) ([]byte, error) {
			if len(b) != s.reqLen {
				return nil, fmt.Errorf("%s request of %d bytes, want %d", s.typ, len(b), s.reqLen)
			}
			return s.handle(ctx, b)
		})
		if err != nil {
			open.Close()
			return nil, err
		}
		open = append(open, svc)
	}
	return open, nil
}

// closers closes each of its members.
type closers []io.Closer

func (c closers) Close() error {
	var errs []error
	for _, x := range c {
		errs = append(errs, x.Close())
	}
	return errors.Join(errs...)
}

// pauseMessage is rosbag play's pause_playback message (player.cpp
// pauseCallback).
func pauseMessage(changed, paused bool) string {
	switch {
	case changed && paused:
		return "Playback is now paused"
	case changed:
		return "Playback is now resumed"
	case paused:
		return "Bag is already paused."
	}
	return "Bag is already running."
}

// boolString serializes a response of a bool and a string
// (std_srvs/SetBool's and Trigger's).
func boolString(success bool, message string) []byte {
	b := boolByte(success)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(message)))
	return append(b, message...)
}

func boolByte(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}
