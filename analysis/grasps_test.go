package analysis

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// graspStudy returns GraspModel messages (two models, old Grasp layout)
// with counts drawn from known success probabilities, a SegmentedObjectList
// using the 0.0.9 Grasp layout with grasp_id, and GraspAndStore / yes-no
// action streams.
func graspStudy(t *testing.T) ([]*Message, map[string][2]int64) {
	r := rand.New(rand.NewPCG(5, 5))
	truth := map[string][2]int64{}
	var msgs []*Message
	ts := int64(1e18)
	probs := [][]float64{{0.9, 0.5, 0.1, -1}, {0.7, 0.3}}
	for mi, ps := range probs {
		var grasps []*value.Struct
		for gi, p := range ps {
			var k, n int64
			if p >= 0 {
				n = 20 + int64(r.IntN(20))
				for i := int64(0); i < n; i++ {
					if r.Float64() < p {
						k++
					}
				}
			}
			id := int64(100*(mi+1) + gi)
			truth[itoa(int64(mi+1))+"/"+itoa(id)] = [2]int64{k, n}
			grasps = append(grasps, mk(t, "rail_pick_and_place_msgs/GraspWithSuccessRate", map[string]any{
				"id": id, "grasp.successes": k, "grasp.attempts": n, "grasp.eef_frame_id": "gripper"}))
		}
		obj := []string{"bowl", "cup"}[mi]
		gm := mk(t, "rail_pick_and_place_msgs/GraspModel", map[string]any{"id": mi + 1, "object_name": obj, "grasps": grasps})
		// an older state first, then the current one
		old := mk(t, "rail_pick_and_place_msgs/GraspModel", map[string]any{"id": mi + 1, "object_name": obj, "grasps": grasps[:1]})
		msgs = append(msgs, msgOf("/grasp_models", ts, old))
		ts += 1e9
		res := mk(t, "rail_pick_and_place_msgs/RetrieveGraspModelActionResult", map[string]any{"result.success": true, "result.grasp_model": gm})
		msgs = append(msgs, msgOf("/retrieve_grasp/result", ts, res))
		ts += 1e9
	}
	// 0.0.9+ Grasp with grasp_id inside a SegmentedObject
	g9, err := msgdef.ParseBundle("rail_manipulation_msgs/Grasp",
		"geometry_msgs/PoseStamped grasp_pose\nstring eef_frame_id\nuint32 grasp_id\nuint32 successes\nuint32 attempts\n", msgdef.ROS1, registry)
	if err != nil {
		t.Fatal(err)
	}
	so, err := msgdef.ParseBundle("rail_manipulation_msgs/SegmentedObject", "string name\nuint32 model_id\nGrasp[] grasps\n", msgdef.ROS1, registry)
	if err != nil {
		t.Fatal(err)
	}
	so.Fields[2].Msg = g9
	obj := mk(t, so, map[string]any{"name": "spoon", "model_id": 7, "grasps": []*value.Struct{
		mk(t, g9, map[string]any{"grasp_id": 42, "successes": 3, "attempts": 4}),
		mk(t, g9, map[string]any{"grasp_id": 43, "successes": 0, "attempts": 0}),
	}})
	msgs = append(msgs, msgOf("/objects", ts, obj))
	truth["7/42"] = [2]int64{3, 4}
	truth["7/43"] = [2]int64{0, 0}
	return msgs, truth
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

const numpyWilson = `
import json, sys
import numpy as np
z = 1.959963984540054
out = []
for k, n in json.load(sys.stdin):
    if n == 0:
        out.append(None); continue
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    out.append([p, float(c - h), float(c + h)])
print(json.dumps(out))
`

func TestGraspRates(t *testing.T) {
	msgs, truth := graspStudy(t)
	g := NewGrasps(0)
	for _, m := range msgs {
		g.Add(m)
	}
	r, _ := g.Result()
	res := r.(*GraspsResult)
	if len(res.Grasps) != len(truth) {
		t.Fatalf("grasps: %d, want %d", len(res.Grasps), len(truth))
	}
	var in [][2]int64
	for _, gs := range res.Grasps {
		want, ok := truth[gs.ModelID+"/"+gs.GraspID]
		if !ok || gs.Successes != want[0] || gs.Attempts != want[1] {
			t.Errorf("grasp %s/%s: %d/%d, want %v", gs.ModelID, gs.GraspID, gs.Successes, gs.Attempts, want)
		}
		if gs.Untried != (want[1] == 0) {
			t.Errorf("grasp %s/%s untried %v", gs.ModelID, gs.GraspID, gs.Untried)
		}
		in = append(in, [2]int64{gs.Successes, gs.Attempts})
	}
	var want []*[3]float64
	runPython(t, numpyWilson, in, &want)
	for i, gs := range res.Grasps {
		if want[i] == nil {
			if !math.IsNaN(float64(gs.SuccessRate)) {
				t.Errorf("untried grasp has rate %v", gs.SuccessRate)
			}
			continue
		}
		near(t, "rate", float64(gs.SuccessRate), want[i][0], 1e-15)
		near(t, "wilson low", float64(gs.WilsonLow), want[i][1], 1e-12)
		near(t, "wilson high", float64(gs.WilsonHigh), want[i][2], 1e-12)
	}
	// model 1: untried grasp 103 counted apart, best 100, worst 102
	m1 := res.Models[0]
	if m1.ModelID != "1" || m1.Untried != 1 || m1.Grasps != 4 || m1.Best != "100" || m1.Worst != "102" {
		t.Errorf("model 1: %+v", m1)
	}
	var k, n int64
	for _, id := range []string{"100", "101", "102"} {
		k += truth["1/"+id][0]
		n += truth["1/"+id][1]
	}
	if m1.Successes != k || m1.Attempts != n {
		t.Errorf("model 1 sums %d/%d, want %d/%d", m1.Successes, m1.Attempts, k, n)
	}
	if len(res.Objects) != 3 || res.Objects[2].ObjectName != "spoon" || res.Objects[2].Untried != 1 {
		t.Errorf("objects: %+v", res.Objects)
	}
}

// TestGraspAttempts feeds GraspAndStore goals/results with a known success
// probability and yes/no answers, and checks outcomes and windows.
func TestGraspAttempts(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	g := NewGrasps(10e9)
	t0 := int64(1_000_000e9)
	var succ, total int64
	for i := 0; i < 100; i++ {
		ts := t0 + int64(i)*2e9
		id := "goal-" + itoa(int64(i))
		ok := r.Float64() < 0.3+0.005*float64(i) // learning: success grows over time
		if ok {
			succ++
		}
		total++
		g.Add(msgOf("/grasp_and_store/goal", ts, mk(t, "rail_pick_and_place_msgs/GraspAndStoreActionGoal",
			map[string]any{"goal_id.id": id, "goal.object_name": "cup"})))
		st := 3
		if !ok {
			st = 4
		}
		g.Add(msgOf("/grasp_and_store/result", ts+1e9, mk(t, "rail_pick_and_place_msgs/GraspAndStoreActionResult",
			map[string]any{"status.goal_id.id": id, "status.status": st, "result.success": ok})))
	}
	// a goal without result and a yes/no answer after it
	g.Add(msgOf("/grasp_and_store/goal", t0+300e9, mk(t, "rail_pick_and_place_msgs/GraspAndStoreActionGoal",
		map[string]any{"goal_id.id": "last", "goal.object_name": "bowl"})))
	g.Add(msgOf("/feedback/result", t0+301e9, mk(t, "rail_pick_and_place_msgs/GetYesNoFeedbackActionResult",
		map[string]any{"result.yes": true})))
	r2, _ := g.Result()
	res := r2.(*GraspsResult)
	if len(res.Attempts) != 101 || res.Pending != 1 {
		t.Fatalf("attempts %d pending %d", len(res.Attempts), res.Pending)
	}
	if last := res.Attempts[100]; last.ObjectName != "bowl" || !last.Success || last.Source != "yes_no_feedback" {
		t.Errorf("yes/no attempt: %+v", last)
	}
	var cup GraspGroupStat
	for _, a := range res.AttemptRates {
		if a.ObjectName == "cup" {
			cup = a
		}
	}
	if cup.Successes != succ || cup.Attempts != total {
		t.Errorf("cup attempts %d/%d, want %d/%d", cup.Successes, cup.Attempts, succ, total)
	}
	// 10 s windows over attempts every 2 s: 5 attempts per window
	var sumK, sumN int64
	for _, w := range res.Curve {
		if w.ObjectName != "cup" {
			continue
		}
		if w.Attempts != 5 {
			t.Errorf("window %d: %d attempts", w.Window, w.Attempts)
		}
		sumK += w.Successes
		sumN += w.Attempts
	}
	if sumK != succ || sumN != total {
		t.Errorf("curve sums %d/%d", sumK, sumN)
	}
}

func TestGraspsMergeExact(t *testing.T) {
	msgs, _ := graspStudy(t)
	whole := NewGrasps(0)
	for _, m := range msgs {
		whole.Add(m)
	}
	want := resultJSON(t, whole)
	a, b := NewGrasps(0), NewGrasps(0)
	for i := len(msgs) - 1; i >= 0; i-- {
		if i%2 == 0 {
			a.Add(msgs[i])
		} else {
			b.Add(msgs[i])
		}
	}
	b.Merge(a)
	if got := resultJSON(t, b); !bytes.Equal(got, want) {
		t.Fatalf("merged differs:\n%s\n%s", got, want)
	}
}
