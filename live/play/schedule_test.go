package play

import (
	"math"
	"testing"
	"time"
)

const never = math.MaxInt64 // no next message to stop at

// The schedule at rate 2: bag time runs twice as fast as the wall clock
// from the anchor, never past the next message.
func TestScheduleDueAndBagNow(t *testing.T) {
	s := newSchedule(2)
	s.anchor(time.Second, 100e9)
	for _, c := range []struct {
		bag  int64
		wall time.Duration
	}{{100e9, time.Second}, {102e9, 2 * time.Second}, {99e9, 500 * time.Millisecond}} {
		if got := s.due(c.bag); got != c.wall {
			t.Errorf("due(%d) = %v, want %v", c.bag, got, c.wall)
		}
		if got := s.bagNow(c.wall, never); got != c.bag {
			t.Errorf("bagNow(%v) = %d, want %d", c.wall, got, c.bag)
		}
	}
	if got := s.bagNow(3*time.Second, 101e9); got != 101e9 {
		t.Errorf("bagNow past the next message = %d, want 101e9", got)
	}
}

// Paused, the bag time stands still at where it stopped; resumed, it goes
// on from there, the pause added to every due time.
func TestSchedulePauseResume(t *testing.T) {
	s := newSchedule(1)
	s.anchor(0, 0)
	s.setStopped(2*time.Second, never, func() { s.paused = true })
	if got := s.bagNow(10*time.Second, never); got != 2e9 {
		t.Fatalf("paused at 2 s: bag time %d at 10 s, want 2e9", got)
	}
	s.setStopped(5*time.Second, never, func() { s.paused = false })
	if got := s.bagNow(6*time.Second, never); got != 3e9 {
		t.Errorf("resumed at 5 s: bag time %d at 6 s, want 3e9", got)
	}
	if got := s.due(4e9); got != 7*time.Second {
		t.Errorf("resumed at 5 s: 4 s of bag due at %v, want 7s", got)
	}
}

// Paused and delayed by rate control at once, the schedule runs again only
// when both end, from the bag time it first stopped at; a step while
// stopped (pausedBag set past it) is where it goes on from.
func TestSchedulePausedAndDelayed(t *testing.T) {
	s := newSchedule(1)
	s.anchor(0, 0)
	s.setStopped(time.Second, never, func() { s.delayed = true })
	s.setStopped(2*time.Second, never, func() { s.paused = true })
	s.setStopped(3*time.Second, never, func() { s.delayed = false })
	if !s.stopped() || s.bagNow(4*time.Second, never) != 1e9 {
		t.Fatalf("still paused: stopped %v, bag time %d, want true, 1e9", s.stopped(), s.bagNow(4*time.Second, never))
	}
	s.pausedBag = 1.5e9 // a message stepped to while paused
	s.setStopped(5*time.Second, never, func() { s.paused = false })
	if got := s.bagNow(6*time.Second, never); got != 2.5e9 {
		t.Errorf("bag time %d a second after resuming, want 2.5e9", got)
	}
	// Stopping again never moves the bag time back.
	s.pausedBag = 9e9
	s.setStopped(6*time.Second, never, func() { s.paused = true })
	if s.pausedBag != 9e9 {
		t.Errorf("stopped at bag time %d, want the later 9e9", s.pausedBag)
	}
}

// A rate change while running keeps the bag time reached and changes the
// pace from there; while paused it changes only the pace to come.
func TestScheduleSetRate(t *testing.T) {
	s := newSchedule(1)
	s.anchor(0, 0)
	s.setRate(2*time.Second, 4)
	if got := s.bagNow(2*time.Second, never); got != 2e9 {
		t.Errorf("bag time %d at the change, want 2e9", got)
	}
	if got := s.bagNow(3*time.Second, never); got != 6e9 {
		t.Errorf("bag time %d a second later at rate 4, want 6e9", got)
	}
	s.setStopped(3*time.Second, never, func() { s.paused = true })
	s.setRate(4*time.Second, 0.5)
	if s.rate != 0.5 || s.bagNow(5*time.Second, never) != 6e9 {
		t.Errorf("paused: rate %v, bag time %d, want 0.5, 6e9", s.rate, s.bagNow(5*time.Second, never))
	}
	s.setStopped(5*time.Second, never, func() { s.paused = false })
	if got := s.due(7e9); got != 7*time.Second {
		t.Errorf("7 s of bag due at %v, want 7s (1 s of bag at rate 0.5)", got)
	}
}

// The next loop goes on from when the last one's last message was due if
// that is at most loopSlack ago, else it starts now; after a loop that
// ended paused it starts now.
func TestScheduleLoopStart(t *testing.T) {
	s := newSchedule(1)
	if got := s.loopStart(5 * time.Second); got != 5*time.Second {
		t.Errorf("first loop starts at %v, want now", got)
	}
	s.anchor(0, 0)
	s.endLoop(10e9)
	for _, c := range []struct{ now, want time.Duration }{
		{10*time.Second + 50*time.Millisecond, 10 * time.Second},
		{10*time.Second + loopSlack, 10 * time.Second},
		{10*time.Second + loopSlack + 1, 10*time.Second + loopSlack + 1},
		{9 * time.Second, 9 * time.Second},
	} {
		if got := s.loopStart(c.now); got != c.want {
			t.Errorf("loopStart(%v) = %v, want %v", c.now, got, c.want)
		}
	}
	s.setStopped(11*time.Second, never, func() { s.paused = true })
	s.endLoop(10e9)
	if got := s.loopStart(10*time.Second + 50*time.Millisecond); got != 10*time.Second+50*time.Millisecond {
		t.Errorf("after a loop that ended paused: %v, want now", got)
	}
}
