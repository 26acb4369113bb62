package analysis

import "testing"

// TestMemoryLimit: 112 MiB plus 64 MiB per input read at once (the budget
// that keeps analyze all of a 2 GiB bag under 300 MiB peak RSS at the
// default --jobs 2); fewer than one job counts as one.
func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		jobs int
		want int64
	}{{1, 176 << 20}, {2, 240 << 20}, {8, 624 << 20}, {0, 176 << 20}} {
		if got := MemoryLimit(c.jobs); got != c.want {
			t.Errorf("MemoryLimit(%d) = %d MiB, want %d MiB", c.jobs, got>>20, c.want>>20)
		}
	}
}
