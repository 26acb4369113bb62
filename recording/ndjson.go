package recording

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math/bits"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/baglab/baglab/recording/internal/fileio"

	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// NDJSONOptions configure WriteNDJSON.
type NDJSONOptions struct {
	// Workers render messages at once (default GOMAXPROCS); the output
	// order does not depend on it.
	Workers int
	// Limit stops after this many lines (0: all).
	Limit int64
	// Fields adds envelope fields to each line after log_time_ns, in this
	// order (see NDJSONFields).
	Fields []string
	// Shape is the layout of a line: "" or "baglab" (above), or "mcap",
	// the lines `mcap cat --json` prints (see NDJSONShapes).
	Shape string
}

// WriteNDJSON writes the selected messages of in to w as NDJSON, one line
// per message in log time order:
//
//	{"topic","type","log_time_ns","message":{...}}
//
// Messages are rendered on several workers and written in order. A message
// that does not decode goes to Skip (with SkipBad it is left out). It
// returns the number of lines written.
func (in *Inputs) WriteNDJSON(ctx context.Context, w io.Writer, o NDJSONOptions) (int64, error) {
	env, err := o.envelope()
	if err != nil {
		return 0, err
	}
	it, err := in.Messages(ctx)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	workers := o.Workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := bufio.NewWriterSize(w, 1<<20)
	p := newCatPipeline(ctx, in, env, it, workers, in.o.SkipBad)
	defer p.stop()
	var n int64
	for b := range p.order {
		<-b.done
		if err := ctx.Err(); err != nil {
			b.release()
			return n, err
		}
		for _, e := range b.skipped {
			_ = in.Skip(e) // SkipBad is set: it reports
		}
		lines := b.ends
		if o.Limit > 0 && n+int64(len(lines)) > o.Limit {
			lines = lines[:o.Limit-n]
		}
		if len(lines) > 0 {
			if _, err := out.Write(b.out[:lines[len(lines)-1]]); err != nil {
				return n, err
			}
		}
		n += int64(len(lines))
		b.release()
		if b.err != nil && (o.Limit == 0 || n < o.Limit) {
			if err := out.Flush(); err != nil {
				return n, err
			}
			return n, b.err
		}
		if o.Limit > 0 && n >= o.Limit {
			break
		}
	}
	return n, out.Flush()
}

// catBatch is a run of consecutive messages rendered by one worker.
type catBatch struct {
	msgs    []record.Message
	arena   []byte  // the data of messages not Pinned, copied out of the reader's buffers (pooled)
	pinned  int     // bytes of data of Pinned messages, which stay where they are
	out     []byte  // NDJSON lines (pooled)
	ends    []int   // end offset in out of each line
	skipped []error // messages that failed to decode, with --skip-bad
	err     error   // the error that ends the output after these lines
	done    chan struct{}
}

const (
	batchMessages = 512
	batchBytes    = 1 << 20
)

// catPipeline renders messages on several workers and hands the batches
// back in file order: the reader fills batches, workers render them, the
// caller receives them from order and waits for each one's done.
type catPipeline struct {
	order chan *catBatch
	quit  chan struct{}
}

