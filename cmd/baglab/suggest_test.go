package main

import (
	"strings"
	"testing"
)

// TestTypoSuggestions: a mistyped verb or flag exits 2 and names what was
// meant, and a long flag spelled with one dash is a usage error instead of
// a shorthand with a glued value and an input that does not exist.
func TestTypoSuggestions(t *testing.T) {
	bag := studyFile("study.bag")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"verb transposed", []string{"exprot"}, "Did you mean this?\n\texport"},
		{"verb British", []string{"analyse"}, "Did you mean this?\n\tanalyze"},
		{"flag singular", []string{"cat", "--topic", "/x", bag}, "Did you mean this?\n\t--topics"},
		{"flag misspelt", []string{"export", "--skipbad", "-o", t.TempDir(), bag}, "\t--skip-bad"},
		{"one dash", []string{"cat", "-topics", "/x", bag}, "-topics: a long flag takes two dashes: --topics"},
		{"one dash with value", []string{"cat", "-limit=3", bag}, "-limit=3: a long flag takes two dashes: --limit=3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tc.args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
	// Shorthands keep working, glued or not.
	for _, args := range [][]string{{"cat", "-n", "2", bag}, {"cat", "-n2", bag}} {
		stdout, stderr, code := run(t, args...)
		if code != 0 || strings.Count(stdout, "\n") != 2 {
			t.Errorf("%v: exit %d, %d lines, stderr %q", args, code, strings.Count(stdout, "\n"), stderr)
		}
	}
}
