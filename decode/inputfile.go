package decode

import (
	"fmt"

	"github.com/baglab/baglab/decode/record"
)

// inputFile is one recording of Inputs: its summary and channels, read
// when the inputs were opened, and the way to open it again. A file is
// open only while an iterator reads its messages, so a command over many
// recordings holds no open file, no reader and no index per recording,
// only its summary and channels (whose definition texts are shared by the
// recordings that store the same one, see definitions). A recording read
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
func openInputFile(p string, r record.Reader, reopen func() (record.Reader, error), defs *definitions) (*inputFile, error) {
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
		defs.share(ch.Schema)
	}
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
	r, same, done, err := f.open()
	if err != nil {
		return nil, err
	}
	it, err := r.Messages(flt)
	if err != nil {
		done()
		return nil, err
	}
	return &fileIter{it: it, done: done, same: same}, nil
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
	done func() error // closes the recording
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

// definitions shares the definition texts of the inputs: recordings of one
// experiment store the same definitions, and one copy serves them all.
type definitions struct{ texts map[string][]byte }

// share makes s hold the shared copy of its definition text.
func (d *definitions) share(s *record.Schema) {
	if s == nil || len(s.Data) == 0 {
		return
	}
	if t, ok := d.texts[string(s.Data)]; ok {
		s.Data = t
		return
	}
	if d.texts == nil {
		d.texts = map[string][]byte{}
	}
	d.texts[string(s.Data)] = s.Data
}
