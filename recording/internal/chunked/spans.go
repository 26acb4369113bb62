package chunked

import (
	"cmp"
	"slices"
)

// Span is the log time range of a channel's messages: the times of its
// first and last ones.
type Span struct{ First, Last int64 }

// With returns s widened to hold t, or the span of t alone when fresh.
func (s Span) With(t int64, fresh bool) Span {
	if fresh {
		return Span{t, t}
	}
	return Span{min(s.First, t), max(s.Last, t)}
}

// Union returns the span holding both s and o.
func (s Span) Union(o Span) Span {
	return Span{min(s.First, o.First), max(s.Last, o.Last)}
}

// ByTime returns the chunks cs sorted by start time and by end time
// (stable, so ties keep the order of cs); when cs is in order already the
// slices are shared with it.
func ByTime[C any](cs []C, start, end func(C) int64) (byStart, byEnd []C) {
	byStart = cs
	if f := func(a, b C) int { return cmp.Compare(start(a), start(b)) }; !slices.IsSortedFunc(byStart, f) {
		byStart = slices.Clone(cs)
		slices.SortStableFunc(byStart, f)
	}
	byEnd = byStart
	if f := func(a, b C) int { return cmp.Compare(end(a), end(b)) }; !slices.IsSortedFunc(byEnd, f) {
		byEnd = slices.Clone(byStart)
		slices.SortStableFunc(byEnd, f)
	}
	return byStart, byEnd
}

// Extremes finds the log times of the first and last messages of one
// channel from the chunks that hold it (byStart and byEnd, see ByTime),
// reading as few of them as their time ranges allow: chunks are taken by
// start time until one starts at or after the earliest message found, and
// by end time (latest first) until one ends at or before the latest found;
// one chunk each unless chunks overlap in time. in returns the channel's
// span in one chunk (ok false when the chunk holds none of it). seed, when
// seeded, is a span already known (from chunks not listed). first and last
// say whether either end was found.
func Extremes[C any](byStart, byEnd []C, start, end func(C) int64, seed Span, seeded bool,
	in func(C) (Span, bool, error)) (s Span, first, last bool, err error) {
	s, first, last = seed, seeded, seeded
	for _, c := range byStart {
		if first && start(c) >= s.First {
			break
		}
		cs, ok, err := in(c)
		if err != nil {
			return Span{}, false, false, err
		}
		if ok && (!first || cs.First < s.First) {
			s.First, first = cs.First, true
		}
	}
	for _, c := range slices.Backward(byEnd) {
		if last && end(c) <= s.Last {
			break
		}
		cs, ok, err := in(c)
		if err != nil {
			return Span{}, false, false, err
		}
		if ok && (!last || cs.Last > s.Last) {
			s.Last, last = cs.Last, true
		}
	}
	return s, first, last, nil
}
