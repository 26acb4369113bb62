package export

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/parallel"
	"github.com/baglab/baglab/record"
)

// Messages are an input's selected messages in order, each with its
// channel's decoder; a nil decoder leaves the message out (a channel
// whose messages are not exported: JSON-encoded). recording.Decoded is
// one: the messages of recording.Inputs read under its one skip rule.
type Messages interface {
	Next() (*record.Message, decode.Decoder, error)
	Close() error
}

// Input is one recording for Run.
type Input struct {
	// Path names the input in the source_file column and partitions.
	Path string
	// Open returns the input's selected messages in order with their
	// decoders; Run closes the iterator.
	Open func() (Messages, error)
	// Part, when set, names the input's partitioned part files
	// (part-<Part>.parquet) instead of its input number, so that part
	// files of any run are private to their input (the export manifest
	// passes a content hash).
	Part string
}

// Run exports inputs with up to jobs of them decoded at once. Output is the
// same as exporting them one after the other through Sources, in order:
// partitioned part files are private to their input, and a shared per-topic
// file receives each input's row groups only after all earlier inputs'.
// Memory grows with jobs (each input holds up to the memory budget). On
// error or when ctx ends Run stops and returns the first error in input
// order; the caller then calls Abort (or Close to keep what was written).
func (e *Exporter) Run(ctx context.Context, inputs []Input, jobs int) error {
	jobs = max(1, min(jobs, len(inputs)))
	first := e.reserve(len(inputs))
	e.nameParts(first, inputs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(inputs))
	started := make([]bool, len(inputs))
	var queues []chan queued
	// Inputs exported side by side into shared per-topic files queue their
	// records for the dispatch, which writes them in input order; one at
	// a time, or into private part files, they write directly.
	ordered := e.cfg.partition == PartitionNone && jobs > 1
	dispatched := make(chan error, 1)
	if ordered {
		queues = make([]chan queued, len(inputs))
		for i := range queues {
			queues[i] = make(chan queued, 1)
		}
		go func() { dispatched <- e.dispatch(queues, errs, first, inputs, cancel) }()
	}
	forErr := parallel.For(ctx, len(inputs), jobs, func(ctx context.Context, i int) error {
		started[i] = true
		s := e.newSource(first+i, inputs[i].Path)
		s.emit = s.writeDirect
		if ordered {
			q := queues[i]
			defer close(q) // after errs[i] is set
			s.emit = func(b *buffer, rec arrow.RecordBatch) error {
				select {
				case q <- queued{b, rec, b.rowBytes}:
					return nil
				case <-ctx.Done():
					rec.Release()
					return ctx.Err()
				}
			}
		}
		errs[i] = s.run(ctx, inputs[i])
		return errs[i]
	})
	if ordered {
		// the inputs For did not start (after an error) have nothing queued
		for i, q := range queues {
			if !started[i] {
				close(q)
			}
		}
		if werr := <-dispatched; werr != nil {
			return werr
		}
	}
	if err := parallel.FirstError(errs); err != nil {
		return err
	}
	return forErr
}

// queued is a record waiting for its table in input order.
type queued struct {
	b        *buffer
	rec      arrow.RecordBatch
	rowBytes int64
}

// dispatch writes the queued records of each input in input order and
// returns the first write error. After any error (its own or an input's)
// it cancels the workers and only drains (releases) the rest.
func (e *Exporter) dispatch(queues []chan queued, errs []error, first int, inputs []Input, cancel func()) error {
	var werr error
	failed := false
	for i, q := range queues {
		for it := range q {
			if !failed {
				var t *table
				if t, werr = e.table(it.b.key, it.b.info, it.b.schema, it.rowBytes); werr == nil {
					werr = t.write(it.rec, first+i, inputs[i].Path)
				}
				failed = werr != nil
			}
			it.rec.Release()
			if failed {
				cancel()
			}
		}
		// The worker closed q after setting errs[i].
		if errs[i] != nil {
			failed = true
			cancel()
		}
	}
	return werr
}

// reserve numbers n inputs and returns the first number.
func (e *Exporter) reserve(n int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	first := e.sources
	e.sources += n
	return first
}

// nameParts records the Part names of the inputs numbered from first.
func (e *Exporter) nameParts(first int, inputs []Input) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, in := range inputs {
		if in.Part != "" {
			if e.partNames == nil {
				e.partNames = map[int]string{}
			}
			e.partNames[first+i] = in.Part
		}
	}
}

// run exports one input through s and closes s.
func (s *Source) run(ctx context.Context, in Input) (err error) {
	defer func() {
		if err != nil && s.err == nil {
			s.err = err // Close drops the buffered rows
		}
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	it, err := in.Open()
	if err != nil {
		return err
	}
	defer it.Close()
	done := ctx.Done()
	for {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		m, d, err := it.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		if err := s.Write(m, d.Type(), d); err != nil {
			if s.err == nil && s.e.cfg.skipBad != nil { // a message that did not decode
				s.e.cfg.skipBad(err)
				continue
			}
			return err
		}
	}
}
