// Package parallel runs the items of a list on a few goroutines with the
// error rule the front door and the exporter share: the error reported is
// the first in list order, not the first in time.
package parallel

import (
	"context"
	"errors"
	"sync"
)

// For calls f for 0..n-1 on up to jobs goroutines (at least one), handing
// out the indices in order. After an error, or when ctx ends, it hands out
// no more and cancels the context given to f. It returns FirstError of the
// calls' errors, else ctx.Err().
func For(ctx context.Context, n, jobs int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(jobs, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = f(ctx, i); errs[i] != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := FirstError(errs); err != nil {
		return err
	}
	return ctx.Err()
}

// FirstError returns the first error of errs that is not a cancellation,
// else the first error, else nil: a cancellation only ever follows the
// error that caused it.
func FirstError(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
