package play

import (
	"math"
	"time"
)

// loopSlack is how far behind the schedule a loop may start and still
// continue the previous loop's schedule.
const loopSlack = 100 * time.Millisecond

// schedule is the player's timing: it puts bag time on the wall clock (the
// player's monotonic time) at a rate from an anchor, stands still while
// paused or delayed (by the rate-control topic) and goes on from the bag
// time it stopped at, and carries a loop's end over to the next loop. It
// reads no clock: every call is given the wall time it happens at.
type schedule struct {
	rate       float64
	anchorWall time.Duration // the wall time at which anchorBag is due
	anchorBag  int64
	pausedBag  int64 // the bag time playback stopped at while paused
	paused     bool
	delayed    bool          // by the rate-control topic
	loopEnd    time.Duration // when the last loop's last message was due, or -1
}

func newSchedule(rate float64) schedule { return schedule{rate: rate, loopEnd: -1} }

// anchor puts bag time bag on the schedule at wall time wall.
func (s *schedule) anchor(wall time.Duration, bag int64) {
	s.anchorWall, s.anchorBag = wall, bag
}

// due is the wall time at which bag time t is due.
func (s *schedule) due(t int64) time.Duration {
	return s.anchorWall + time.Duration(float64(t-s.anchorBag)/s.rate)
}

// bagNow is the bag time the schedule is at, at wall time now, never past
// limit (the next message).
func (s *schedule) bagNow(now time.Duration, limit int64) int64 {
	if s.stopped() {
		return s.pausedBag
	}
	b := s.anchorBag + int64(float64(now-s.anchorWall)*s.rate)
	return min(b, limit)
}

// stopped reports whether the schedule stands still: paused, or delayed by
// the rate-control topic.
func (s *schedule) stopped() bool { return s.paused || s.delayed }

// setStopped applies change to the paused and delayed states at wall time
// now: when the schedule stops it remembers the bag time it stopped at;
// when it runs again it continues from there.
func (s *schedule) setStopped(now time.Duration, limit int64, change func()) {
	was := s.stopped()
	if !was {
		s.pausedBag = max(s.bagNow(now, limit), s.pausedBag)
	}
	change()
	if was && !s.stopped() {
		s.anchor(now, s.pausedBag)
	}
}

// setRate changes the rate at wall time now, from the bag time reached on.
func (s *schedule) setRate(now time.Duration, rate float64) {
	if s.stopped() {
		s.rate = rate
		return
	}
	bag := s.bagNow(now, math.MaxInt64)
	s.rate = rate
	s.anchor(now, bag)
}

// endLoop notes that a loop's last message, at bag time last, went out:
// the next loop may go on from when it was due (loopStart).
func (s *schedule) endLoop(last int64) {
	s.loopEnd = -1
	if !s.stopped() {
		s.loopEnd = s.due(last)
	}
}

// loopStart is the wall time at which a pass's first message is due: now,
// or, for the next loop, when the previous loop's last message was due, as
// long as that is at most loopSlack ago, so that the time a pass takes to
// start (reopening, seeking) is not added to every loop. rosbag play
// carries its clock over from one loop to the next the same way; after a
// loop that fell further behind (or ended paused), the next one starts
// now, so that it does not catch up in a burst.
func (s *schedule) loopStart(now time.Duration) time.Duration {
	if s.loopEnd >= 0 && now >= s.loopEnd && now-s.loopEnd <= loopSlack {
		return s.loopEnd
	}
	return now
}