func newCatPipeline(ctx context.Context, in *Inputs, env envelope, it record.Iterator, workers int, skipBad bool) *catPipeline {
	p := &catPipeline{order: make(chan *catBatch, 2*workers), quit: make(chan struct{})}
	work := make(chan *catBatch, 2*workers)
	for i := 0; i < workers; i++ {
		go func() {
			// Pinned data lies in a mapped file, which another
			// program may cut short: render turns the fault into an
			// error.
			debug.SetPanicOnFault(true)
			lw := newLineWriter(in.newPlan(nil), env)
			for b := range work {
				b.render(lw, skipBad)
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(p.order)
		defer close(work)
		b := newCatBatch()
		send := func() bool {
			select {
			case p.order <- b:
			case <-p.quit:
				return false
			}
			if b.err == nil || len(b.msgs) > 0 {
				work <- b
			} else {
				close(b.done)
			}
			b = newCatBatch()
			return true
		}
		for {
			if err := ctx.Err(); err != nil {
				b.err = err
				send()
				return
			}
			m, err := it.Next()
			if err == io.EOF {
				if len(b.msgs) > 0 {
					send()
				}
				return
			}
			if err != nil {
				b.err = err
				send()
				return
			}
			if b.full(m) && !send() {
				return
			}
			b.add(m)
		}
	}()
	return p
}

// stop releases the reader when the caller ends early.
func (p *catPipeline) stop() {
	close(p.quit)
	for b := range p.order {
		<-b.done
	}
}

// bufferPool recycles the large buffers of written batches. Arenas and
// outputs have pools of their own: their sizes differ, and a buffer too
// small for its next use would be dropped and allocated again.
type bufferPool struct{ sync.Pool }

var arenaBuffers, outBuffers bufferPool

func (p *bufferPool) get(n int) []byte {
	// A power of two, so that the next batch's buffer fits the one
	// this gives back more often than not: each new one is memory the
	// kernel zeroes page by page.
	n = 1 << bits.Len(uint(max(n, 1)-1))
	if b, ok := p.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

func (p *bufferPool) put(b []byte) {
	if cap(b) > 0 {
		p.Put(&b)
	}
}

func newCatBatch() *catBatch { return &catBatch{done: make(chan struct{})} }

// release returns the batch's buffers once its output is written.
func (b *catBatch) release() {
	arenaBuffers.put(b.arena)
	outBuffers.put(b.out)
	b.arena, b.out, b.msgs = nil, nil, nil
}

// full says whether m must start the next batch: this one has its count
// of messages, or its arena has no room for m's data (growing the arena
// would copy megabytes on the reader's path), or its messages' data is
// enough for one batch.
func (b *catBatch) full(m *record.Message) bool {
	return len(b.msgs) >= batchMessages || len(b.msgs) > 0 && len(b.arena)+b.pinned+len(m.Data) > max(cap(b.arena), batchBytes)
}

// add adds m to the batch, copying its data into the arena unless Pinned
// (read in place: it stays valid until the iterator is closed, after the
// pipeline's last batch).
func (b *catBatch) add(m *record.Message) {
	if m.Pinned {
		b.msgs = append(b.msgs, *m)
		b.pinned += len(m.Data)
		return
	}
	if b.arena == nil {
		b.arena = arenaBuffers.get(batchBytes + len(m.Data))
	}
	start := len(b.arena)
	b.arena = append(b.arena, m.Data...)
	c := *m
	c.Data = b.arena[start:len(b.arena):len(b.arena)]
	b.msgs = append(b.msgs, c)
}

// render fills out with the batch's lines. The arena may have moved while
// it grew, so each message's data is re-sliced from it first.
func (b *catBatch) render(lw *lineWriter, skipBad bool) {
	// The output is sized as the worker's last batch grew (base64 makes
	// blobs 4/3 as long, text numbers and keys more), with some headroom:
	// growing a batch's buffer copies megabytes.
	data := len(b.arena) + b.pinned
	b.out = outBuffers.get(int(float64(data)*lw.growth) + 512*len(b.msgs) + 4096)
	pos := 0
	for i := range b.msgs {
		m := &b.msgs[i]
		if !m.Pinned {
			m.Data = b.arena[pos : pos+len(m.Data)]
			pos += len(m.Data)
		}
		cut, err := b.appendLine(lw, m)
		if err != nil {
			if skipBad && !cut {
				b.skipped = append(b.skipped, err)
				continue
			}
			b.err = err
			return
		}
		b.ends = append(b.ends, len(b.out))
	}
	if data > 0 {
		lw.growth = max(4.0/3, 1.1*float64(len(b.out))/float64(data))
	}
}

// appendLine renders m's line. A fault reading Pinned data (the file was
// cut short while mapped) is an error that ends the output (cut), even
// with skip-bad: every later message would fault too.
func (b *catBatch) appendLine(lw *lineWriter, m *record.Message) (cut bool, err error) {
	if m.Pinned {
		defer func() {
			if f := fileio.Fault(recover()); f != nil {
				cut, err = true, &record.Error{File: m.Source, Offset: m.Offset, Field: "message data", Err: record.ErrTruncated, Detail: f.Error()}
			}
		}()
	}
	b.out, err = lw.appendLine(b.out, m)
	return false, err
}

// lineWriter renders messages as NDJSON lines.
type lineWriter struct {
	plan   *Plan
	env    envelope
	jw     *sink.JSONWriter
	growth float64 // output bytes per input byte of the last batch, with headroom
}

func newLineWriter(plan *Plan, env envelope) *lineWriter {
	return &lineWriter{plan: plan, env: env, jw: sink.NewJSONWriter(), growth: 1.5}
}

// appendLine appends m as one NDJSON line (with its newline) to dst. On
// error dst comes back as it was.
func (lw *lineWriter) appendLine(dst []byte, m *record.Message) ([]byte, error) {
	ch := m.Channel
	start := len(dst)
	b := lw.env.appendHead(dst, m)
	if ch.MessageEncoding == "json" {
		if !json.Valid(m.Data) {
			return dst[:start], MessageError(m, &record.Error{Offset: 0, Err: record.ErrFormat, Detail: "invalid JSON message"})
		}
		b = append(b, m.Data...)
	} else {
		dec, _, err := lw.plan.Decoder(m)
		if err != nil {
			return dst[:start], err
		}
		lw.jw.Begin(b)
		if err := dec.Decode(m.Data, lw.jw); err != nil {
			return lw.jw.JSON()[:start], MessageError(m, err)
		}
		b = lw.jw.JSON()
	}
	return append(b, "}\n"...), nil
}
