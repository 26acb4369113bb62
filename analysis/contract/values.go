package contract

import (
	"math"

	"github.com/baglab/baglab/analysis"
)

// Values is an analysis.Analyzer that checks the value rules of a spec on
// every message of their topics.
type Values struct {
	rules map[string][]ValueRule // by topic
	stats map[valueKey]*ValueStat
}

type valueKey struct{ topic, path string }

// ValueStat is what Values found for one rule: the messages checked, the
// values outside the range (or missing, or not numbers) and the first of
// them.
type ValueStat struct {
	Checked, Outside int64
	// Min and Max are the smallest and largest value seen (NaN: none).
	Min, Max float64
	// FirstNs and First are the log time and value of the first message
	// outside the range (First NaN: the field was missing or not a
	// number).
	FirstNs int64
	First   float64
}

// NewValues returns an empty accumulator of s's value rules.
func NewValues(s *Spec) *Values {
	v := &Values{rules: map[string][]ValueRule{}, stats: map[valueKey]*ValueStat{}}
	for _, t := range s.Topics {
		if len(t.Values) > 0 {
			v.rules[t.Topic] = t.Values
		}
	}
	return v
}

// Kind implements analysis.Analyzer.
func (v *Values) Kind() string { return "contract_values" }

// Wants implements analysis.Analyzer: every type when there are rules
// (rules name topics, not types).
func (v *Values) Wants(string) bool { return len(v.rules) > 0 }

// Add implements analysis.Analyzer.
func (v *Values) Add(m *analysis.Message) error {
	rules := v.rules[m.Topic]
	if len(rules) == 0 || m.Value == nil {
		return nil
	}
	for _, r := range rules {
		k := valueKey{m.Topic, r.Path}
		s := v.stats[k]
		if s == nil {
			s = &ValueStat{Min: math.NaN(), Max: math.NaN()}
			v.stats[k] = s
		}
		s.Checked++
		x, err := m.Value.Float(r.Path)
		if err != nil {
			x = math.NaN()
		} else {
			if math.IsNaN(s.Min) || x < s.Min {
				s.Min = x
			}
			if math.IsNaN(s.Max) || x > s.Max {
				s.Max = x
			}
		}
		if !(x >= r.Lo && x <= r.Hi) {
			if s.Outside == 0 || m.LogTime < s.FirstNs {
				s.FirstNs, s.First = m.LogTime, x
			}
			s.Outside++
		}
	}
	return nil
}

// Merge implements analysis.Analyzer.
func (v *Values) Merge(other analysis.Analyzer) error {
	o, ok := other.(*Values)
	if !ok {
		return analysis.ErrKind
	}
	for k, b := range o.stats {
		a := v.stats[k]
		if a == nil {
			v.stats[k] = b
			continue
		}
		a.Checked += b.Checked
		if b.Outside > 0 && (a.Outside == 0 || b.FirstNs < a.FirstNs) {
			a.FirstNs, a.First = b.FirstNs, b.First
		}
		a.Outside += b.Outside
		a.Min = nanMin(a.Min, b.Min)
		a.Max = -nanMin(-a.Max, -b.Max)
	}
	return nil
}

func nanMin(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

// Result implements analysis.Analyzer.
func (v *Values) Result() (analysis.Result, error) { return &ValuesResult{stats: v.stats}, nil }

// ValuesResult is the outcome of Values.
type ValuesResult struct {
	stats map[valueKey]*ValueStat
}

// Stat returns what was found for the rule at path on topic (nil: no
// message of the topic was checked).
func (r *ValuesResult) Stat(topic, path string) *ValueStat { return r.stats[valueKey{topic, path}] }

// Kind implements analysis.Result.
func (r *ValuesResult) Kind() string { return "contract_values" }

// Tables implements analysis.Result: none.
func (r *ValuesResult) Tables() []*analysis.Table { return nil }

// Summary implements analysis.Result.
func (r *ValuesResult) Summary() string { return "" }

// HasData implements analysis.Result.
func (r *ValuesResult) HasData() bool { return len(r.stats) > 0 }

// Warnings implements analysis.Result.
func (r *ValuesResult) Warnings() []string { return nil }
