package export

import (
	"context"
	"errors"
	"sync"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// DatasetInputs returns one DatasetInput per recording of in, in order:
// named by its path, carrying its own summary, and opened (its selected
// messages) only when the export reaches it.
func DatasetInputs(ctx context.Context, in *recording.Inputs) []DatasetInput {
	ds := make([]DatasetInput, in.Len())
	for i, p := range in.Paths() {
		open := func() (record.Iterator, error) { return in.FileMessages(ctx, i) }
		ds[i] = DatasetInput{Input: Input{Path: p, Open: open}, Summary: in.FileSummary(i)}
	}
	return ds
}

// InputsResolver is a Resolver over in's definition resolver. A channel
// whose decoder cannot be built is left out (ErrSkipChannel) when its
// encoding is unsupported or in skips bad input; skipped is then called
// once per topic with the error, which names the channel's file and topic.
// Any other failure is returned, with the same file and topic.
func InputsResolver(in *recording.Inputs, skipped func(topic string, err error)) Resolver {
	res := in.Resolver()
	var noted sync.Map
	return func(ch *record.Channel) (TypedDecoder, error) {
		d, err := res.For(ch)
		if err == nil {
			return d, nil
		}
		err = record.WithFile(err, in.FileOf(ch), -1, ch.Topic)
		if !errors.Is(err, record.ErrUnsupported) && !in.SkipBad() {
			return nil, err
		}
		if _, dup := noted.LoadOrStore(ch.Topic, true); !dup && skipped != nil {
			skipped(ch.Topic, err)
		}
		return nil, ErrSkipChannel
	}
}
