package db3

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"
)

// TestSummarySplitTopics: on the Python-written split folder, whose topics
// run across both files (inserted out of time order), each topic's count,
// first and last timestamps are those of the rows Python wrote, and its
// frequency is record.Frequency of them.
func TestSummarySplitTopics(t *testing.T) {
	dir, want := pythonRecordings(t)
	type span struct {
		n           uint64
		first, last int64
	}
	per := map[string]*span{}
	for _, m := range want["split"] {
		s := per[m.Topic]
		if s == nil {
			s = &span{first: m.Timestamp, last: m.Timestamp}
			per[m.Topic] = s
		}
		s.n++
		s.first, s.last = min(s.first, m.Timestamp), max(s.last, m.Timestamp)
	}
	r, err := Open(filepath.Join(dir, "split"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Topics) != 2 || len(per) != 2 {
		t.Fatalf("%d topics, Python wrote %d", len(sum.Topics), len(per))
	}
	for _, ts := range sum.Topics {
		w := per[ts.Topic]
		if w == nil || ts.MessageCount != w.n || ts.StartNs != w.first || ts.EndNs != w.last {
			t.Errorf("%s: %d msgs [%d, %d], want %+v", ts.Topic, ts.MessageCount, ts.StartNs, ts.EndNs, w)
			continue
		}
		// Both topics start in split_0 and end in split_1.
		if w.first >= 1_000_001_000 || w.last < 1_000_001_000 {
			t.Errorf("%s spans [%d, %d]: not across both files", ts.Topic, w.first, w.last)
		}
		if f := record.Frequency(w.n, w.first, w.last); ts.FrequencyHz != f || f <= 0 {
			t.Errorf("%s: %v Hz, want %v", ts.Topic, ts.FrequencyHz, f)
		}
	}
}
