package timesync

import (
	"fmt"
	"slices"
)

// Policy chooses how sets are matched.
type Policy int

const (
	// Approximate is message_filters.ApproximateTimeSynchronizer.
	Approximate Policy = iota
	// Exact is message_filters.TimeSynchronizer: equal stamps only.
	Exact
)

// ParsePolicy parses "approximate" or "exact".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "approximate", "approx":
		return Approximate, nil
	case "exact":
		return Exact, nil
	}
	return 0, fmt.Errorf("policy %q: want approximate or exact", s)
}

func (p Policy) String() string {
	if p == Exact {
		return "exact"
	}
	return "approximate"
}

// Options configure a Sync.
type Options struct {
	Policy Policy
	// QueueSize is the number of stamps kept per input (message_filters'
	// queue_size); 10 when 0.
	QueueSize int
	// Slop is the largest difference of stamps in a set, ns
	// (Approximate only): a set spans strictly less.
	Slop int64
}

// entry is one queued message.
type entry[T any] struct {
	stamp int64
	v     T
}

// queue is one input's messages keyed by stamp in insertion order, as a
// python dict: storing a stamp again replaces the value in its place.
type queue[T any] []entry[T]

func (q queue[T]) find(stamp int64) int {
	for i := range q {
		if q[i].stamp == stamp {
			return i
		}
	}
	return -1
}

func (q *queue[T]) put(stamp int64, v T) {
	if i := q.find(stamp); i >= 0 {
		(*q)[i].v = v
		return
	}
	*q = append(*q, entry[T]{stamp, v})
}

func (q *queue[T]) del(stamp int64) {
	if i := q.find(stamp); i >= 0 {
		*q = slices.Delete(*q, i, i+1)
	}
}

// trim removes the smallest stamps while more than n are queued.
func (q *queue[T]) trim(n int) {
	for len(*q) > n {
		m := 0
		for i := range *q {
			if (*q)[i].stamp < (*q)[m].stamp {
				m = i
			}
		}
		*q = slices.Delete(*q, m, m+1)
	}
}

// Sync matches values of n inputs by stamp. It is not safe for
// concurrent use.
type Sync[T any] struct {
	o      Options
	queues []queue[T]
}

// New returns a Sync of n inputs.
func New[T any](n int, o Options) *Sync[T] {
	if o.QueueSize <= 0 {
		o.QueueSize = 10
	}
	return &Sync[T]{o: o, queues: make([]queue[T], n)}
}

// Add offers v, stamped stamp, on input i and returns the sets it
// completes, each with one value per input in input order: at most one
// for Approximate, any number (by stamp) for Exact.
func (s *Sync[T]) Add(i int, stamp int64, v T) [][]T {
	if s.o.Policy == Exact {
		return s.addExact(i, stamp, v)
	}
	return s.addApprox(i, stamp, v)
}

// addExact is TimeSynchronizer.add.
func (s *Sync[T]) addExact(i int, stamp int64, v T) [][]T {
	q := &s.queues[i]
	q.put(stamp, v)
	q.trim(s.o.QueueSize)
	var common []int64
	for _, e := range s.queues[0] {
		in := true
		for k := 1; k < len(s.queues) && in; k++ {
			in = s.queues[k].find(e.stamp) >= 0
		}
		if in {
			common = append(common, e.stamp)
		}
	}
	slices.Sort(common)
	var sets [][]T
	for _, t := range common {
		set := make([]T, len(s.queues))
		for k := range s.queues {
			set[k] = s.queues[k][s.queues[k].find(t)].v
			s.queues[k].del(t)
		}
		sets = append(sets, set)
	}
	return sets
}

// candidate is a queued stamp of another input and its distance.
type candidate struct {
	stamp, delta int64
}

// addApprox is ApproximateTimeSynchronizer.add (without its reactions to
// ROS time jumping back, which a recording replayed offline never does).
func (s *Sync[T]) addApprox(i int, stamp int64, v T) [][]T {
	q := &s.queues[i]
	q.put(stamp, v)
	q.trim(s.o.QueueSize)
	// per other input, its stamps within slop, nearest first (a stable
	// sort: ties in insertion order, as python's sorted)
	cands := make([][]candidate, 0, len(s.queues)-1)
	for k := range s.queues {
		if k == i {
			continue
		}
		var c []candidate
		for _, e := range s.queues[k] {
			d := e.stamp - stamp
			if d < 0 {
				d = -d
			}
			if d > s.o.Slop {
				continue
			}
			c = append(c, candidate{e.stamp, d})
		}
		if len(c) == 0 {
			return nil
		}
		slices.SortStableFunc(c, func(a, b candidate) int {
			switch {
			case a.delta < b.delta:
				return -1
			case a.delta > b.delta:
				return 1
			}
			return 0
		})
		cands = append(cands, c)
	}
	// itertools.product: the last input varies fastest
	idx := make([]int, len(cands))
	vv := make([]int64, len(s.queues))
	for {
		for k, n := 0, 0; k < len(s.queues); k++ {
			if k == i {
				vv[k] = stamp
				continue
			}
			vv[k] = cands[n][idx[n]].stamp
			n++
		}
		if slices.Max(vv)-slices.Min(vv) < s.o.Slop && s.allQueued(vv) {
			set := make([]T, len(s.queues))
			for k := range s.queues {
				set[k] = s.queues[k][s.queues[k].find(vv[k])].v
				s.queues[k].del(vv[k])
			}
			return [][]T{set}
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(cands[k]) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

func (s *Sync[T]) allQueued(vv []int64) bool {
	for k, t := range vv {
		if s.queues[k].find(t) < 0 {
			return false
		}
	}
	return true
}
