package analysis

import (
	"slices"
	"strings"
	"testing"
)

func TestKindsOf(t *testing.T) {
	if got, err := KindsOf("all"); err != nil || !slices.Equal(got, []string{"placements", "grasps", "facts", "map", "queries", "topics"}) {
		t.Errorf("all: %v, %v", got, err)
	}
	if got, err := KindsOf("facts"); err != nil || !slices.Equal(got, []string{"facts"}) {
		t.Errorf("facts: %v, %v", got, err)
	}
	_, err := KindsOf("placement")
	if err == nil || err.Error() != `unknown analysis "placement" (want one of placements, grasps, facts, map, queries, topics, or all)` {
		t.Errorf("placement: %v", err)
	}
}

func TestWithData(t *testing.T) {
	results := []Result{&PlacementsResult{Placements: 2}, &GraspsResult{}, &FactsResult{Intervals: []FactInterval{{}}}, &QueriesResult{}}
	var kinds []string
	for _, r := range WithData(results) {
		kinds = append(kinds, r.Kind())
	}
	if strings.Join(kinds, ",") != "placements,facts" {
		t.Errorf("with data: %v", kinds)
	}
	if got := KindsWithout(results); !slices.Equal(got, []string{"grasps", "queries"}) {
		t.Errorf("without: %v", got)
	}
}
