// Package merge merges several sources, each in key order, into one
// sequence in key order, equal keys in the order of the sources: the
// k-way merge of log times behind recording.Merge (files and splits read
// as one) and the db3 reader (the split databases of a rosbag2 folder).
// The sources hold their elements; the merge only says which source comes
// next. internal/sqlitefile merges the sorted runs of a large index
// with it too.
package merge

import "container/heap"

// Merger chooses, among k sources, the one whose current element comes
// next.
type Merger struct {
	advance func(src int) (key int64, ok bool, err error)
	k       int
	h       items
	last    int // source returned last, advanced on the next call; -1 none
	started bool
}

// New merges k sources. advance moves source src to its next element and
// returns that element's key, or ok false when the source has ended; the
// source keeps the element until it is advanced again.
func New(k int, advance func(src int) (key int64, ok bool, err error)) *Merger {
	return &Merger{advance: advance, k: k, last: -1}
}

// Next advances the source it returned last (every source, the first
// time) and returns the source whose current element has the smallest
// key, the first such source on a tie; ok is false once every source has
// ended. An error of advance is returned as it is; the merge is then in
// no defined state.
func (m *Merger) Next() (src int, ok bool, err error) {
	if !m.started {
		m.started = true
		for i := 0; i < m.k; i++ {
			key, ok, err := m.advance(i)
			if err != nil {
				return 0, false, err
			}
			if ok {
				m.h = append(m.h, item{key, i})
			}
		}
		heap.Init(&m.h)
	} else if m.last >= 0 {
		key, ok, err := m.advance(m.last)
		if err != nil {
			return 0, false, err
		}
		if ok {
			m.h[0].key = key
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
		m.last = -1
	}
	if len(m.h) == 0 {
		return 0, false, nil
	}
	m.last = m.h[0].src
	return m.last, true, nil
}

// item is a source and the key of its current element.
type item struct {
	key int64
	src int
}

type items []item

func (h items) Len() int { return len(h) }
func (h items) Less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].src < h[j].src
}
func (h items) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *items) Push(x any)   { *h = append(*h, x.(item)) }
func (h *items) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
