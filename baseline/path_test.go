package baseline

import (
	"math"
	"testing"
)

func TestTolerancePatterns(t *testing.T) {
	p := func(s string) statPath {
		t.Helper()
		pat, err := parsePattern(s)
		if err != nil {
			t.Fatal(s, err)
		}
		return statPath(pat)
	}
	path := p(`placements.models[item="mug, blue",room=kitchen].cluster_stats[index=0].sigma_x`)
	cases := []struct {
		pattern string
		match   bool
	}{
		{"placements.models[*].cluster_stats[*].sigma_x", true},
		{"placements.models.cluster_stats.sigma_x", true},
		{"placements.models.cluster_stats.sigma_*", true},
		{`placements.models[*blue*].cluster_stats.sigma_x`, true},
		{`placements.models[item=cup*].cluster_stats.sigma_x`, false},
		{"**.sigma_x", true},
		{"placements.**", true},
		{"placements.models.sigma_x", false},
		{"placements.models[*].cluster_stats", false},
		{"*.models.*.sigma_?", true},
	}
	for _, c := range cases {
		pat, err := parsePattern(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := pat.match(path); got != c.match {
			t.Errorf("%s matches %s: %v, want %v", c.pattern, path, got, c.match)
		}
	}
	for _, bad := range []string{"", "a..b", "a[", "a.", "a[x]b"} {
		if _, err := parsePattern(bad); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
	if _, err := Parse([]byte(`{"baseline":{"tolerances":{"a":{"rel":-1}}},"kind":"grasps"}`), nil); err == nil {
		t.Error("negative tolerance accepted")
	}
	if _, err := Parse([]byte(`{"baseline":{"tolerances":{"a":{"relative":1}}},"kind":"grasps"}`), nil); err == nil {
		t.Error("unknown tolerance field accepted")
	}
}

func TestToleranceAllows(t *testing.T) {
	cases := []struct {
		tol  Tolerance
		a, b float64
		ok   bool
	}{
		{Tolerance{}, 1, 1, true},
		{Tolerance{}, 1, 1.0000001, false},
		{Tolerance{Rel: 1e-3}, 1000, 1000.9, true},
		{Tolerance{Rel: 1e-3}, 1000, 1001.1, false},
		{Tolerance{Abs: 0.5}, 0, 0.5, true},
		{Tolerance{Abs: 0.5, Rel: 0.1}, 10, 11, true},
		{Tolerance{Rel: 1}, math.Inf(1), 0, false},
	}
	for _, c := range cases {
		if got := c.tol.allows(c.a, c.b); got != c.ok {
			t.Errorf("%v allows %g -> %g: %v", c.tol, c.a, c.b, got)
		}
	}
}
