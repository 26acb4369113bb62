package play

import (
	"testing"
	"time"
)

func TestStatsString(t *testing.T) {
	s := Stats{Messages: 1234, PerTopic: map[string]uint64{"/a": 1000, "/b": 234}, Loops: 2, Elapsed: 61260 * time.Millisecond}
	if got, want := s.String(), "published 1234 messages on 2 topics in 61.3 s (2 loops)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	s.Lateness = Lateness{Count: 1234, P50: 52 * time.Microsecond, P99: 812 * time.Microsecond, Max: 2100 * time.Microsecond}
	if got, want := s.String(), "published 1234 messages on 2 topics in 61.3 s (2 loops); sent behind schedule by p50 0.05 ms, p99 0.81 ms, max 2.10 ms"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// One pass, one topic: plain words, no loop count.
	s = Stats{Messages: 1, PerTopic: map[string]uint64{"/a": 1}, Loops: 1, Elapsed: time.Second}
	if got, want := s.String(), "published 1 message on 1 topic in 1.0 s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
