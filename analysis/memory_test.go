package analysis

import "testing"

// TestMemoryLimit: 128 MiB plus 64 MiB per input read at once (the budget
// `baglab analyze` has set since its --jobs limit was measured); fewer than
// one job counts as one.
func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		jobs int
		want int64
	}{{1, 192 << 20}, {2, 256 << 20}, {8, 640 << 20}, {0, 192 << 20}} {
		if got := MemoryLimit(c.jobs); got != c.want {
			t.Errorf("MemoryLimit(%d) = %d MiB, want %d MiB", c.jobs, got>>20, c.want>>20)
		}
	}
}
