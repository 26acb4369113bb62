// Package batches writes batches of work on a goroutine of their own: the
// caller fills one batch while the goroutine writes the ones before, and
// each batch is reused once written. The writers whose writes would stall
// the caller's reading run beside it this way: sqlite's INSERTs, and the
// MCAP chunks, compressed meanwhile on other goroutines, handed to the
// library in order.
package batches

import (
	"sync"
	"sync/atomic"
)

// Pipe hands the batches it is sent, in order, to a write function running
// on its own goroutine. After a write fails, the batches sent are only
// reset, and the error is returned by Err, Sync and Stop.
type Pipe[B any] struct {
	write   func(*B) error
	reset   func(*B)
	empty   func(*B) bool
	all     []*B
	cur     *B
	work    chan *B
	free    chan *B
	pending sync.WaitGroup // batches sent and not yet written
	failed  atomic.Bool    // err is set
	err     error          // the first write error
	done    chan struct{}  // closed when the goroutine returns
}

// Start starts the goroutine with n batches (at least 2): one is filled
// while the others wait or are written. write writes a batch, reset
// empties one once written, and empty reports whether one holds nothing
// to write.
func Start[B any](n int, write func(*B) error, reset func(*B), empty func(*B) bool) *Pipe[B] {
	n = max(n, 2)
	p := &Pipe[B]{write: write, reset: reset, empty: empty, work: make(chan *B, n), free: make(chan *B, n), done: make(chan struct{})}
	for range n {
		p.all = append(p.all, new(B))
	}
	p.cur = p.all[0]
	for _, b := range p.all[1:] {
		p.free <- b
	}
	go p.run()
	return p
}

func (p *Pipe[B]) run() {
	defer close(p.done)
	for b := range p.work {
		if !p.failed.Load() {
			if err := p.write(b); err != nil {
				p.err = err
				p.failed.Store(true)
			}
		}
		p.reset(b)
		p.free <- b
		p.pending.Done()
	}
}

// Current is the batch being filled.
func (p *Pipe[B]) Current() *B { return p.cur }

// All lists every batch, for the caller to release what they hold once
// the Pipe is stopped.
func (p *Pipe[B]) All() []*B { return p.all }

// Err returns the first write error so far, without waiting.
func (p *Pipe[B]) Err() error {
	if p.failed.Load() {
		return p.err
	}
	return nil
}

// Send hands the current batch, unless empty, to the goroutine and makes
// a free one current, waiting for one when none is.
func (p *Pipe[B]) Send() {
	if p.empty(p.cur) {
		return
	}
	p.pending.Add(1)
	p.work <- p.cur
	p.cur = <-p.free
}

// Sync sends the current batch and waits until every batch sent is
// written, so that the caller may use what the goroutine writes to, and
// returns the first write error.
func (p *Pipe[B]) Sync() error {
	p.Send()
	p.pending.Wait()
	return p.Err()
}

// Stop writes what is queued, ends the goroutine and returns the first
// write error. The Pipe is not used afterwards.
func (p *Pipe[B]) Stop() error {
	err := p.Sync()
	close(p.work)
	<-p.done
	return err
}
