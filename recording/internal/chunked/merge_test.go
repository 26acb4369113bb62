package chunked

import (
	"cmp"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/baglab/baglab/record"
)

// fakeWorker serves chunks of made-up entries; chunk i fails when bad[i].
type fakeWorker struct {
	entries [][]Entry
	bad     map[int]bool
}

func (w *fakeWorker) Close() {}
func (w *fakeWorker) Load(i int, b *Buffers) *Loaded {
	if w.bad[i] {
		return &Loaded{Base: -1, Err: errors.New("bad chunk")}
	}
	es := append(b.Entries(), w.entries[i]...)
	es, _ = Sort(es, nil, nil)
	return &Loaded{Base: 100, Entries: es, Owned: [][]byte{make([]byte, 8)}}
}

// TestMergeOrder merges random chunks that overlap in time and checks the
// result against a sort of all entries by (time, chunk position, offset).
func TestMergeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(12)
		chunks := make([]Chunk, n)
		w := &fakeWorker{entries: make([][]Entry, n), bad: map[int]bool{}}
		type key struct {
			time, pos int64
			at        uint32
		}
		var want []key
		for i := range chunks {
			pos := int64(1000 * (n - i)) // stored in reverse order
			chunks[i] = Chunk{Pos: pos, Len: 10}
			k := 1 + rng.IntN(6)
			for j := range k {
				e := Entry{Time: int64(rng.IntN(10)), At: uint32(j * 7)}
				w.entries[i] = append(w.entries[i], e)
			}
			first := true
			for _, e := range w.entries[i] {
				chunks[i].Start, chunks[i].End = min(chunks[i].Start, e.Time), max(chunks[i].End, e.Time)
				if first {
					chunks[i].Start, chunks[i].End, first = e.Time, e.Time, false
				}
			}
			if round%5 == 0 && i == 0 {
				w.bad[i] = true
				continue
			}
			for _, e := range w.entries[i] {
				want = append(want, key{e.Time, pos, e.At})
			}
		}
		slices.SortFunc(want, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.pos, b.pos), cmp.Compare(a.at, b.at))
		})
		var skipped []record.Skipped
		m := New(chunks, func() Worker { return w }, Options{Workers: 1 + round%3, SkipBad: true,
			OnSkip: func(s record.Skipped) { skipped = append(skipped, s) }})
		var got []key
		for {
			l, e, err := m.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, key{e.Time, l.Chunk.Pos, e.At})
			if l.Offset(e) != 100+int64(e.At) {
				t.Fatalf("offset %d", l.Offset(e))
			}
		}
		m.Close()
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: got %v\nwant %v", round, got, want)
		}
		if len(skipped) != len(w.bad) || len(skipped) == 1 && skipped[0].Offset != chunks[0].Pos {
			t.Fatalf("round %d: skipped %v", round, skipped)
		}
		if _, _, err := m.Next(); err != io.EOF {
			t.Fatalf("after the end: %v", err)
		}
	}
}

// TestMergeStops checks that without SkipBad a bad chunk stops the merge
// with its error, which stays.
func TestMergeStops(t *testing.T) {
	w := &fakeWorker{entries: [][]Entry{{{Time: 1}}, {{Time: 2}}}, bad: map[int]bool{1: true}}
	m := New([]Chunk{{Pos: 1, Start: 1, End: 1}, {Pos: 2, Start: 2, End: 2}}, func() Worker { return w }, Options{Workers: 2})
	defer m.Close()
	if _, e, err := m.Next(); err != nil || e.Time != 1 {
		t.Fatalf("first: %v %v", e, err)
	}
	for range 2 {
		if _, _, err := m.Next(); err == nil || err == io.EOF {
			t.Fatalf("got %v, want the chunk's error", err)
		}
	}
}

func TestSortRuns(t *testing.T) {
	es := []Entry{{Time: 1, At: 0}, {Time: 5, At: 8}, {Time: 2, At: 4}, {Time: 5, At: 2}, {Time: 0, At: 9}}
	got, _ := Sort(slices.Clone(es), []int{0, 2, 4}, nil)
	want := slices.Clone(es)
	slices.SortFunc(want, Compare)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
