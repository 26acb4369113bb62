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
