package recording

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/parallel"
	"github.com/baglab/baglab/record"
)

// Messages iterates the selected messages of every recording as one
// stream in log time order (equal times in the order of the inputs, see
// Merge), every recording open until the iterator is closed. It stops
// with ctx's error when ctx ends.
func (in *Inputs) Messages(ctx context.Context) (record.Iterator, error) {
	it, _, err := in.messages(ctx, in.filter)
	return it, err
}

// MessagesWith is Messages with the filter f in place of the inputs'
// selection (a player applies its own time window).
func (in *Inputs) MessagesWith(ctx context.Context, f record.Filter) (record.Iterator, error) {
	it, _, err := in.messages(ctx, f)
	return it, err
}

// messages is MessagesWith, with the readers of the recordings its
// iterator holds open, in input order: valid until the iterator is closed.
func (in *Inputs) messages(ctx context.Context, filter record.Filter) (record.Iterator, []record.Reader, error) {
	its := make([]record.Iterator, 0, len(in.files))
	open := make([]record.Reader, 0, len(in.files))
	for _, f := range in.files {
		it, err := f.messages(filter)
		if err != nil {
			for _, it := range its {
				it.Close()
			}
			return nil, nil, err
		}
		its = append(its, it)
		open = append(open, it.r)
	}
	return in.watch(ctx, Merge(its)), open, nil
}

// File is one recording of the inputs: File(i) is the i-th of Paths.
type File struct {
	in *Inputs
	i  int
}

// File returns the i-th recording.
func (in *Inputs) File(i int) File { return File{in, i} }

// Path is the recording's path (a folder expanded, see Expand).
func (f File) Path() string { return f.in.paths[f.i] }

// Summary is the recording's summary (its Path as given).
func (f File) Summary() *record.Summary { return f.in.sums[f.i] }

// Channels lists the recording's channels.
func (f File) Channels() ([]*record.Channel, error) { return f.in.files[f.i].Channels() }

// Messages iterates the selected messages of the recording alone, which is
// open until the iterator is closed. It stops with ctx's error when ctx
// ends.
func (f File) Messages(ctx context.Context) (record.Iterator, error) {
	it, err := f.in.files[f.i].Messages(f.in.filter)
	if err != nil {
		return nil, err
	}
	return f.in.watch(ctx, it), nil
}

// Decoded iterates the messages of Messages, each with its channel's
// decoder under the one skip rule (Plan).
func (f File) Decoded(ctx context.Context) (*Decoded, error) {
	it, err := f.Messages(ctx)
	if err != nil {
		return nil, err
	}
	return &Decoded{it: it, in: f.in, plan: f.in.newPlan(nil)}, nil
}

// Decoded iterates messages with their channel's decoder (a Plan): the
// messages of a channel left out are passed over, its error reported
// through Skip once (without SkipBad it ends the reading).
type Decoded struct {
	it   record.Iterator
	in   *Inputs
	plan *Plan
}

// Next returns the next message handed on and its channel's decoder, nil
// for a JSON-encoded channel; io.EOF at the end.
func (d *Decoded) Next() (*record.Message, decode.Decoder, error) {
	for {
		m, err := d.it.Next()
		if err != nil {
			return nil, nil, err
		}
		dec, ok, err := d.plan.Decoder(m)
		if err != nil {
			if err := d.in.Skip(err); err != nil {
				return nil, nil, err
			}
		}
		if ok {
			return m, dec, nil
		}
	}
}

// Close closes the recordings read.
func (d *Decoded) Close() error { return d.it.Close() }

// watchEvery is the number of messages between checks of the context and
// progress reports.
const watchEvery = 256

// watch wraps it with the context check and the progress reports.
func (in *Inputs) watch(ctx context.Context, it record.Iterator) record.Iterator {
	return &watchedIter{it: it, ctx: ctx, progress: in.o.Progress}
}

type watchedIter struct {
	it       record.Iterator
	ctx      context.Context
	progress func(int)
	n        int
	err      error
}

func (w *watchedIter) Next() (*record.Message, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.n == watchEvery {
		if w.progress != nil {
			w.progress(w.n)
		}
		w.n = 0
		if err := w.ctx.Err(); err != nil {
			w.err = err
			return nil, err
		}
	}
	m, err := w.it.Next()
	if err != nil {
		if w.progress != nil && w.n > 0 {
			w.progress(w.n)
			w.n = 0
		}
		w.err = err
		return nil, err
	}
	w.n++
	return m, nil
}

