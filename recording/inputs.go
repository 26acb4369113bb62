package recording

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/parallel"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/remote"
)

// ErrSelection is the cause of a selection that cannot be used: a topic
// pattern or time that does not parse, patterns that match no topic at
// all, an end before the start.
var ErrSelection = errors.New("selection")

// Selection chooses messages by topic and log time, as the user wrote them.
type Selection struct {
	// Topics are topic patterns (see TopicMatcher); none selects every topic.
	Topics []string
	// Start and End bound the log times, [Start, End) (see ParseTimeSpec);
	// relative times count from the start of the inputs.
	Start, End string
}

// InputOptions configure OpenInputs. The zero value reads every message of
// every input and stops at the first damage.
type InputOptions struct {
	// Registry serves definitions the recordings do not store
	// (msgdef.Default() when nil).
	Registry *msgdef.Registry
	// Distro is the ROS 2 distribution whose built-in common interfaces
	// serve the types a recording stores no definition of (msgdef.Distros);
	// "" takes the one the recordings name (ROSDistro) when they name a
	// built-in one, else the types every distribution defines alike.
	Distro string
	// Renames are the ROS 2 names of ROS1 types (ros1_bridge mapping
	// rules) when the inputs are copied into a ROS 2 recording; nil for
	// rosbags-convert's names.
	Renames *decode.Renames
	// Selection picks the messages the iterators hand on.
	Selection Selection
	// SkipBad goes on past damaged data — a chunk or record the container
	// cannot read, a message that does not decode, a channel whose
	// definition is missing or does not compile — reporting each to OnSkip
	// (see Skip), instead of stopping at the first.
	SkipBad bool
	// KeepUnverified, with SkipBad, keeps the messages no CRC vouches for,
	// marked record.Message.Unverified (see OpenOptions.KeepUnverified);
	// by default they are left out and reported through OnSkip.
	KeepUnverified bool
	// OnSkip receives what SkipBad skipped, a *record.Error naming the file
	// and offset.
	OnSkip func(error)
	// OnWarning receives the notes about a selection that is partly empty
	// (a topic pattern that matches nothing, a time window outside the
	// recording) and the torn end of a ROS1 bag that was never closed,
	// whose complete messages are all read (see OpenOptions.OnWarning).
	OnWarning func(string)
	// Progress, when set, is called with counts of messages read, from the
	// goroutines that read them.
	Progress func(n int)
	// Stdin is read for the path "-" (Stdin), as OpenStream reads a
	// stream; nil leaves "-" an ordinary (missing) path.
	Stdin io.Reader
	// Remote reads the URLs among the paths (see OpenOptions.Remote).
	Remote *remote.Session
}

// Inputs are the recordings a command reads: each path opened (folders
// expanded, see Expand), their combined summary, one selection, one
// definition resolver and one meaning of skip-bad for every way of reading
// them (Messages for one merged stream, Each for per-input parallel work).
//
// A recording is open only while its messages are read (Each, FileMessages,
// an iterator of Messages or of Reader(i)): what the inputs hold between
// readings is each one's summary and channels, so that thousands of
// recordings cost no more open files than their readings at once.
type Inputs struct {
	paths   []string
	given   []Given
	files   []*inputFile
	sums    []*record.Summary
	total   *record.Summary
	filter  record.Filter
	res     *decode.Resolver
	o       InputOptions
	skipped atomic.Int64
}

