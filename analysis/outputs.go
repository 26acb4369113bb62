package analysis

import (
	"fmt"
	"slices"
	"strings"
)

// KindsOf expands an analysis kind: "all" names every registered kind.
func KindsOf(kind string) ([]string, error) {
	kinds := Kinds()
	if kind == "all" {
		return kinds, nil
	}
	if slices.Contains(kinds, kind) {
		return []string{kind}, nil
	}
	return nil, fmt.Errorf("unknown analysis %q (want one of %s, or all)", kind, strings.Join(kinds, ", "))
}

// WithData returns the results that found data, in order.
func WithData(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.HasData() {
			out = append(out, r)
		}
	}
	return out
}

// KindsWithout returns the kinds of the results that found no data.
func KindsWithout(results []Result) []string {
	var out []string
	for _, r := range results {
		if !r.HasData() {
			out = append(out, r.Kind())
		}
	}
	return out
}
