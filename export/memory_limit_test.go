package export

import "testing"

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		jobs int
		opts []Option
		want int64
	}{
		{1, nil, 224 * mib},
		{4, nil, (128 + 4*96) * mib},
		{0, nil, 224 * mib},
		{2, []Option{WithMemoryBudget(32 * mib), WithRowGroupBytes(8 * mib)}, (128 + 2*48) * mib},
		{2, []Option{WithFormat(CSV)}, (128 + 2*96) * mib},
	} {
		if got := MemoryLimit(c.jobs, c.opts...); got != c.want {
			t.Errorf("%d jobs, %d options: %d MiB, want %d MiB", c.jobs, len(c.opts), got/mib, c.want/mib)
		}
	}
}
