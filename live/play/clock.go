package play

import (
	"encoding/binary"
	"time"
)

// timeSource is the player's clock: monotonic time since an origin, and
// timers on it. After a timer fires the player calls reached with its
// deadline (a test clock advances then).
type timeSource interface {
	now() time.Duration
	timer(until time.Duration) <-chan time.Time
	reached(until time.Duration)
}

// monotonic is the real clock: time.Since reads the monotonic clock, so
// NTP steps and date changes do not move playback (rosbag play uses
// CLOCK_REALTIME and does).
type monotonic struct {
	origin time.Time
	t      *time.Timer
}

func newMonotonic() *monotonic {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &monotonic{origin: time.Now(), t: t}
}

func (m *monotonic) now() time.Duration { return time.Since(m.origin) }

func (m *monotonic) timer(until time.Duration) <-chan time.Time {
	m.t.Reset(until - m.now())
	return m.t.C
}

func (m *monotonic) reached(time.Duration) {}

// The /clock topic: rosgraph_msgs/Clock, one ROS time.
const (
	clockTopic = "/clock"
	clockType  = "rosgraph_msgs/Clock"
	clockMD5   = "a9c97c1d230cfc112e270351a944ee47"
	clockDef   = "# roslib/Clock is used for publishing simulated time in ROS. \n" +
		"# This message simply communicates the current time.\n" +
		"# For more information, see http://www.ros.org/wiki/Clock\n" +
		"time clock\n"
)

// clockMessage serializes a rosgraph_msgs/Clock for ns since the epoch.
func clockMessage(ns int64) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint32(b, uint32(ns/1e9))
	binary.LittleEndian.PutUint32(b[4:], uint32(ns%1e9))
	return b
}
