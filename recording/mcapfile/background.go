package mcapfile

import (
	"github.com/baglab/baglab/internal/batches"
	"github.com/foxglove/mcap/go/mcap"
)

// Batches of the background writer: a batch is sent when it holds
// batchMessages messages or batchBytes bytes of data; batchCount are
// filled and written in turn.
const (
	batchMessages = 256
	batchBytes    = 1 << 20
	batchCount    = 3
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
// a goroutine of its own (internal/batches) while the caller reads and
// converts the next ones: the library compresses each chunk in
// WriteMessage, and the caller would wait for it. Messages are copied
// into batches; every other record waits until the batches sent are
// written (sync), so the library is never used from two goroutines at
// once.
type background struct {
	pipe *batches.Pipe[batch]
}

func startBackground(w *mcap.Writer) *background {
	write := func(b *batch) error {
		for _, q := range b.msgs {
			err := w.WriteMessage(&mcap.Message{
				ChannelID: q.channel, Sequence: q.sequence, LogTime: q.logTime, PublishTime: q.pubT,
				Data: b.data[q.off : q.off+q.n : q.off+q.n],
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	reset := func(b *batch) {
		b.msgs, b.data = b.msgs[:0], b.data[:0]
		if cap(b.data) > keepBytes {
			b.data = nil
		}
	}
	empty := func(b *batch) bool { return len(b.msgs) == 0 }
	return &background{batches.Start(batchCount, write, reset, empty)}
}

// add queues a message, copying its data. It returns an earlier write's
// error.
func (bg *background) add(m *mcap.Message) error {
	if err := bg.pipe.Err(); err != nil {
		return err
	}
	b := bg.pipe.Current()
	b.msgs = append(b.msgs, queued{m.ChannelID, m.Sequence, m.LogTime, m.PublishTime, len(b.data), len(m.Data)})
	b.data = append(b.data, m.Data...)
	if len(b.msgs) == batchMessages || len(b.data) >= batchBytes {
		bg.pipe.Send()
	}
	return nil
}

// sync waits until every message queued is written, so that the caller
// may use the library's writer, and returns the first write error.
func (bg *background) sync() error { return bg.pipe.Sync() }

// stop writes what is queued and stops the goroutine; it returns the
// first write error.
func (bg *background) stop() error { return bg.pipe.Stop() }
