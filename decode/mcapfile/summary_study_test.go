package mcapfile_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/mcapfile"
	"github.com/baglab/baglab/decode/record"
)

// TestSummaryStudy compares the Summary of every MCAP of a generated study
// (three compressions, ROS 1 and ROS 2 profiles, every message type), read
// through the index and by a scan, with what iterating all its messages
// gives: per topic the count, the first and last log times and the
// frequency from them.
func TestSummaryStudy(t *testing.T) {
	dir := study(t)
	for _, name := range []string{"study.mcap", "study-lz4.mcap", "study-none.mcap", "queries.mcap", "all_types.mcap", "all_types_ros2.mcap"} {
		for _, opts := range [][]mcapfile.Option{nil, {mcapfile.WithoutIndex()}} {
			t.Run(name, func(t *testing.T) {
				r, err := mcapfile.Open(filepath.Join(dir, name), opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if ok, why := r.Indexed(); ok != (opts == nil) {
					t.Fatalf("Indexed() = %v (%s)", ok, why)
				}
				checkSummaryMessages(t, r)
			})
		}
	}
}

// spanOf counts messages and their time span.
type spanOf struct {
	n           uint64
	first, last int64
}

func (s *spanOf) add(t int64) {
	if s.n == 0 {
		s.first, s.last = t, t
	}
	s.n++
	s.first, s.last = min(s.first, t), max(s.last, t)
}

// checkSummaryMessages compares r's Summary with its messages.
func checkSummaryMessages(t *testing.T, r record.Reader) {
	t.Helper()
	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]*spanOf{}
	var all spanOf
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
			s = &spanOf{}
			per[m.Channel.Topic] = s
		}
		s.add(m.LogTime)
		all.add(m.LogTime)
	}
	if all.n == 0 {
		t.Fatal("no messages: nothing to compare")
	}
	if sum.MessageCount != all.n || sum.StartNs != all.first || sum.EndNs != all.last || sum.DurationNs != all.last-all.first {
		t.Errorf("summary %d msgs [%d, %d], messages %+v", sum.MessageCount, sum.StartNs, sum.EndNs, all)
	}
	for _, ts := range sum.Topics {
		s := per[ts.Topic]
		if s == nil {
			s = &spanOf{}
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
