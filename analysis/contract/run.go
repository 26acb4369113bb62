package contract

import (
	"context"
	"fmt"
	"strings"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/topics"
	"github.com/baglab/baglab/recording"
)

// Check reads in into the topics analysis (topic rules, gaps as o's
// --gap says) and, when s has value rules, into Values, in one pass with
// up to jobs inputs at once, and evaluates s.
func Check(ctx context.Context, in *recording.Inputs, s *Spec, o analysis.Options, jobs int) ([]Result, error) {
	valuesKind := analysis.Kind{Name: "contract_values", New: func(analysis.Options) analysis.Analyzer { return NewValues(s) }}
	acc, err := analysis.Accumulate(ctx, in, []analysis.Kind{topics.Kind, valuesKind}, o, jobs)
	if err != nil {
		return nil, err
	}
	out, err := acc.Outcome()
	if err != nil {
		return nil, err
	}
	stats, _ := out.Results[0].(*topics.Result)
	values, _ := out.Results[1].(*ValuesResult)
	return Evaluate(s, stats, values), nil
}

// FromPartial evaluates s on the topics state of a merged partial file
// (analyze topics --partial). Value rules read the messages, which a
// partial file does not hold: they are skipped, and say so.
func FromPartial(s *Spec, acc *analysis.Accumulated) ([]Result, error) {
	out, err := acc.Outcome()
	if err != nil {
		return nil, err
	}
	for _, r := range out.Results {
		if t, ok := r.(*topics.Result); ok {
			res := Evaluate(s, t, nil)
			for i := range res {
				if strings.HasPrefix(res[i].Rule, "values[") {
					res[i].Pass, res[i].Got, res[i].Skipped = true, "not checked", "value rules read the messages; a partial file holds statistics only"
				}
			}
			return res, nil
		}
	}
	return nil, fmt.Errorf("no topics state in the partial file (make it with analyze topics --partial)")
}
