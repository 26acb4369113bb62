package batches

import (
	"errors"
	"slices"
	"testing"
)

type nums struct{ v []int }

func start(write func(*nums) error) *Pipe[nums] {
	return Start(3, write, func(b *nums) { b.v = b.v[:0] }, func(b *nums) bool { return len(b.v) == 0 })
}

// TestOrderAndReuse: every batch sent is written once, in order, by one
// goroutine, through no more than the batches Start made.
func TestOrderAndReuse(t *testing.T) {
	var got []int
	seen := map[*nums]bool{}
	p := start(func(b *nums) error {
		seen[b] = true
		got = append(got, b.v...)
		return nil
	})
	var want []int
	for i := range 1000 {
		b := p.Current()
		b.v = append(b.v, i)
		want = append(want, i)
		if i%7 == 6 {
			p.Send()
		}
	}
	p.Send() // an empty batch is not sent
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("wrote %d numbers out of order or lost", len(got))
	}
	if len(seen) > len(p.All()) || len(p.All()) != 3 {
		t.Errorf("%d batches written through, %d made", len(seen), len(p.All()))
	}
}

// TestError: the first write error is returned by Err once written, by
// Sync and by Stop, and later batches are not written.
func TestError(t *testing.T) {
	bad := errors.New("disk full")
	writes := 0
	p := start(func(b *nums) error {
		writes++
		if b.v[0] == 2 {
			return bad
		}
		return nil
	})
	for i := range 5 {
		p.Current().v = append(p.Current().v, i)
		if i == 2 {
			if err := p.Sync(); !errors.Is(err, bad) {
				t.Errorf("Sync: %v", err)
			}
			if err := p.Err(); !errors.Is(err, bad) {
				t.Errorf("Err: %v", err)
			}
			continue
		}
		p.Send()
	}
	if err := p.Stop(); !errors.Is(err, bad) {
		t.Errorf("Stop: %v", err)
	}
	if writes != 3 {
		t.Errorf("%d writes, want 3 (none after the failure)", writes)
	}
}
