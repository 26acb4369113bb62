package recordtest

import (
	"testing"

	"github.com/baglab/baglab/record"
)

// span counts messages and their time span.
type span struct {
	n           uint64
	first, last int64
}

func (s *span) add(t int64) {
	if s.n == 0 {
		s.first, s.last = t, t
	}
	s.n++
	s.first, s.last = min(s.first, t), max(s.last, t)
}

// CheckSummary compares r's Summary with what iterating all its messages
// gives: the file's count and span, and per topic the count, the first and
// last log times and the frequency from them.
func CheckSummary(t testing.TB, r record.Reader) {
	t.Helper()
	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]*span{}
	var all span
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	Each(t, it, func(m *record.Message) {
		s := per[m.Channel.Topic]
		if s == nil {
			s = &span{}
			per[m.Channel.Topic] = s
		}
		s.add(m.LogTime)
		all.add(m.LogTime)
	})
	if all.n == 0 {
		t.Fatal("no messages: nothing to compare")
	}
	if sum.MessageCount != all.n || sum.StartNs != all.first || sum.EndNs != all.last || sum.DurationNs != all.last-all.first {
		t.Errorf("summary %d msgs [%d, %d], messages %+v", sum.MessageCount, sum.StartNs, sum.EndNs, all)
	}
	for _, ts := range sum.Topics {
		s := per[ts.Topic]
		if s == nil {
			s = &span{}
		}
		if ts.MessageCount != s.n || ts.StartNs != s.first || ts.EndNs != s.last {
			t.Errorf("%s: %d msgs [%d, %d], messages %+v", ts.Topic, ts.MessageCount, ts.StartNs, ts.EndNs, *s)
		}
		if f := record.Frequency(s.n, s.first, s.last); ts.FrequencyHz != f || s.n > 2 && f <= 0 {
			t.Errorf("%s: %v Hz, want %v", ts.Topic, ts.FrequencyHz, f)
		}
		delete(per, ts.Topic)
	}
	for topic := range per {
		t.Errorf("topic %s missing from the summary", topic)
	}
}