func (w *watchedIter) Close() error { return w.it.Close() }

// Visit receives one message of the i-th input and its channel's decoder
// (nil for JSON-encoded channels).
type Visit func(file int, m *record.Message, dec decode.Decoder) error

// EachOptions configure Each.
type EachOptions struct {
	// Jobs is the number of inputs read at once (at least 1).
	Jobs int
	// Want picks the message types handed to Visit ("pkg/Type" or
	// "pkg/msg/Type" as stored); nil hands on every type. Topics whose
	// every channel is of an unwanted type are not read at all.
	Want func(typ string) bool
	// Visit gets the messages. Calls for one input come from one
	// goroutine, in that input's log time order; calls for different
	// inputs run at once.
	Visit Visit
	// Done, when set, is called after an input's last message, in the
	// goroutine that read it.
	Done func(file int) error
}

// Each reads the selected messages of every input, up to o.Jobs inputs at
// once, resolving each channel's decoder once per input. A channel whose
// decoder cannot be made goes to Skip (under SkipBad its messages are
// passed over). Each returns the first error in input order, not the
// cancellations it caused, or ctx's error when ctx ends.
func (in *Inputs) Each(ctx context.Context, o EachOptions) error {
	return parallel.For(ctx, len(in.files), o.Jobs, func(ctx context.Context, i int) error {
		return in.each(ctx, i, o)
	})
}

// each reads the i-th input for Each.
func (in *Inputs) each(ctx context.Context, i int, o EachOptions) error {
	f := in.filter
	if o.Want != nil {
		f.Topic = in.wantedTopics(i, o.Want)
	}
	it, err := in.files[i].Messages(f)
	if err != nil {
		return err
	}
	it = in.watch(ctx, it)
	defer it.Close()
	plan := in.newPlan(o.Want)
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		dec, ok, err := plan.Decoder(m)
		if err != nil {
			if err := in.Skip(err); err != nil {
				return err
			}
		}
		if !ok {
			continue
		}
		if err := o.Visit(i, m, dec); err != nil {
			return err
		}
	}
	if o.Done != nil {
		return o.Done(i)
	}
	return nil
}

// wantedTopics narrows the selection of the i-th input to the topics with
// at least one channel of a wanted type; a topic the summary does not list
// is read (and sorted per message by Each).
func (in *Inputs) wantedTopics(i int, want func(string) bool) func(string) bool {
	wanted, listed := map[string]bool{}, map[string]bool{}
	for _, t := range in.sums[i].Topics {
		listed[t.Topic] = true
		wanted[t.Topic] = wanted[t.Topic] || want(t.Type)
	}
	chans, _ := in.File(i).Channels()
	for _, ch := range chans {
		listed[ch.Topic] = true
		wanted[ch.Topic] = wanted[ch.Topic] || want(TypeName(ch))
	}
	sel := in.filter.Topic
	return func(topic string) bool {
		return (wanted[topic] || !listed[topic]) && (sel == nil || sel(topic))
	}
}

// MessageError places a codec error (its offset counted within the
// message) in the message's file: the offset becomes the message's, and
// the detail says which byte of which message failed. RepairHint knows it
// for a message that does not decode, which no repair mends.
func MessageError(m *record.Message, err error) error {
	var e *record.Error
	if !errors.As(err, &e) {
		return record.WithFile(undecodable{err}, m.Source, m.Offset, m.Channel.Topic)
	}
	c := *e
	c.Err = undecodable{c.Err}
	c.File = m.Source
	c.Topic = m.Channel.Topic
	if c.Offset >= 0 {
		where := fmt.Sprintf("byte %d of the %s message at log time %d", c.Offset, TypeName(m.Channel), m.LogTime)
		if c.Detail != "" {
			where += ", " + c.Detail
		}
		c.Detail = where
	}
	c.Offset = m.Offset
	return &c
}

// undecodable marks the cause of a MessageError; its text is the cause's.
type undecodable struct{ err error }

func (u undecodable) Error() string { return u.err.Error() }
func (u undecodable) Unwrap() error { return u.err }
