package analysis

import (
	"slices"
	"strings"
	"testing"
)

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
