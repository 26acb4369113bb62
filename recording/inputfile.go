package recording

import (
	"fmt"
	"sort"
	"strings"

	"github.com/baglab/baglab/record"
)

// inputFile is one recording of Inputs: its summary and channels, read
// when the inputs were opened, and the way to open it again. A file is
// open only while an iterator reads its messages, so a command over many
// recordings holds no open file, no reader and no index per recording,
// only its summary and channels (what recordings repeat held once, see
// shared). A recording read
// from a stream (standard input) cannot be opened again: its reader stays
// open until Inputs.Close.
type inputFile struct {
	path   string
	reopen func() (record.Reader, error) // nil for a stream
	stream record.Reader                 // the open stream; nil for a file
	sum    *record.Summary
	chans  []*record.Channel
	// chansErr is what the reader's Channels returned.
	chansErr error
}

// openInputFile opens the recording at p with open, reads its summary and
// channels and, unless it is a stream (reopen nil), closes it again.
func openInputFile(p string, r record.Reader, reopen func() (record.Reader, error), defs *shared) (*inputFile, error) {
	f := &inputFile{path: p, reopen: reopen}
	s, err := r.Summary()
	if err != nil {
		r.Close()
		return nil, err
	}
	s.Path = p
	f.sum = s
	f.chans, f.chansErr = r.Channels()
	for _, ch := range f.chans {
		defs.channel(ch)
	}
	defs.summary(s)
	if reopen == nil {
		f.stream = r
		return f, nil
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return f, nil
}

// Summary is the recording's summary, as read when the inputs were opened.
func (f *inputFile) Summary() (*record.Summary, error) { return f.sum, nil }

// Channels are the recording's channels, as read when the inputs were
// opened; messages carry these.
func (f *inputFile) Channels() ([]*record.Channel, error) { return f.chans, f.chansErr }

// Messages opens the recording again and iterates its messages that flt
// selects, on the channels that Channels lists; closing the iterator
// closes the file.
func (f *inputFile) Messages(flt record.Filter) (record.Iterator, error) {
	return f.messages(flt)
}

// messages is Messages, its iterator holding the open reader (fileIter.r).
func (f *inputFile) messages(flt record.Filter) (*fileIter, error) {
	r, same, done, err := f.open()
	if err != nil {
		return nil, err
	}
	it, err := r.Messages(flt)
	if err != nil {
		done()
		return nil, err
	}
	return &fileIter{it: it, r: r, done: done, same: same}, nil
}

// open returns the recording's reader — opened again, unless it is a
// stream —, the map from its channels to those of Channels (nil for a
// stream) and the function that closes it.
func (f *inputFile) open() (r record.Reader, same map[*record.Channel]*record.Channel, done func() error, err error) {
	if f.stream != nil {
		return f.stream, nil, func() error { return nil }, nil
	}
	if r, err = f.reopen(); err != nil {
		return nil, nil, nil, err
	}
	if same, err = f.match(r); err != nil {
		r.Close()
		return nil, nil, nil, err
	}
	return r, same, r.Close, nil
}

// match pairs the channels of r, the recording opened again, with those
// read at first, in order; a recording whose channels changed in between
// is an error.
func (f *inputFile) match(r record.Reader) (map[*record.Channel]*record.Channel, error) {
	chans, err := r.Channels()
	if err != nil || f.chansErr != nil {
		return nil, err
	}
	if len(chans) != len(f.chans) {
		return nil, f.changed()
	}
	same := make(map[*record.Channel]*record.Channel, len(chans))
	for i, ch := range chans {
		old := f.chans[i]
		if ch.ID != old.ID || ch.Topic != old.Topic || ch.MessageEncoding != old.MessageEncoding || TypeName(ch) != TypeName(old) {
			return nil, f.changed()
		}
		same[ch] = old
	}
	return same, nil
}

func (f *inputFile) changed() error {
	return &InputError{Path: f.path, Err: fmt.Errorf("its channels changed since it was opened (was it written to meanwhile?)")}
}

// Close closes the stream of a recording read from one.
func (f *inputFile) Close() error {
	if f.stream == nil {
		return nil
	}
	err := f.stream.Close()
	f.stream = nil
	return err
}

// fileIter iterates the messages of a recording opened again, handing on
// the channels read at first, and closes the recording with itself.
type fileIter struct {
	it   record.Iterator
	r    record.Reader // the recording, open until done
	done func() error  // closes the recording
	same map[*record.Channel]*record.Channel
	// last and lastOld cache the latest channel and its counterpart.
	last, lastOld *record.Channel
}

func (it *fileIter) Next() (*record.Message, error) {
	m, err := it.it.Next()
	if err != nil {
		return m, err
	}
	if m.Channel != it.last {
		it.last, it.lastOld = m.Channel, m.Channel
		if old, ok := it.same[m.Channel]; ok {
			it.lastOld = old
		}
	}
	m.Channel = it.lastOld
	return m, nil
}

func (it *fileIter) Close() error {
	err := it.it.Close()
	if it.done != nil {
		if cerr := it.done(); err == nil {
			err = cerr
		}
		it.done = nil
	}
	return err
}

// shared holds one copy of what recordings of one experiment repeat —
// definition texts, topic and type names, channel metadata — for every
// input that stores it, so that what Inputs keep per recording between
// its readings is little more than its counts and times.
type shared struct {
	texts   map[string][]byte
	strs    map[string]string
	headers map[string]map[string]string
}

func newShared() *shared {
	return &shared{texts: map[string][]byte{}, strs: map[string]string{}, headers: map[string]map[string]string{}}
}

// channel makes ch and its schema hold the shared copies.
func (d *shared) channel(ch *record.Channel) {
	ch.Topic = d.str(ch.Topic)
	ch.MessageEncoding = d.str(ch.MessageEncoding)
	ch.Metadata = d.metadata(ch.Metadata)
	s := ch.Schema
	if s == nil {
		return
	}
	s.Name, s.Encoding, s.MD5 = d.str(s.Name), d.str(s.Encoding), d.str(s.MD5)
	if len(s.Data) == 0 {
		return
	}
	if t, ok := d.texts[string(s.Data)]; ok {
		s.Data = t
		return
	}
	d.texts[string(s.Data)] = s.Data
}

// summary makes the names of s's topics the shared copies.
func (d *shared) summary(s *record.Summary) {
	for i := range s.Topics {
		t := &s.Topics[i]
		t.Topic, t.Type, t.Encoding, t.MD5 = d.str(t.Topic), d.str(t.Type), d.str(t.Encoding), d.str(t.MD5)
	}
}

func (d *shared) str(v string) string {
	if t, ok := d.strs[v]; ok {
		return t
	}
	d.strs[v] = v
	return v
}

// metadata returns the shared map with m's keys and values; nobody
// writes to a channel's metadata.
func (d *shared) metadata(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	if t, ok := d.headers[b.String()]; ok {
		return t
	}
	d.headers[b.String()] = m
	return m
}
