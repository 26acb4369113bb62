package analysis

import (
	"fmt"
	"testing"
)

// BenchmarkLearnGroup learns the model of one placement group (6 clusters)
// of each size; points/s count the group's placements.
func BenchmarkLearnGroup(b *testing.B) {
	for _, n := range []int{1500, 4800} {
		rows := clusteredRows(n, 6, 1)
		pts := make([]point, len(rows))
		for i, r := range rows {
			pts[i] = point{X: r[0], Y: r[1], Theta: r[2]}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				models := make([]LearnedModel, 1)
				learnGroups(models, [][]point{pts}, []int{0}, LearnOptions{})
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}
