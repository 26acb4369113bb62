package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestForListOrder: every index runs once without errors; with errors the
// one reported is the lowest index's, whichever failed first in time, and
// cancellations of the others never win.
func TestForListOrder(t *testing.T) {
	var runs [100]atomic.Int32
	if err := For(context.Background(), 100, 3, func(_ context.Context, i int) error {
		runs[i].Add(1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		if n := runs[i].Load(); n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	release := make(chan struct{})
	err := For(context.Background(), 2, 2, func(ctx context.Context, i int) error {
		if i == 1 { // fails first in time
			defer close(release)
			return errors.New("second")
		}
		<-release
		<-ctx.Done() // cancelled by index 1's error
		return fmt.Errorf("first: %w", ctx.Err())
	})
	if err == nil || err.Error() != "second" {
		t.Errorf("got %v, want the error that is not a cancellation", err)
	}
	err = For(context.Background(), 3, 1, func(_ context.Context, i int) error { return fmt.Errorf("e%d", i) })
	if err == nil || err.Error() != "e0" {
		t.Errorf("got %v, want e0, the lowest index's", err)
	}
}

// TestForCancelled: the error of a run whose context was cancelled is the
// cancellation.
func TestForCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := For(ctx, 5, 2, func(context.Context, int) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestAll: every index runs once even after errors, never more than jobs
// at once, and the errors come joined in list order, whichever failed
// first in time.
func TestAll(t *testing.T) {
	var runs [50]atomic.Int32
	var busy, most atomic.Int32
	release := make(chan struct{})
	err := All(50, 4, func(i int) error {
		runs[i].Add(1)
		n := busy.Add(1)
		defer busy.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		switch i {
		case 1:
			<-release // fails after index 7
			return errors.New("e1")
		case 7:
			defer close(release)
			return errors.New("e7")
		case 30:
			return errors.New("e30")
		}
		return nil
	})
	if err == nil || err.Error() != "e1\ne7\ne30" {
		t.Errorf("got %q, want e1, e7 and e30 joined in list order", err)
	}
	for i := range runs {
		if n := runs[i].Load(); n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	if m := most.Load(); m > 4 {
		t.Errorf("%d at once, want at most 4", m)
	}
	if err := All(3, 2, func(int) error { return nil }); err != nil {
		t.Errorf("no failures: %v", err)
	}
	if err := All(0, 2, func(int) error { return errors.New("called") }); err != nil {
		t.Errorf("no items: %v", err)
	}
}
