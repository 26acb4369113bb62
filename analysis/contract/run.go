package contract

import (
	"context"
	"fmt"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/recording"
)

// Check reads in into the topics analysis (topic rules, gaps as gapNs
// says: analysis.Options.GapNs) and, when s has value rules, into Values,
// in one pass with up to jobs inputs at once, and evaluates s.
func Check(ctx context.Context, in *recording.Inputs, s *Spec, gapNs int64, jobs int) ([]Result, error) {
	names := []string{"topics", "contract_values"}
	acc, err := analysis.AccumulateSet(ctx, in, names, func() ([]analysis.Analyzer, error) {
		return []analysis.Analyzer{analysis.NewTopics(gapNs), NewValues(s)}, nil
	}, jobs)
	if err != nil {
		return nil, err
	}
	out, err := acc.Outcome()
	if err != nil {
		return nil, err
	}
	topics, _ := out.Results[0].(*analysis.TopicsResult)
	values, _ := out.Results[1].(*ValuesResult)
	return Evaluate(s, topics, values), nil
}

// FromPartial evaluates s on the topics state of a merged partial file
// (analyze topics --partial); value rules need the messages, so a spec
// with them is refused.
func FromPartial(s *Spec, acc *analysis.Accumulated) ([]Result, error) {
	if s.HasValues() {
		return nil, fmt.Errorf("value rules read the messages: check the recordings, not partial files")
	}
	out, err := acc.Outcome()
	if err != nil {
		return nil, err
	}
	for _, r := range out.Results {
		if t, ok := r.(*analysis.TopicsResult); ok {
			return Evaluate(s, t, nil), nil
		}
	}
	return nil, fmt.Errorf("no topics state in the partial file (make it with analyze topics --partial)")
}
