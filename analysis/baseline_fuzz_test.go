package analysis

import (
	"math"
	"testing"
)

// FuzzCompareBaseline compares arbitrary documents: no panic, a document
// never differs from itself, and the comparison is symmetric in the number
// of differences.
func FuzzCompareBaseline(f *testing.F) {
	docs := []string{
		`{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN"}],"models":[{"decision_value":"+Inf","n":3}]}`,
		`{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.55,"wilson_low":0.1},{"model_id":"1","grasp_id":"3"}]}`,
		`{"a":[1,2,3],"b":{"c":null,"d":true},"e":"-Inf"}`,
		`{"a":[1,2],"b":{"c":1e400,"d":false}}`,
		`[{"id":1,"x":1},{"id":1,"x":2}]`,
		`[{"id":2,"x":1},{"id":1,"x":2.5}]`,
		`0`, `"NaN"`, `null`, `{}`,
	}
	for i, a := range docs {
		f.Add([]byte(a), []byte(docs[(i+1)%len(docs)]), 0.01)
	}
	f.Fuzz(func(t *testing.T, a, b []byte, tol float64) {
		if math.IsNaN(tol) || tol < 0 {
			tol = 0
		}
		self, err := CompareBaseline(a, a, tol)
		if err == nil && len(self) > 0 {
			t.Fatalf("document differs from itself: %v", self)
		}
		ab, errA := CompareBaseline(a, b, tol)
		ba, errB := CompareBaseline(b, a, tol)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("errors %v / %v", errA, errB)
		}
		if len(ab) != len(ba) {
			t.Fatalf("%d differences one way, %d the other:\n%v\n%v", len(ab), len(ba), ab, ba)
		}
		for _, d := range ab {
			_ = d.String()
		}
	})
}
