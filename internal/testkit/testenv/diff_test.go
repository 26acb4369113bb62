package testenv

import (
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		name, got, want, diff string
	}{
		{"equal", "a\nb", "a\nb", ""},
		{"middle", "ab\ncd", "ab\nce", "at byte 4 (got 5 bytes, want 5)\n got: ab⏎cd\nwant: ab⏎ce"},
		{"prefix", "abc", "ab", "at byte 2 (got 3 bytes, want 2)\n got: abc\nwant: ab"},
		{"empty", "", "a", "at byte 0 (got 0 bytes, want 1)\n got: \nwant: a"},
		{"window", long + "1" + long, long + "2" + long,
			"at byte 100 (got 201 bytes, want 201)\n got: " + long[:80] + "1" + long[:79] + "\nwant: " + long[:80] + "2" + long[:79]},
	} {
		if d := FirstDiff(c.got, c.want); d != c.diff {
			t.Errorf("%s: FirstDiff(string) = %q, want %q", c.name, d, c.diff)
		}
		if d := FirstDiff([]byte(c.got), []byte(c.want)); d != c.diff {
			t.Errorf("%s: FirstDiff([]byte) = %q, want %q", c.name, d, c.diff)
		}
	}
}
