package play

import (
	"context"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Source is what a player reads: a recording, or several seen as one
// (record.Reader without Close; the caller owns the files).
type Source interface {
	Summary() (*record.Summary, error)
	Channels() ([]*record.Channel, error)
	Messages(f record.Filter) (record.Iterator, error)
}

// FromInputs plays the recordings of the front door's Inputs as one, their
// messages merged in log time order. The player applies its own time
// window (Start, Duration); take the topic selection from in.Filter().
func FromInputs(in *recording.Inputs) Source { return inputsSource{in} }

type inputsSource struct{ in *recording.Inputs }

func (s inputsSource) Summary() (*record.Summary, error) { return s.in.Summary(), nil }

func (s inputsSource) Channels() ([]*record.Channel, error) {
	var all []*record.Channel
	for i := range s.in.Len() {
		chans, err := s.in.File(i).Channels()
		if err != nil {
			return nil, err
		}
		all = append(all, chans...)
	}
	return all, nil
}

// Messages are the messages of the inputs that f selects, merged.
func (s inputsSource) Messages(f record.Filter) (record.Iterator, error) {
	return s.in.MessagesWith(context.Background(), f)
}
