package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/decode/sink"
	"github.com/spf13/cobra"
)

type catOptions struct {
	g       *globalOptions
	files   []string
	sel     selectionOptions
	limit   int64
	skipBad bool
}

func newCatCmd(g *globalOptions) *cobra.Command {
	o := &catOptions{g: g}
	cmd := &cobra.Command{
		Use:   "cat FILE...",
		Short: "Print messages as NDJSON, decoded from the definitions in the file",
		Long: `Print messages as NDJSON on stdout, one per line, in log time order (several
files are merged by time):
  {"topic","type","log_time_ns","message":{...}}
Field names are exactly as defined. ROS1 time/duration appear as
{"sec","nsec"}; ROS2 builtin_interfaces keep their own fields; uint8[]/char[]
are base64 strings; NaN and ±Inf are the strings "NaN", "Infinity",
"-Infinity"; 64-bit integers are exact.`,
		Example: `  baglab cat study.bag --topics /placements --limit 5
  baglab cat run.mcap --topics '/grasp/**' --start +10s --end +20s
  baglab cat a.bag b.bag | jq -c '.message.facts[]?'`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if o.limit < 0 {
				return usageErrorf("--limit must be >= 0")
			}
			return runCat(o)
		},
	}
	o.sel.addFlags(cmd)
	cmd.Flags().Int64VarP(&o.limit, "limit", "n", 0, "stop after N messages (0 = all)")
	cmd.Flags().BoolVar(&o.skipBad, "skip-bad", false, "go on past messages that fail to decode and damaged parts of bags and MCAP files, reporting each on stderr, instead of stopping")
	return cmd
}

func runCat(o *catOptions) error {
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	var skipped int64
	var onSkip func(error)
	if o.skipBad {
		onSkip = func(err error) {
			skipped++
			o.g.note("baglab: skipped: %v", err)
		}
	}
	r, err := openInputs(o.files, onSkip)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := o.sel.filter(r)
	if err != nil {
		return err
	}
	res := decode.NewResolver(reg)
	if !o.skipBad {
		if err := requireDefinitions(r, f, res, strings.Join(o.files, ", ")); err != nil {
			return err
		}
	}
	it, err := r.Messages(f)
	if err != nil {
		return err
	}
	defer it.Close()

	out := bufio.NewWriterSize(o.g.stdout, 1<<20)
	p := newCatPipeline(o.g.ctx, res, it, runtime.GOMAXPROCS(0), o.skipBad)
	defer p.stop()
	var n int64
	for b := range p.order {
		<-b.done
		for _, e := range b.skipped {
			skipped++
			o.g.note("baglab: skipped: %v", e)
		}
		lines := b.ends
		if o.limit > 0 && n+int64(len(lines)) > o.limit {
			lines = lines[:o.limit-n]
		}
		if len(lines) > 0 {
			if _, err := out.Write(b.out[:lines[len(lines)-1]]); err != nil {
				return err
			}
		}
		n += int64(len(lines))
		b.release()
		if b.err != nil && (o.limit == 0 || n < o.limit) {
			out.Flush()
			return b.err
		}
		if o.limit > 0 && n >= o.limit {
			break
		}
	}
	if skipped > 0 {
		o.g.note("baglab: %d damaged range(s) or message(s) skipped, %d messages printed", skipped, n)
	}
	return out.Flush()
}

// catBatch is a run of consecutive messages rendered by one worker.
type catBatch struct {
	msgs    []record.Message
	arena   []byte  // the messages' data, copied out of the reader's buffers (pooled)
	out     []byte  // NDJSON lines (pooled)
	ends    []int   // end offset in out of each line
	skipped []error // messages that failed to decode, with --skip-bad
	err     error   // the error that ends the output after these lines
	done    chan struct{}
}

const (
	batchMessages = 512
	batchBytes    = 4 << 20
)

// catPipeline renders messages on several workers and hands the batches
// back in file order: the reader fills batches, workers render them, the
// caller receives them from order and waits for each one's done.
type catPipeline struct {
	order chan *catBatch
	quit  chan struct{}
}

