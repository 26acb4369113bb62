package analysis

import (
	"math"
	"testing"

	"github.com/baglab/baglab/analysis/internal/weka"
)

// TestClusterRankLarge checks the path for clusters beyond Java's formula
// on small clusters: within 1e-12 of Java's order, including one-member
// clusters, and the same bits whatever the number of workers.
func TestClusterRankLarge(t *testing.T) {
	rows := clusteredRows(3000, 3, 7)
	members := [][]int{{}, {5}}
	for c := 0; c < 3; c++ {
		var idx []int
		for i := c; i < len(rows); i += 3 {
			idx = append(idx, i)
		}
		members = append(members, idx)
	}
	n := float64(len(rows))
	exact := clusterRanks(rows, members, n, nil, rankExactMax)
	large := clusterRanks(rows, members, n, nil, 0)
	par := clusterRanks(rows, members, n, weka.NewPool(3, nil), 0)
	for c := range members {
		if math.Float64bits(large[c]) != math.Float64bits(par[c]) {
			t.Errorf("cluster %d: %v with one worker, %v with three", c, large[c], par[c])
		}
		if exact[c] != large[c] && math.Abs(exact[c]-large[c]) > 1e-12*math.Abs(exact[c]) {
			t.Errorf("cluster %d: %v in Java's order, %v by blocks", c, exact[c], large[c])
		}
	}
	if !math.IsInf(large[0], 1) || !math.IsInf(large[1], 1) {
		t.Errorf("clusters of 0 and 1 members: %v, %v, want +Inf", large[0], large[1])
	}
}
