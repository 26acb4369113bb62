package timesync

import (
	"fmt"
	"testing"
)

// TestApproximateRules pins the python ApproximateTimeSynchronizer rules
// the peer test exercises in bulk: a set spans strictly less than slop, a
// candidate may sit exactly at slop from the new message, the nearest
// candidate is tried first and ties go to the earlier queued, a repeated
// stamp replaces the queued message, and the oldest stamp leaves a full
// queue.
func TestApproximateRules(t *testing.T) {
	type add struct {
		in    int
		stamp int64
		v     string
	}
	for _, c := range []struct {
		name  string
		o     Options
		adds  []add
		wants []string
	}{
		{"spread below slop", Options{Slop: 10}, []add{{0, 100, "a"}, {1, 110, "b"}, {1, 109, "c"}}, []string{"", "", "[a c]"}},
		{"nearest first", Options{Slop: 10}, []add{{1, 95, "x"}, {1, 101, "y"}, {0, 100, "a"}}, []string{"", "", "[a y]"}},
		{"ties to the earlier queued", Options{Slop: 10}, []add{{1, 103, "x"}, {1, 97, "y"}, {0, 100, "a"}}, []string{"", "", "[a x]"}},
		{"repeated stamp replaces", Options{Slop: 10}, []add{{1, 100, "x"}, {1, 100, "y"}, {0, 100, "a"}}, []string{"", "", "[a y]"}},
		{"queue drops the oldest", Options{Slop: 10, QueueSize: 1}, []add{{1, 100, "x"}, {1, 120, "y"}, {0, 100, "a"}, {0, 121, "b"}}, []string{"", "", "", "[b y]"}},
		{"exact", Options{Policy: Exact}, []add{{0, 1, "a"}, {0, 2, "b"}, {1, 2, "y"}, {1, 1, "x"}}, []string{"", "", "[b y]", "[a x]"}},
		{"exact emits by stamp", Options{Policy: Exact}, []add{{0, 2, "b"}, {0, 1, "a"}, {2, 1, "p"}, {2, 2, "q"}, {1, 2, "y"}, {1, 1, "x"}}, []string{"", "", "", "", "[b y q]", "[a x p]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 2
			for _, a := range c.adds {
				n = max(n, a.in+1)
			}
			s := New[string](n, c.o)
			for i, a := range c.adds {
				got := ""
				for _, set := range s.Add(a.in, a.stamp, a.v) {
					got += fmt.Sprint(set)
				}
				if got != c.wants[i] {
					t.Errorf("add %d (%v): %q, want %q", i, a, got, c.wants[i])
				}
			}
		})
	}
}
