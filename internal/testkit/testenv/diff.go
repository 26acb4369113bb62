package testenv

import (
	"fmt"
	"strings"
)

// FirstDiff describes where got and want first differ, for a test's
// failure message: the byte offset, both lengths, and each side from 80
// bytes before that offset to 80 after it, newlines shown as ⏎ so that
// each side fits on one line. It returns "" when they are equal.
func FirstDiff[T ~string | ~[]byte](got, want T) string {
	g, w := string(got), string(want)
	if g == w {
		return ""
	}
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d (got %d bytes, want %d)\n got: %s\nwant: %s", i, len(g), len(w),
		window(g, lo, i+80), window(w, lo, i+80))
}

// window is s[lo:hi], cut to s, on one line.
func window(s string, lo, hi int) string {
	return strings.ReplaceAll(s[min(lo, len(s)):min(hi, len(s))], "\n", "⏎")
}
