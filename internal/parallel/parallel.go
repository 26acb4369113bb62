// Package parallel runs the items of a list on a few goroutines with the
// error rules the front door, the exporter and the closing of outputs
// share: For stops at the first error and reports the first in list
// order, not the first in time; All runs every item and reports all.
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
	if err := FirstError(run(ctx, n, jobs, f, cancel)); err != nil {
		return err
	}
	return ctx.Err()
}

// All calls f for 0..n-1 on up to jobs goroutines (at least one), handing
// out the indices in order, every one whatever the others return: for
// work that must all be done, such as closing files. It returns the
// calls' errors joined in list order (errors.Join), nil when none failed.
func All(n, jobs int, f func(i int) error) error {
	return errors.Join(run(context.Background(), n, jobs, func(_ context.Context, i int) error { return f(i) }, nil)...)
}

// run is the pool of For and All: it hands out 0..n-1 in order to up to
// jobs goroutines calling f until ctx ends, calls failed (when not nil)
// after each error, and returns the calls' errors by index.
func run(ctx context.Context, n, jobs int, f func(ctx context.Context, i int) error, failed func()) []error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(jobs, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = f(ctx, i); errs[i] != nil && failed != nil {
					failed()
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
	return errs
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
