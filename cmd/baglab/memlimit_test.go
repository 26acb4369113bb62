package main

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestMemorySettings: the command's limit and GC target apply unless the
// user set GOMEMLIMIT (then neither) or GOGC (then the target is the
// user's), and restore puts back what was there.
func TestMemorySettings(t *testing.T) {
	limit, percent := debug.SetMemoryLimit(-1), gcPercent()
	for _, c := range []struct {
		name, memlimit, gogc string
		wantLimit            bool
		wantPercent          bool
	}{
		{"none set", "", "", true, true},
		{"GOGC set", "", "50", true, false},
		{"GOMEMLIMIT set", "1GiB", "", false, false},
	} {
		t.Setenv("GOMEMLIMIT", c.memlimit)
		t.Setenv("GOGC", c.gogc)
		restoreLimit := softMemoryLimit(300 << 20)
		restorePercent := gcPercentUnderLimit(400)
		if got := debug.SetMemoryLimit(-1); (got == 300<<20) != c.wantLimit {
			t.Errorf("%s: limit %d, want it set: %v", c.name, got, c.wantLimit)
		}
		if got := gcPercent(); (got == 400) != c.wantPercent {
			t.Errorf("%s: GC percent %d, want it set: %v", c.name, got, c.wantPercent)
		}
		restorePercent()
		restoreLimit()
		if debug.SetMemoryLimit(-1) != limit || gcPercent() != percent {
			t.Errorf("%s: not restored: limit %d, percent %d", c.name, debug.SetMemoryLimit(-1), gcPercent())
		}
	}
}
