package play

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/baglab/baglab/record"
	"golang.org/x/sync/semaphore"
)

// item is one message ready to publish: its own copy of ROS1 bytes.
type item struct {
	out      *output
	recorded string  // the recorded topic
	src      *source // its recorded publisher
	t        int64   // log time, ns since the epoch
	data     []byte
}

// readAhead reads, decompresses and converts messages on its own goroutine
// into a queue bounded in bytes, so that a slow chunk never stalls the
// schedule while the queue holds enough.
type readAhead struct {
	items  chan item
	budget *semaphore.Weighted
	limit  int64
	err    error // set before items is closed
	cancel context.CancelFunc
	done   chan struct{}
	// ready is closed once the queue is full in bytes, holds half the
	// messages it can, or the reading is over.
	ready     chan struct{}
	readyOnce sync.Once
}

// primeWait bounds how long playback waits for the read-ahead to fill
// before it starts.
const primeWait = 2 * time.Second

func startReadAhead(ctx context.Context, r Source, f record.Filter, p *plan, limit int64) (*readAhead, error) {
	it, err := r.Messages(f)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	ra := &readAhead{items: make(chan item, 16384), budget: semaphore.NewWeighted(limit), limit: limit, cancel: cancel, done: make(chan struct{}), ready: make(chan struct{})}
	go func() {
		defer close(ra.done)
		defer close(ra.items)
		defer ra.setReady()
		defer it.Close()
		ra.err = ra.fill(ctx, it, p)
	}()
	return ra, nil
}

func (ra *readAhead) fill(ctx context.Context, it record.Iterator, p *plan) error {
	for {
		m, err := it.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		conv, src, ok, err := p.converter(m.Channel)
		if err != nil {
			return record.WithFile(err, m.Source, m.Offset, m.Channel.Topic)
		}
		if !ok {
			continue
		}
		var data []byte
		if conv != nil {
			if data, err = conv(nil, m.Data); err != nil {
				err = record.WithFile(err, m.Source, m.Offset, m.Channel.Topic)
				if p.skip == nil {
					return err
				}
				if err := p.skip(err); err != nil {
					return err
				}
				continue
			}
		} else {
			data = append([]byte(nil), m.Data...)
		}
		w := ra.weight(data)
		if !ra.budget.TryAcquire(w) {
			ra.setReady() // full
			if err := ra.budget.Acquire(ctx, w); err != nil {
				return nil // stopped
			}
		}
		if len(ra.items) >= cap(ra.items)/2 {
			ra.setReady()
		}
		select {
		case ra.items <- item{out: p.byTopic[m.Channel.Topic], recorded: m.Channel.Topic, src: src, t: m.LogTime, data: data}:
		case <-ctx.Done():
			return nil
		}
	}
}

func (ra *readAhead) setReady() { ra.readyOnce.Do(func() { close(ra.ready) }) }

// primed waits (at most primeWait of real time: the reader's progress,
// not the schedule) until the queue is well filled, so that the first
// chunks' decompression is not paid on the schedule.
func (ra *readAhead) primed(ctx context.Context) error {
	t := time.NewTimer(primeWait)
	defer t.Stop()
	select {
	case <-ra.ready:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// weight is what a message counts against the budget: a message larger
// than the whole budget takes all of it.
func (ra *readAhead) weight(data []byte) int64 { return min(int64(len(data))+1, ra.limit) }

// taken returns an item's share of the budget once the player is done with it.
func (ra *readAhead) taken(it item) { ra.budget.Release(ra.weight(it.data)) }

// stop ends the reading goroutine and waits for it.
func (ra *readAhead) stop() {
	ra.cancel()
	for range ra.items {
	}
	<-ra.done
}