// OpenInputs opens every recording that paths name, reads their summaries
// and resolves o.Selection against them. A selection that does not parse
// fails before any file is opened; one that selects nothing of some
// patterns or times warns through o.OnWarning. A path that cannot be
// opened gives an *InputError, a damaged file a *record.Error, a bad
// selection an error wrapping ErrSelection.
func OpenInputs(paths []string, o InputOptions) (*Inputs, error) {
	sel, err := parseSelection(o.Selection)
	if err != nil {
		return nil, err
	}
	var expanded []string
	var given []Given
	for _, p := range paths {
		e, err := expandInputs([]string{p}, o.Stdin != nil)
		if err != nil {
			return nil, err
		}
		expanded = append(expanded, e...)
		given = append(given, Given{Path: p, Recordings: len(e)})
	}
	in := &Inputs{paths: expanded, given: given, res: decode.NewResolver(o.Registry), o: o}
	open := OpenOptions{OnWarning: func(err error) { in.warn("%v", err) }, KeepUnverified: o.KeepUnverified, Remote: o.Remote}
	if o.SkipBad {
		open.OnSkip = func(err error) { in.report(err) }
	}
	stdin := o.Stdin
	defs := newShared()
	var named []string // the distribution each recording names
	for _, p := range expanded {
		var r record.Reader
		var reopen func() (record.Reader, error)
		if p == Stdin && o.Stdin != nil {
			if stdin == nil {
				in.Close()
				return nil, &InputError{Path: p, Err: errors.New("standard input can be read only once")}
			}
			r, err = OpenStream(stdin, p, open)
			stdin = nil
		} else {
			reopen = func() (record.Reader, error) { return OpenWith(p, open) }
			r, err = OpenWith(p, open)
		}
		var f *inputFile
		if err == nil {
			named = append(named, ROSDistro(p, r))
			f, err = openInputFile(p, r, reopen, defs)
		}
		if err != nil {
			in.Close()
			return nil, err
		}
		in.files = append(in.files, f)
		in.sums = append(in.sums, f.sum)
	}
	in.total = CombineSummaries(in.sums)
	reg, err := in.registry(named)
	if err != nil {
		in.Close()
		return nil, err
	}
	if reg != in.res.Registry() {
		in.res = decode.NewResolver(reg)
	}
	in.noteMissingDefinitions()
	if in.filter, err = sel.resolve(in.total, in.warn); err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// registry is o.Registry set to the ROS 2 distribution o.Distro names,
// or else the one the recordings name (named, one per recording) when
// they agree on a built-in one; recordings that name different ones are
// said through OnWarning and get the types all distributions define alike.
func (in *Inputs) registry(named []string) (*msgdef.Registry, error) {
	reg := in.o.Registry
	if reg == nil {
		reg = msgdef.Default()
	}
	distro := in.o.Distro
	if distro == "" {
		var known []string
		for _, d := range named {
			if msgdef.IsDistro(d) && !slices.Contains(known, d) {
				known = append(known, d)
			}
		}
		switch len(known) {
		case 0:
			return reg, nil
		case 1:
			distro = known[0]
		default:
			in.warn("the recordings name different ROS 2 distributions (%s): a type they store no definition of "+
				"is decoded only when all of them define it alike (give --distro)", strings.Join(known, ", "))
			return reg, nil
		}
	}
	if reg.Distro() == distro {
		return reg, nil
	}
	reg = reg.Clone()
	if err := reg.SetDistro(distro); err != nil {
		return nil, err
	}
	return reg, nil
}

// noteMissingDefinitions says once per type, through OnWarning, that a
// definition the recording lacks (storesNoDefinition: rosbag2's schema
// encoding "unknown", an empty ROS1 message_definition) is the registry's
// (or --msg-path's). Types the registry does not know either are left to
// RequireDefinitions and SkipBad.
func (in *Inputs) noteMissingDefinitions() {
	var unknown topicsByType
	why, from := map[string]string{}, map[string]string{}
	for i := range in.files {
		chans, err := in.Channels(i)
		if err != nil {
			continue
		}
		for _, ch := range chans {
			if ch.Schema == nil || !decode.StoresNoDefinition(ch.Schema) {
				continue
			}
			dec, err := in.res.For(ch)
			if err != nil {
				continue
			}
			unknown.add(ch.Schema.Name, ch.Topic)
			why[ch.Schema.Name] = "its message_definition is empty"
			if ch.Schema.Encoding == "" {
				why[ch.Schema.Name] = "it has no message definitions"
			}
			if ch.Schema.Encoding == msgdef.EncodingUnknown {
				why[ch.Schema.Name] = fmt.Sprintf("rosbag2 wrote schema encoding %q", msgdef.EncodingUnknown)
			}
			from[ch.Schema.Name] = "the registry's definition"
			if d := dec.Type().Distro; d != "" {
				from[ch.Schema.Name] = "the built-in definition of ROS 2 " + d
			}
		}
	}
	for _, name := range unknown.types {
		in.warn("%s: the recording stores no definition of %s (%s); decoded with %s",
			strings.Join(unknown.topics[name], ", "), name, why[name], from[name])
	}
}

// Len is the number of recordings.
func (in *Inputs) Len() int { return len(in.paths) }

// Paths are the recordings, folders expanded, in the order read.
func (in *Inputs) Paths() []string { return in.paths }

// Given is a path as given to OpenInputs and how many recordings it named:
// the next Recordings of Paths (more than one for a plain folder).
type Given struct {
	Path       string
	Recordings int
}

// Given lists the paths OpenInputs was given, in order, with the
// recordings each named.
func (in *Inputs) Given() []Given { return in.given }

// Reader returns the i-th recording's reader: its summary and channels as
// read by OpenInputs; each Messages call opens the file again (a stream
// stays open) and the iterator's Close closes it. Closing the reader
// itself is left to Inputs.Close. It holds no open file, so it carries no
// metadata or attachments (Extras finds none in it): CopyTo copies those
// from the recordings its iterator has open.
func (in *Inputs) Reader(i int) record.Reader { return in.files[i] }

// FileSummary is the i-th recording's summary (its Path as given).
func (in *Inputs) FileSummary(i int) *record.Summary { return in.sums[i] }

// Channels lists the i-th recording's channels.
func (in *Inputs) Channels(i int) ([]*record.Channel, error) { return in.files[i].Channels() }

// FileOf names the recording a channel of the inputs belongs to ("" for
// a channel of none).
func (in *Inputs) FileOf(ch *record.Channel) string {
	for i := range in.files {
		chans, _ := in.Channels(i)
		for _, c := range chans {
			if c == ch {
				return in.paths[i]
			}
		}
	}
	return ""
}

// Summary is the combined summary of every recording.
func (in *Inputs) Summary() *record.Summary { return in.total }

// Filter is the resolved selection.
func (in *Inputs) Filter() record.Filter { return in.filter }

// Resolver is the definition resolver shared by every reading.
func (in *Inputs) Resolver() *decode.Resolver { return in.res }

// SkipBad reports whether damage is skipped rather than fatal.
func (in *Inputs) SkipBad() bool { return in.o.SkipBad }

// Skipped counts what was skipped so far.
func (in *Inputs) Skipped() int64 { return in.skipped.Load() }

// Close closes the recording read from a stream, if any (the files are
// closed with the iterators that read them), and says through OnWarning
// which types had messages with strings that are not valid UTF-8.
func (in *Inputs) Close() error {
	for _, w := range in.res.InvalidUTF8() {
		in.warn("%s", w)
	}
	var errs []error
	for _, f := range in.files {
		errs = append(errs, f.Close())
	}
	in.files = nil
	return errors.Join(errs...)
}

// Skip is where every reader of the inputs sends damage it met: with
// SkipBad it reports err to OnSkip, counts it and returns nil (go on);
// otherwise it returns err (stop).
func (in *Inputs) Skip(err error) error {
	if !in.o.SkipBad || err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	in.report(err)
	return nil
}

func (in *Inputs) report(err error) {
	in.skipped.Add(1)
	if in.o.OnSkip != nil {
		in.o.OnSkip(err)
	}
}

func (in *Inputs) warn(format string, args ...any) {
	if in.o.OnWarning != nil {
		in.o.OnWarning(fmt.Sprintf(format, args...))
	}
}

// Count is the number of selected messages the summaries list, of the
// types want accepts (every type when want is nil): the total of a
// progress bar.
func (in *Inputs) Count(want func(typ string) bool) int64 {
	var n int64
	for _, s := range in.sums {
		for _, t := range s.Topics {
			if (in.filter.Topic == nil || in.filter.Topic(t.Topic)) && (want == nil || want(t.Type)) {
				n += int64(t.MessageCount)
			}
		}
	}
	return n
}

// SelectsNothing reports whether the summaries show that the selection
// keeps no message: no selected topic has a message in the time window.
func (in *Inputs) SelectsNothing() bool {
	f := in.filter
	for _, t := range in.total.Topics {
		if t.MessageCount == 0 || (f.Topic != nil && !f.Topic(t.Topic)) {
			continue
		}
		if (f.End == 0 || t.StartNs < f.End) && (f.Start == 0 || t.EndNs >= f.Start) {
			return false
		}
	}
	return true
}

// RequireDefinitions fails with one error naming every selected type that
// has no definition — neither stored in the recording (some rosbag2
// databases store none) nor in the registry — so that the user learns them
// all at once, or with the first stored definition that does not parse,
// naming its file and topic. With SkipBad it returns nil: those topics are
// skipped, each with one report, as they are met.
func (in *Inputs) RequireDefinitions() error {
	if in.o.SkipBad {
		return nil
	}
	var missing, unsupported topicsByType
	for i := range in.files {
		chans, err := in.Channels(i)
		if err != nil {
			return err
		}
		for _, ch := range chans {
			if (in.filter.Topic != nil && !in.filter.Topic(ch.Topic)) || ch.MessageEncoding == "json" {
				continue
			}
			_, err := in.res.For(ch)
			switch {
			case err == nil:
			case !decode.Decodes(ch.MessageEncoding):
				unsupported.add(fmt.Sprintf("%q", ch.MessageEncoding), ch.Topic)
			case errors.Is(err, record.ErrUnknownType), errors.Is(err, record.ErrUnsupported):
				name := TypeName(ch)
				if name == "" {
					name = "(a channel without a schema)"
				}
				missing.add(name, ch.Topic)
			default:
				return definitionError(err, in.paths[i], ch) // a stored definition that is damaged
			}
		}
	}
	types := missing.types
	if len(types) == 0 && len(unsupported.types) > 0 {
		var parts []string
		for _, enc := range unsupported.types {
			parts = append(parts, fmt.Sprintf("%s (%s)", enc, strings.Join(unsupported.topics[enc], ", ")))
		}
		return &record.Error{File: strings.Join(in.paths, ", "), Offset: -1, Err: record.ErrUnsupported,
			Detail: fmt.Sprintf("baglab decodes ROS1 and CDR messages, not the message encoding %s: leave those topics out with --topics, or read past them with --skip-bad",
				strings.Join(parts, ", "))}
	}
	if len(types) == 0 {
		return nil
	}
	sort.Strings(types)
	var parts []string
	for _, name := range types {
		parts = append(parts, fmt.Sprintf("%s (%s)", name, strings.Join(missing.topics[name], ", ")))
	}
	var distros []string
	for _, name := range types {
		if why := in.res.Registry().DistroNote(name); why != "" {
			distros = append(distros, name+" ("+why+")")
		}
	}
	hint := "add their packages with --msg-path DIR"
	if len(distros) > 0 {
		hint = fmt.Sprintf("give --distro %s for %s; else %s", strings.Join(msgdef.Distros(), "|"), strings.Join(distros, ", "), hint)
	}
	return &record.Error{File: strings.Join(in.paths, ", "), Offset: -1, Err: record.ErrUnknownType,
		Detail: fmt.Sprintf("no definition for %d type(s): %s; the recording stores none for them and baglab's registry lacks them: %s",
			len(types), strings.Join(parts, "; "), hint)}
}

// definitionError places err, the decode.Resolver's error for ch, in file: at
// the offset of the record that stores ch's definition (bag connection,
// MCAP schema) when the container gave one, and says so.
func definitionError(err error, file string, ch *record.Channel) error {
	err = record.WithFile(err, file, -1, ch.Topic)
	var e *record.Error
	if ch.Schema == nil || ch.Schema.Offset <= 0 || !errors.As(err, &e) || e.Offset >= 0 {
		return err
	}
	c := *e
	c.Offset = ch.Schema.Offset
	c.Detail = strings.TrimPrefix(c.Detail+"; ", "; ") + "the offset is that of the record storing the definition"
	return &c
}

// topicsByType gathers the topics of some types: the types in the order
// first added, each with its topics, once each, in the order added.
type topicsByType struct {
	types  []string
	topics map[string][]string
}

func (g *topicsByType) add(typ, topic string) {
	if g.topics == nil {
		g.topics = map[string][]string{}
	}
	list, ok := g.topics[typ]
	if !ok {
		g.types = append(g.types, typ)
	}
	if !slices.Contains(list, topic) {
		g.topics[typ] = append(list, topic)
	}
}

// HasArrayField reports whether the type of some selected channel has an
// array field at the dotted path (nested messages by field name, as the
// CSV header writes them: "pose.points"), and lists the types it looked at.
func (in *Inputs) HasArrayField(path string) (bool, []string) {
	var types []string
	for i := range in.files {
		chans, _ := in.Channels(i)
		for _, ch := range chans {
			if in.filter.Topic != nil && !in.filter.Topic(ch.Topic) {
				continue
			}
			dec, err := in.res.For(ch)
			if err != nil {
				continue
			}
			if arrayAt(dec.Type(), path) {
				return true, nil
			}
			types = append(types, dec.Type().Name)
		}
	}
	return false, types
}

// arrayAt reports whether t has an array field at the dotted path.
func arrayAt(t *msgdef.Type, path string) bool {
	parts := strings.Split(path, ".")
	for i, name := range parts {
		f := t.Field(name)
		if f == nil {
			return false
		}
		if i == len(parts)-1 {
			return f.Array != msgdef.Scalar
		}
		if f.Kind != msgdef.Struct || f.Array != msgdef.Scalar {
			return false
		}
		t = f.Msg
	}
	return false
}

// TypeName is the type a channel carries, as stored ("" without a schema).
func TypeName(ch *record.Channel) string {
	if ch.Schema == nil {
		return ""
	}
	return ch.Schema.Name
}

// Messages iterates the selected messages of every recording as one
// stream in log time order (equal times in the order of the inputs, see
// Merge), every recording open until the iterator is closed. It stops
// with ctx's error when ctx ends.
func (in *Inputs) Messages(ctx context.Context) (record.Iterator, error) {
	it, _, err := in.messages(ctx)
	return it, err
}

// messages is Messages, with the readers of the recordings its iterator
// holds open, in input order: valid until the iterator is closed.
func (in *Inputs) messages(ctx context.Context) (record.Iterator, []record.Reader, error) {
	its := make([]record.Iterator, 0, len(in.files))
	open := make([]record.Reader, 0, len(in.files))
	for _, f := range in.files {
		it, err := f.messages(in.filter)
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

// FileMessages iterates the selected messages of the i-th recording alone,
// which is open until the iterator is closed.
func (in *Inputs) FileMessages(ctx context.Context, i int) (record.Iterator, error) {
	it, err := in.files[i].Messages(in.filter)
	if err != nil {
		return nil, err
	}
	return in.watch(ctx, it), nil
}

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
	type plan struct {
		dec  decode.Decoder
		skip bool
	}
	plans := map[*record.Channel]*plan{}
	// last and p cache the latest channel and its plan, as fileIter does:
	// consecutive messages often share a channel.
	var last *record.Channel
	var p *plan
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if m.Channel != last {
			last, p = m.Channel, plans[m.Channel]
		}
		if p == nil {
			p = &plan{}
			plans[m.Channel] = p
			typ := TypeName(m.Channel)
			switch {
			case o.Want != nil && !o.Want(typ):
				p.skip = true
			case m.Channel.MessageEncoding == "json":
			default:
				p.dec, err = in.res.For(m.Channel)
				if err != nil {
					p.skip = true
					if err := in.Skip(definitionError(err, m.Source, m.Channel)); err != nil {
						return err
					}
				}
			}
		}
		if p.skip {
			continue
		}
		if err := o.Visit(i, m, p.dec); err != nil {
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
	chans, _ := in.Channels(i)
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
