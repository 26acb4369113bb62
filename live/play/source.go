package play

import (
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
		chans, err := s.in.Channels(i)
		if err != nil {
			return nil, err
		}
		all = append(all, chans...)
	}
	return all, nil
}

func (s inputsSource) Messages(f record.Filter) (record.Iterator, error) {
	its := make([]record.Iterator, 0, s.in.Len())
	for i := range s.in.Len() {
		it, err := s.in.Reader(i).Messages(f)
		if err != nil {
			for _, it := range its {
				it.Close()
			}
			return nil, err
		}
		its = append(its, it)
	}
	return recording.Merge(its), nil
}
