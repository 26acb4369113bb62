package baseline_test

import (
	"fmt"
	"os"

	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
)

// Comparing a new result with a saved one: rows are matched by their
// documented keys, numbers may move by a relative tolerance, and the
// baseline's own tolerances name statistics by path glob.
func ExampleBaseline_Compare() {
	saved := []byte(`{
	  "baseline": {"tolerances": {"grasps.grasps[*].wilson_low": {"abs": 0.05}}},
	  "kind": "grasps",
	  "grasps": [{"model_id": "1", "grasp_id": "2", "success_rate": 0.5, "wilson_low": 0.2},
	             {"model_id": "1", "grasp_id": "3", "success_rate": 0.25, "wilson_low": 0.1}]}`)
	now := []byte(`{"kind": "grasps", "grasps": [
	    {"model_id": "1", "grasp_id": "3", "success_rate": 0.2, "wilson_low": 0.14},
	    {"model_id": "1", "grasp_id": "4", "success_rate": 1, "wilson_low": 0.3},
	    {"model_id": "1", "grasp_id": "2", "success_rate": 0.501, "wilson_low": 0.2}]}`)
	b, err := baseline.Parse(saved, kinds.TableKeys())
	if err != nil {
		panic(err)
	}
	c, err := b.Compare(now, baseline.CompareOptions{Tolerance: 0.01})
	if err != nil {
		panic(err)
	}
	_ = c.WriteText(os.Stdout, "grasps.json", 10)
	fmt.Println("drift:", c.Drift())
	// Output:
	// baseline grasps.json: drift in 1 of 1 statistic groups (default tolerance rel 0.01)
	//   grasps.grasps: 2 -> 3 rows: 1 new grasp, 1 of 4 statistics differ
	//   1 new grasp: model_id=1,grasp_id=4
	//   grasps.grasps[model_id=1,grasp_id=3].success_rate: 0.25 -> 0.2 (-20%, tolerance rel 0.01)
	// drift: true
}
