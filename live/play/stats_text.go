package play

import (
	"fmt"
	"time"

	"github.com/baglab/baglab/internal/english"
)

// String says what a run published: messages, topics, wall time, loops
// and, when messages went out on schedule, how late they were.
func (s Stats) String() string {
	text := fmt.Sprintf("published %s on %s in %.1f s", english.Count(s.Messages, "message"), english.Count(len(s.PerTopic), "topic"), s.Elapsed.Seconds())
	if s.Loops > 1 {
		text += fmt.Sprintf(" (%d loops)", s.Loops)
	}
	if s.Lateness.Count > 0 {
		text += "; sent behind schedule by " + s.Lateness.String()
	}
	return text
}

// String gives the percentiles in milliseconds: "p50 0.05 ms, p99 0.81 ms,
// max 2.10 ms".
func (l Lateness) String() string {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return fmt.Sprintf("p50 %.2f ms, p99 %.2f ms, max %.2f ms", ms(l.P50), ms(l.P99), ms(l.Max))
}
