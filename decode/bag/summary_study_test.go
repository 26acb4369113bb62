package bag_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/bag"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/internal/studygen"
)

// TestSummaryStudy compares the Summary of every bag of a generated study
// (three compressions, every message type, an unindexed and a cut one) with
// what iterating all its messages gives: per topic the count, the first and
// last log times and the frequency from them.
func TestSummaryStudy(t *testing.T) {
	dir := t.TempDir()
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := studygen.WriteAll(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts []bag.Option
	}{
		{"study.bag", nil},
		{"study.bag", []bag.Option{bag.WithoutIndex()}},
		{"study-lz4.bag", nil},
		{"study-bz2.bag", nil},
		{"study-bz2.bag", []bag.Option{bag.WithoutIndex()}},
		{"all_types.bag", nil},
		{"broken/study.bag.active", nil},
		{"broken/study-truncated.bag", []bag.Option{bag.WithSkipBad(nil)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := bag.Open(filepath.Join(dir, c.name), c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkSummary(t, r)
		})
	}
}

// checkSummary compares r's Summary with its messages.
func checkSummary(t *testing.T, r record.Reader) {
	t.Helper()
	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]*seen{}
	all := seen{}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		s := per[m.Channel.Topic]
		if s == nil {
			s = &seen{}
			per[m.Channel.Topic] = s
		}
		s.add(m.LogTime)
		all.add(m.LogTime)
	}
	if all.n == 0 || len(per) < 2 {
		t.Fatalf("%d messages on %d topics: nothing to compare", all.n, len(per))
	}
	if sum.MessageCount != all.n || sum.StartNs != all.first || sum.EndNs != all.last || sum.DurationNs != all.last-all.first {
		t.Errorf("summary %d msgs [%d, %d], messages %+v", sum.MessageCount, sum.StartNs, sum.EndNs, all)
	}
	for _, ts := range sum.Topics {
		s := per[ts.Topic]
		if s == nil {
			s = &seen{}
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

// seen counts messages and their time span.
type seen struct {
	n           uint64
	first, last int64
}

func (s *seen) add(t int64) {
	if s.n == 0 {
		s.first, s.last = t, t
	}
	s.n++
	s.first, s.last = min(s.first, t), max(s.last, t)
}
