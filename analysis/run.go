package analysis

import (
	"context"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Outcome is what Run computed.
type Outcome struct {
	// Results are in the order of the kinds asked for.
	Results []Result
	// Messages counts the messages decoded and handed to the analyses.
	Messages int64
	// LastNs is the latest log time among them (0 without any).
	LastNs int64
}

// Run computes the analyses of kinds over the selected messages of in.
// Each input is read into its own accumulators, up to jobs inputs at once
// (decoders cached per channel, only the types some analysis wants), and
// the accumulators are merged in input order: the results do not depend
// on jobs or on the order in which the inputs finish. A message that does
// not decode goes to in.Skip.
func Run(ctx context.Context, in *recording.Inputs, kinds []Kind, o Options, jobs int) (*Outcome, error) {
	acc, err := Accumulate(ctx, in, kinds, o, jobs)
	if err != nil {
		return nil, err
	}
	return acc.Outcome()
}

// Accumulated is the merged accumulators of a run before their results
// are computed: Outcome computes them, WritePartial saves them for a later
// merge.
type Accumulated struct {
	// Kinds are the analysis kinds, Set their accumulators in that order.
	Kinds []string
	Set   []Analyzer
	// Messages and LastNs are as in Outcome.
	Messages, LastNs int64
}

// Outcome computes the results of the accumulators.
func (a *Accumulated) Outcome() (*Outcome, error) {
	out := &Outcome{Messages: a.Messages, LastNs: a.LastNs}
	for _, an := range a.Set {
		r, err := an.Result()
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

// Accumulate reads the selected messages of in into accumulators of kinds
// (registered ones, or a caller's own such as a contract's value rules)
// as Run does, and returns them merged in input order, before any result
// is computed.
func Accumulate(ctx context.Context, in *recording.Inputs, kinds []Kind, o Options, jobs int) (*Accumulated, error) {
	merged := newSet(kinds, o)
	type fileState struct {
		set      []Analyzer // made at the input's first message
		messages int64
		lastNs   int64
		done     bool
	}
	files := make([]fileState, in.Len())
	out := &Accumulated{Kinds: Names(kinds), Set: merged}
	var mu sync.Mutex
	next := 0 // the inputs before next are merged
	paths := in.Paths()
	visit := func(file int, m *record.Message, dec decode.Decoder) error {
		f := &files[file]
		if f.set == nil {
			f.set = newSet(kinds, o)
		}
		msg := &Message{Topic: m.Channel.Topic, Type: recording.TypeName(m.Channel), LogTime: m.LogTime, Source: paths[file],
			Data: m.Data, Encoding: m.Channel.MessageEncoding, Decoder: dec}
		took, cooked := false, false
		for k, a := range f.set { // raw analyses first: a message that does not decode still counts for them
			if !a.Wants(msg.Type) {
				continue
			}
			if !kinds[k].Raw {
				cooked = true
				continue
			}
			if err := a.Add(msg); err != nil {
				return record.WithFile(err, paths[file], m.Offset, m.Channel.Topic)
			}
			took = true
		}
		if cooked && dec != nil { // no analysis decodes JSON
			v, err := dec.DecodeValue(m.Data)
			if err != nil {
				return in.Skip(recording.MessageError(m, err))
			}
			msg.Value = v
			for k, a := range f.set {
				if !kinds[k].Raw && a.Wants(msg.Type) {
					if err := a.Add(msg); err != nil {
						return record.WithFile(err, paths[file], m.Offset, m.Channel.Topic)
					}
					took = true
				}
			}
		}
		if took {
			f.messages++
			f.lastNs = max(f.lastNs, m.LogTime)
		}
		return nil
	}
	done := func(file int) error {
		mu.Lock()
		defer mu.Unlock()
		files[file].done = true
		for ; next < len(files) && files[next].done; next++ {
			f := &files[next]
			for k, a := range f.set {
				if err := merged[k].Merge(a); err != nil {
					return err
				}
			}
			out.Messages += f.messages
			out.LastNs = max(out.LastNs, f.lastNs)
			f.set = nil
		}
		return nil
	}
	if err := in.Each(ctx, recording.EachOptions{Jobs: jobs, Want: Wants(merged), Visit: visit, Done: done}); err != nil {
		return nil, err
	}
	return out, nil
}

// Wanted reports, for a message type, whether some analysis of kinds uses
// it (to count the messages a run will read).
func Wanted(kinds []Kind, o Options) func(typ string) bool {
	return Wants(newSet(kinds, o))
}

// Wants reports, for a message type, whether some analysis of set uses it.
func Wants(set []Analyzer) func(typ string) bool {
	return func(typ string) bool {
		for _, a := range set {
			if a.Wants(typ) {
				return true
			}
		}
		return false
	}
}

// newSet makes an empty accumulator of each kind.
func newSet(kinds []Kind, o Options) []Analyzer {
	set := make([]Analyzer, len(kinds))
	for i, k := range kinds {
		set[i] = k.New(o)
	}
	return set
}
