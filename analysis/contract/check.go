package contract

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis/topics"
)

// Result is the outcome of one rule on one topic.
type Result struct {
	Topic string
	// Rule is the spec's key ("min_rate_hz", "present", "type",
	// "values[position[0]]").
	Rule string
	// Want is the rule as people read it (">= 90 Hz"); Got what the
	// recording has ("85.2 Hz").
	Want, Got string
	// Pass is true when the rule holds; Skipped, when set, says why it was
	// not checked (an absent topic that is not required), and Pass is
	// true.
	Pass    bool
	Skipped string
}

// Name is "TOPIC RULE".
func (r Result) Name() string { return r.Topic + " " + r.Rule }

// Evaluate checks the rules of s against the topic statistics of a
// recording (values, when s has value rules: what Values found in it).
func Evaluate(s *Spec, health *topics.Result, values *ValuesResult) []Result {
	stats := map[string]*topics.Stat{}
	if health != nil {
		for i := range health.Topics {
			stats[health.Topics[i].Topic] = &health.Topics[i]
		}
	}
	var out []Result
	for _, t := range s.Topics {
		st := stats[t.Topic]
		present := st != nil && st.Count > 0
		add := func(rule, want, got string, pass bool) {
			r := Result{Topic: t.Topic, Rule: rule, Want: want, Got: got, Pass: pass}
			if !present && !t.Required {
				r.Pass, r.Skipped = true, "the topic is not required and has no messages"
			}
			out = append(out, r)
		}
		count := int64(0)
		if st != nil {
			count = st.Count
		}
		if t.Required {
			add("present", "at least 1 message", plural(count, "message"), present)
		} else if !present {
			add("present", "optional", "no messages", true)
		}
		get := func(f func(*topics.Stat) float64) float64 {
			if st == nil {
				return math.NaN()
			}
			return f(st)
		}
		if t.Type != "" {
			got := "none"
			if st != nil {
				got = st.Type
			}
			add("type", t.Type, got, st != nil && sameTypes(st.Type, t.Type))
		}
		if t.MinCount != nil {
			add("min_count", ">= "+strconv.FormatInt(*t.MinCount, 10), strconv.FormatInt(count, 10), count >= *t.MinCount)
		}
		rate := get(func(s *topics.Stat) float64 { return float64(s.Rate) })
		if t.MinRateHz != nil {
			add("min_rate_hz", ">= "+num(*t.MinRateHz)+" Hz", num(rate)+" Hz", rate >= *t.MinRateHz)
		}
		if t.MaxRateHz != nil {
			add("max_rate_hz", "<= "+num(*t.MaxRateHz)+" Hz", num(rate)+" Hz", rate <= *t.MaxRateHz || math.IsNaN(rate) && present)
		}
		if t.MaxGap != nil {
			longest := get(func(s *topics.Stat) float64 { return float64(s.PeriodMax) })
			got := num(longest) + " s"
			if math.IsNaN(longest) && present {
				longest, got = 0, "one message"
			}
			add("max_gap", "<= "+dur(*t.MaxGap), got, longest <= t.MaxGap.Seconds())
		}
		if t.MaxLatency != nil {
			lat := get(func(s *topics.Stat) float64 { return float64(s.LatencyMax) })
			got := num(lat) + " s"
			if math.IsNaN(lat) {
				got = "no header stamps"
			}
			add("max_latency", "<= "+dur(*t.MaxLatency), got, lat <= t.MaxLatency.Seconds())
		}
		for _, v := range t.Values {
			want := fmt.Sprintf("in [%s, %s]", num(v.Lo), num(v.Hi))
			var vs *ValueStat
			if values != nil {
				vs = values.Stat(t.Topic, v.Path)
			}
			switch {
			case vs == nil:
				add("values["+v.Path+"]", want, "no message checked", !present)
			case vs.Outside > 0:
				first := num(vs.First)
				if math.IsNaN(vs.First) {
					first = "missing or not a number"
				}
				add("values["+v.Path+"]", want, fmt.Sprintf("%d of %d outside (first %s at %s; range seen [%s, %s])",
					vs.Outside, vs.Checked, first, time.Unix(0, vs.FirstNs).UTC().Format(time.RFC3339Nano), num(vs.Min), num(vs.Max)), false)
			default:
				add("values["+v.Path+"]", want, fmt.Sprintf("%d in [%s, %s]", vs.Checked, num(vs.Min), num(vs.Max)), true)
			}
		}
	}
	return out
}

// sameTypes reports whether want is among the comma-separated types got,
// "pkg/msg/Type" and "pkg/Type" being the same.
func sameTypes(got, want string) bool {
	norm := func(s string) string { return strings.Replace(strings.TrimSpace(s), "/msg/", "/", 1) }
	for _, g := range strings.Split(got, ",") {
		if norm(g) == norm(want) {
			return true
		}
	}
	return false
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "none"
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func dur(d time.Duration) string { return num(d.Seconds()) + " s" }

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
