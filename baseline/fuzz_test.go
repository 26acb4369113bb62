package baseline_test

import (
	"io"
	"math"
	"testing"
	"time"

	"github.com/baglab/baglab/baseline"
)

// FuzzCompare compares arbitrary documents: no panic, a document
// never differs from itself, the comparison is symmetric in the number of
// differences (when neither carries tolerances), every report renders and
// an updated baseline parses again.
func FuzzCompare(f *testing.F) {
	docs := []string{
		`{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN"}],"models":[{"decision_value":"+Inf","n":3}]}`,
		`{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.55,"wilson_low":0.1},{"model_id":"1","grasp_id":"3"}]}`,
		`{"a":[1,2,3],"b":{"c":null,"d":true},"e":"-Inf"}`,
		`{"a":[1,2],"b":{"c":1e400,"d":false}}`,
		`[{"id":1,"x":1},{"id":1,"x":2}]`,
		`[{"id":2,"x":1},{"id":1,"x":2.5}]`,
		`0`, `"NaN"`, `null`, `{}`,
		"// c\n{\"baseline\":{// why\n\"comment\":\"x\",\"tolerances\":{\"grasps.grasps[*].success_rate\":{\"rel\":0.1},\"**.n\":{\"ignore\":true}}},\"kind\":\"grasps\",\"grasps\":[{\"model_id\":\"1\",\"grasp_id\":\"2\",\"success_rate\":0.5,\"n\":3}]}",
		`[{"path":"a.bag","format":"bag","topics":[{"topic":"/x","message_count":2}]},{"path":"b.bag","format":"bag","topics":[]}]`,
		`{"baseline":{"tolerances":{"files[path=a.bag].topics[*].message_count":{"abs":1}}},"kind":"dataset","files":[{"path":"a.bag","format":"bag","topics":[{"topic":"/x","message_count":3}]}]}`,
	}
	for i, a := range docs {
		f.Add([]byte(a), []byte(docs[(i+1)%len(docs)]), 0.01)
	}
	f.Fuzz(func(t *testing.T, a, b []byte, tol float64) {
		if math.IsNaN(tol) || tol < 0 {
			tol = 0
		}
		self, err := baseline.CompareDocs(a, a, tol, keys)
		if err == nil && len(self) > 0 {
			t.Fatalf("document differs from itself: %v", self)
		}
		ab, errA := baseline.CompareDocs(a, b, tol, keys)
		ba, errB := baseline.CompareDocs(b, a, tol, keys)
		// Two documents that both parse as baselines compare both ways or
		// neither; without tolerances of their own, symmetrically.
		pa, _ := baseline.Parse(a, keys)
		pb, _ := baseline.Parse(b, keys)
		if pa != nil && pb != nil && (errA == nil) != (errB == nil) {
			t.Fatalf("errors %v / %v", errA, errB)
		}
		plain := pa != nil && pb != nil && len(pa.Tolerances) == 0 && len(pb.Tolerances) == 0
		if plain && len(ab) != len(ba) {
			t.Fatalf("%d differences one way, %d the other:\n%v\n%v", len(ab), len(ba), ab, ba)
		}
		for _, d := range ab {
			_ = d.String()
		}
		// A parsed baseline renders every report and updates to a file
		// that parses again.
		if base, err := baseline.Parse(a, keys); err == nil {
			if c, err := base.Compare(b, baseline.CompareOptions{Tolerance: tol, ContentHash: true}); err == nil {
				_ = c.WriteText(io.Discard, "a", 5)
				_ = c.WriteMarkdown(io.Discard, "a", 5)
				_ = c.WriteJUnit(io.Discard, "a", time.Time{}, "h")
				if up, err := base.Update(b); err != nil {
					t.Fatalf("update with a comparable result: %v", err)
				} else if _, err := baseline.Parse(up, keys); err != nil {
					t.Fatalf("updated baseline does not parse: %v\n%s", err, up)
				}
			}
		}
	})
}
