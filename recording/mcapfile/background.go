package mcapfile

import (
	"sync"
	"sync/atomic"

	"github.com/foxglove/mcap/go/mcap"
)

// Batches of the background writer: a batch is sent when it holds
// batchMessages messages or batchBytes bytes of data, and batches are
// filled and written in turn, so that at most that many are held.
const (
	batchMessages = 256
	batchBytes    = 1 << 20
	batches       = 3
	// keepBytes is the largest batch buffer kept for reuse: one very
	// large message does not pin its size.
	keepBytes = 8 << 20
)

// queued is a message waiting for the background writer; its data is
// its batch's data[off:off+n].
type queued struct {
	channel       uint16
	sequence      uint32
	logTime, pubT uint64
	off, n        int
}

type batch struct {
	msgs []queued
	data []byte
}

// background writes the messages of a Writer through the MCAP library on
// its own goroutine while the caller reads and converts the next ones: the
// library compresses each chunk in WriteMessage, and the caller would wait
// for it. Messages are copied into batches; every other record waits until
// the batches sent are written (sync), so the library is never used from
// two goroutines at once.
type background struct {
	w       *mcap.Writer
	cur     *batch
	work    chan *batch
	free    chan *batch
	pending sync.WaitGroup // batches sent and not yet written
	failed  atomic.Bool    // err is set
	err     error          // the first write error
	done    chan struct{}  // closed when the goroutine returns
}

func startBackground(w *mcap.Writer) *background {
	bg := &background{w: w, cur: &batch{}, work: make(chan *batch, batches), free: make(chan *batch, batches), done: make(chan struct{})}
	for range batches - 1 {
		bg.free <- &batch{}
	}
	go bg.run()
	return bg
}

// run writes the batches sent until work closes; after an error it only
// hands them back.
func (bg *background) run() {
	defer close(bg.done)
	for b := range bg.work {
		if !bg.failed.Load() {
			if err := bg.write(b); err != nil {
				bg.err = err
				bg.failed.Store(true)
			}
		}
		b.msgs, b.data = b.msgs[:0], b.data[:0]
		if cap(b.data) > keepBytes {
			b.data = nil
		}
		bg.free <- b
		bg.pending.Done()
	}
}

func (bg *background) write(b *batch) error {
	for _, q := range b.msgs {
		err := bg.w.WriteMessage(&mcap.Message{
			ChannelID: q.channel, Sequence: q.sequence, LogTime: q.logTime, PublishTime: q.pubT,
			Data: b.data[q.off : q.off+q.n : q.off+q.n],
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// add queues a message, copying its data. It returns an earlier write's
// error.
func (bg *background) add(m *mcap.Message) error {
	if bg.failed.Load() {
		return bg.err
	}
	b := bg.cur
	b.msgs = append(b.msgs, queued{m.ChannelID, m.Sequence, m.LogTime, m.PublishTime, len(b.data), len(m.Data)})
	b.data = append(b.data, m.Data...)
	if len(b.msgs) == batchMessages || len(b.data) >= batchBytes {
		bg.send()
	}
	return nil
}

// send hands the current batch to the goroutine and takes a free one.
func (bg *background) send() {
	if len(bg.cur.msgs) == 0 {
		return
	}
	bg.pending.Add(1)
	bg.work <- bg.cur
	bg.cur = <-bg.free
}

// sync waits until every message queued is written, so that the caller
// may use the library's writer, and returns the first write error.
func (bg *background) sync() error {
	bg.send()
	bg.pending.Wait()
	if bg.failed.Load() {
		return bg.err
	}
	return nil
}

// stop writes what is queued and stops the goroutine; it returns the
// first write error.
func (bg *background) stop() error {
	err := bg.sync()
	close(bg.work)
	<-bg.done
	return err
}