func newCatPipeline(ctx context.Context, res *decode.Resolver, it record.Iterator, workers int, skipBad bool) *catPipeline {
	p := &catPipeline{order: make(chan *catBatch, 2*workers), quit: make(chan struct{})}
	work := make(chan *catBatch, 2*workers)
	for i := 0; i < workers; i++ {
		go func() {
			lw := newLineWriter(res)
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
			b.add(m)
			if len(b.msgs) >= batchMessages || len(b.arena) >= batchBytes {
				if !send() {
					return
				}
			}
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

// batchBuffers recycles the large buffers of written batches.
var batchBuffers sync.Pool

func getBuffer(n int) []byte {
	if b, ok := batchBuffers.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

func putBuffer(b []byte) {
	if cap(b) > 0 {
		batchBuffers.Put(&b)
	}
}

func newCatBatch() *catBatch { return &catBatch{done: make(chan struct{})} }

// release returns the batch's buffers once its output is written.
func (b *catBatch) release() {
	putBuffer(b.arena)
	putBuffer(b.out)
	b.arena, b.out, b.msgs = nil, nil, nil
}

func (b *catBatch) add(m *record.Message) {
	if b.arena == nil {
		b.arena = getBuffer(batchBytes + len(m.Data))
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
	// Base64 makes blobs 4/3 as long; a line adds its envelope and keys.
	b.out = getBuffer(len(b.arena)*4/3 + 512*len(b.msgs) + 4096)
	pos := 0
	for i := range b.msgs {
		m := &b.msgs[i]
		m.Data = b.arena[pos : pos+len(m.Data)]
		pos += len(m.Data)
		var err error
		b.out, err = lw.appendLine(b.out, m)
		if err != nil {
			if skipBad {
				b.skipped = append(b.skipped, err)
				continue
			}
			b.err = err
			return
		}
		b.ends = append(b.ends, len(b.out))
	}
}

// lineWriter renders messages as NDJSON lines.
type lineWriter struct {
	res  *decode.Resolver
	decs map[*record.Channel]decode.Decoder
	jw   *sink.JSONWriter
}

func newLineWriter(res *decode.Resolver) *lineWriter {
	return &lineWriter{res: res, decs: map[*record.Channel]decode.Decoder{}, jw: sink.NewJSONWriter()}
}

// appendLine appends m as one NDJSON line (with its newline) to dst. On
// error dst comes back as it was.
func (lw *lineWriter) appendLine(dst []byte, m *record.Message) ([]byte, error) {
	ch := m.Channel
	start := len(dst)
	b := append(dst, `{"topic":`...)
	b = sink.AppendJSONString(b, ch.Topic)
	b = append(b, `,"type":`...)
	b = sink.AppendJSONString(b, typeName(ch))
	b = append(b, `,"log_time_ns":`...)
	b = strconv.AppendInt(b, m.LogTime, 10)
	b = append(b, `,"message":`...)
	if ch.MessageEncoding == "json" {
		if !json.Valid(m.Data) {
			return dst[:start], messageError(m, &record.Error{Offset: 0, Err: record.ErrFormat, Detail: "invalid JSON message"})
		}
		b = append(b, m.Data...)
	} else {
		dec, ok := lw.decs[ch]
		if !ok {
			var err error
			dec, err = lw.res.For(ch)
			if err != nil {
				return dst[:start], record.WithFile(err, m.Source, -1, ch.Topic)
			}
			lw.decs[ch] = dec
		}
		lw.jw.Begin(b)
		if err := dec.Decode(m.Data, lw.jw); err != nil {
			return lw.jw.JSON()[:start], messageError(m, err)
		}
		b = lw.jw.JSON()
	}
	return append(b, "}\n"...), nil
}

// messageError places a codec error (offset within the message) in its file.
func messageError(m *record.Message, err error) error {
	var e *record.Error
	if !errors.As(err, &e) {
		return record.WithFile(err, m.Source, m.Offset, m.Channel.Topic)
	}
	c := *e
	c.File = m.Source
	c.Topic = m.Channel.Topic
	if c.Offset >= 0 {
		c.Detail = joinNonEmpty(fmt.Sprintf("byte %d of the %s message at log time %d", c.Offset, typeName(m.Channel), m.LogTime), c.Detail)
	}
	c.Offset = m.Offset
	return &c
}
