package play

import (
	"math"
	"time"
)

// Lateness summarizes how late messages were handed to their publishers
// against the schedule (send time minus due time), over the messages
// published on schedule (not while paused, stepping or with Immediate).
type Lateness struct {
	Count         uint64
	P50, P99, Max time.Duration
}

// lateHist is a histogram of latenesses in logarithmic buckets, ten per
// decade from 1 µs: percentiles are the upper bound of their bucket
// (within 26 %), memory stays constant however long playback runs.
type lateHist struct {
	buckets [lateBuckets]uint64
	n       uint64
	max     time.Duration
}

const lateBuckets = 82 // ≤ 1 µs, then up to 100 s, then above

func lateBucket(d time.Duration) int {
	if d <= time.Microsecond {
		return 0
	}
	b := int(math.Ceil(10 * math.Log10(float64(d)/float64(time.Microsecond))))
	return min(max(b, 1), lateBuckets-1)
}

func lateBound(b int) time.Duration {
	return time.Duration(float64(time.Microsecond) * math.Pow(10, float64(b)/10))
}

func (h *lateHist) add(d time.Duration) {
	d = max(d, 0)
	h.buckets[lateBucket(d)]++
	h.n++
	h.max = max(h.max, d)
}

func (h *lateHist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	var seen uint64
	for b, c := range h.buckets {
		seen += c
		if seen >= rank {
			return min(lateBound(b), h.max)
		}
	}
	return h.max
}

func (h *lateHist) summary() Lateness {
	return Lateness{Count: h.n, P50: h.quantile(0.5), P99: h.quantile(0.99), Max: h.max}
}
