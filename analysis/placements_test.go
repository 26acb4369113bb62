package analysis

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode/value"
)

// cluster is a ground-truth placement cluster.
type cluster struct {
	n                     int
	x, y, theta, sd, sdTh float64
}

type studyGroup struct {
	item, frame string
	clusters    []cluster
}

// placementStudy generates a study with known clusters: a TaskTrainingData
// of PlacementSets, standalone Placements, and a recorded TaskModels.
func placementStudy(t *testing.T, seed uint64) []*Message {
	r := rand.New(rand.NewPCG(seed, 7))
	groups := []studyGroup{
		{"cup", "table", []cluster{{36, 0.40, 0.30, 0.5, 0.01, 0.02}, {24, -0.30, 0.20, -1.0, 0.05, 0.1}}},
		{"plate", "table", []cluster{{40, 0.00, -0.25, 0.0, 0.02, 0.05}}},
		{"cup", "plate", []cluster{{60, 0.10, 0.05, 0.5, 0.03, 0.05}}},
		{"knife", "table", []cluster{{2, 0.2, 0.2, 0, 0.01, 0.01}}},
		{"spoon", "table", []cluster{{1, 0.1, 0.1, 0, 0.01, 0.01}}},
	}
	room := mk(t, "interactive_world_msgs/Room", map[string]any{"name": "kitchen", "width": 5.0, "height": 4.0})
	surface := mk(t, "interactive_world_msgs/Surface", map[string]any{"name": "table", "width": 1.2, "height": 0.8})
	var sets []*value.Struct
	var standalone []*Message
	ts := int64(1_700_000_000e9)
	for _, g := range groups {
		item := mk(t, "interactive_world_msgs/Item", map[string]any{"name": g.item, "width": 0.1, "height": 0.1})
		var pls []*value.Struct
		for _, c := range g.clusters {
			for i := 0; i < c.n; i++ {
				p := mk(t, "interactive_world_msgs/Placement", map[string]any{
					"item": item, "room": room, "surface": surface, "reference_frame_id": g.frame,
					"position.x": c.x + r.NormFloat64()*c.sd, "position.y": c.y + r.NormFloat64()*c.sd,
					"position.z": 0.75 + r.NormFloat64()*0.001, "rotation": c.theta + r.NormFloat64()*c.sdTh,
				})
				// every 5th placement is recorded on its own topic
				if len(pls)%5 == 4 {
					ts += 1e9
					standalone = append(standalone, msgOf("/placement", ts, p))
					continue
				}
				pls = append(pls, p)
			}
		}
		sets = append(sets, mk(t, "interactive_world_msgs/PlacementSet", map[string]any{
			"item": item, "room": room, "surface": surface, "reference_frame_id": g.frame, "placements": pls}))
	}
	msgs := []*Message{msgOf("/training", ts+1e9, mk(t, "interactive_world_msgs/TaskTrainingData", map[string]any{"data": sets}))}
	msgs = append(msgs, standalone...)
	// a recorded model for cup/table, whose placement must not count
	cup := mk(t, "interactive_world_msgs/Item", map[string]any{"name": "cup"})
	model := mk(t, "interactive_world_msgs/Model", map[string]any{
		"placement": mk(t, "interactive_world_msgs/Placement", map[string]any{"item": cup, "room": room, "surface": surface,
			"reference_frame_id": "table", "position.x": 0.41, "position.y": 0.29, "rotation": 0.5}),
		"decision_value": 0.02, "sigma_x": 0.011, "sigma_y": 0.012, "sigma_theta": 0.021})
	msgs = append(msgs, msgOf("/models", ts+2e9, mk(t, "interactive_world_msgs/TaskModels", map[string]any{"models": []*value.Struct{model}})))
	return msgs
}

func placementsResult(t *testing.T, o LearnOptions, msgs []*Message) *PlacementsResult {
	t.Helper()
	a := NewPlacements(o)
	for _, m := range msgs {
		if err := a.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	return r.(*PlacementsResult)
}

const numpyGroupStats = `
import json, sys
import numpy as np
out = []
for g in json.load(sys.stdin):
    p = np.array(g, dtype=float).reshape(-1, 4)
    x, y, z, th = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    s, c = np.mean(np.sin(th)), np.mean(np.cos(th))
    R = np.hypot(s, c)
    n = len(x)
    d = dict(n=n,
        mean=[float(np.mean(v)) for v in (x, y, z)],
        sd=[float(np.std(v)) for v in (x, y, z)],
        sds=[float(np.std(v, ddof=1)) if n > 1 else None for v in (x, y, z)],
        mins=[float(np.min(v)) for v in (x, y, z)],
        maxs=[float(np.max(v)) for v in (x, y, z)],
        cmean=float(np.arctan2(s, c)), R=float(R), csd=float(np.sqrt(-2 * np.log(min(R, 1.0)))),
        spread=float(np.sqrt(np.var(x) + np.var(y))))
    out.append(d)
print(json.dumps(out))
`

// TestPlacementStatsNumpy compares every group statistic with numpy.
func TestPlacementStatsNumpy(t *testing.T) {
	res := placementsResult(t, LearnOptions{}, placementStudy(t, 1))
	if len(res.Groups) != 5 {
		t.Fatalf("groups: %d", len(res.Groups))
	}
	var in [][]float64
	for _, pts := range res.Points {
		var flat []float64
		for _, p := range pts {
			flat = append(flat, p.X, p.Y, p.Z, p.Rotation)
		}
		in = append(in, flat)
	}
	var want []struct {
		N                         int
		Mean, SD, Sds, Mins, Maxs []float64
		Cmean, R, Csd, Spread     float64
	}
	runPython(t, numpyGroupStats, in, &want)
	total := 0
	for i, g := range res.Groups {
		w := want[i]
		total += g.N
		if g.N != w.N {
			t.Fatalf("%v: n %d, numpy %d", g.GroupKey, g.N, w.N)
		}
		got := [][]Num{{g.MeanX, g.MeanY, g.MeanZ}, {g.SDX, g.SDY, g.SDZ}, {g.MinX, g.MinY, g.MinZ}, {g.MaxX, g.MaxY, g.MaxZ}}
		for j, ref := range [][]float64{w.Mean, w.SD, w.Mins, w.Maxs} {
			for k := range ref {
				near(t, g.GroupKey.String()+" stat", float64(got[j][k]), ref[k], 1e-12)
			}
		}
		if w.N > 1 {
			for k, v := range []Num{g.SDSampleX, g.SDSampleY, g.SDSampleZ} {
				near(t, g.GroupKey.String()+" sample sd", float64(v), w.Sds[k], 1e-12)
			}
		} else if !math.IsNaN(float64(g.SDSampleX)) {
			t.Errorf("sample sd of one placement should be NaN")
		}
		near(t, g.GroupKey.String()+" circular mean", float64(g.RotationMean), w.Cmean, 1e-12)
		near(t, g.GroupKey.String()+" R", float64(g.RotationResultantLength), w.R, 1e-12)
		near(t, g.GroupKey.String()+" circular sd", float64(g.RotationSD), w.Csd, 1e-9)
		near(t, g.GroupKey.String()+" spread", float64(g.Spread), w.Spread, 1e-12)
	}
	// the model's placement is not an observation
	if total != 163 || res.Placements != 163 {
		t.Errorf("placements: %d %d, want 163", total, res.Placements)
	}
	// frame ranking: cup is best explained by the plate frame (one tight
	// cluster) rather than the table frame (two clusters)
	for _, f := range res.Frames {
		if f.Item == "cup" && f.Rank == 1 && f.ReferenceFrameID != "plate" {
			t.Errorf("cup's best frame: %s", f.ReferenceFrameID)
		}
	}
}

const numpyRanks = `
import json, sys
import numpy as np
out = []
for g in json.load(sys.stdin):
    p = np.array(g["points"], dtype=float).reshape(-1, 3)
    a = np.array(g["assign"])
    N = len(p)
    ranks = []
    for m in range(g["k"]):
        q = p[a == m]
        n = len(q)
        if n < 2:
            ranks.append(None)
            continue
        d = np.sqrt(((q[:, None, :] - q[None, :, :]) ** 2).sum(-1)).sum()
        ranks.append(float(d / (n * (n - 1)) / (n / N)))
    out.append(ranks)
print(json.dumps(out))
`

// TestLearnerProperties checks the learned models: known clusters are
// recovered, rank_m and the decision value agree with numpy on our
// assignments, the 5% rule prunes, and models are reported for recorded
// ones.
func TestLearnerProperties(t *testing.T) {
	res := placementsResult(t, LearnOptions{}, placementStudy(t, 1))
	if res.PruneTotal != 103 || res.PruneLimit != 5 {
		t.Fatalf("prune total %d limit %d, want 103 and 5", res.PruneTotal, res.PruneLimit)
	}
	byKey := map[string]LearnedModel{}
	for _, m := range res.Models {
		byKey[m.Item+"/"+m.ReferenceFrameID] = m
	}
	cup := byKey["cup/table"]
	if cup.Clusters != 2 || !cup.HasPlacement {
		t.Fatalf("cup/table: %d clusters, placement %v", cup.Clusters, cup.HasPlacement)
	}
	// the tight cluster (sd 0.01 at 0.40, 0.30, 0.5) wins
	near(t, "cup x", float64(cup.Placement.Position.X), 0.40, 0.01)
	near(t, "cup y", float64(cup.Placement.Position.Y), 0.30, 0.01)
	near(t, "cup theta", float64(cup.Placement.Rotation), 0.5, 0.02)
	if sx := float64(cup.SigmaX); sx < 0.005 || sx > 0.02 {
		t.Errorf("cup sigma_x %v, want about 0.01", sx)
	}
	if cup.SigmaZ != 0 || cup.Placement.Position.Z != 0 {
		t.Errorf("z must be 0")
	}
	for _, k := range []string{"knife/table", "spoon/table"} {
		if m := byKey[k]; !m.Pruned || m.HasPlacement || !math.IsInf(float64(m.DecisionValue), 1) {
			t.Errorf("%s: pruned %v placement %v decision %v", k, m.Pruned, m.HasPlacement, m.DecisionValue)
		}
	}
	// rank_m against numpy
	type in struct {
		Points []float64 `json:"points"`
		Assign []int     `json:"assign"`
		K      int       `json:"k"`
	}
	var ins []in
	var models []LearnedModel
	for gi, m := range res.Models {
		if m.Clusters == 0 {
			continue
		}
		var pts []float64
		for _, p := range res.Points[gi] {
			pts = append(pts, p.X, p.Y, p.Rotation)
		}
		ins = append(ins, in{pts, m.Assignments, m.Clusters})
		models = append(models, m)
	}
	var ranks [][]*float64
	runPython(t, numpyRanks, ins, &ranks)
	for i, m := range models {
		best := math.Inf(1)
		for c, r := range ranks[i] {
			got := float64(m.ClusterStats[c].Rank)
			if r == nil {
				if !math.IsInf(got, 1) {
					t.Errorf("%v cluster %d: rank %v, want +Inf", m.GroupKey, c, got)
				}
				continue
			}
			near(t, m.GroupKey.String()+" rank", got, *r, 1e-12)
			best = math.Min(best, *r)
		}
		near(t, m.GroupKey.String()+" decision_value", float64(m.DecisionValue), best, 1e-12)
	}
	// the recorded model is compared with the learned one
	if len(res.Recorded) != 1 || !res.Recorded[0].Learned {
		t.Fatalf("recorded: %+v", res.Recorded)
	}
	near(t, "delta x", float64(res.Recorded[0].DeltaX), float64(cup.Placement.Position.X)-0.41, 1e-15)

	// without pruning: the single placement is skipped, the pair learned
	res = placementsResult(t, LearnOptions{PruneFraction: -1}, placementStudy(t, 1))
	for _, m := range res.Models {
		switch m.Item {
		case "spoon":
			if !m.Skipped || m.HasPlacement {
				t.Errorf("spoon: %+v", m)
			}
		case "knife":
			if m.Pruned || m.Skipped || !m.HasPlacement || m.Clusters != 1 {
				t.Errorf("knife: %+v", m)
			}
		}
	}
}

// TestPlacementsMergeExact checks that any split of the input and any merge
// order give byte-identical results.
func TestPlacementsMergeExact(t *testing.T) {
	msgs := placementStudy(t, 3)
	whole := NewPlacements(LearnOptions{})
	for _, m := range msgs {
		whole.Add(m)
	}
	want := resultJSON(t, whole)
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 3; trial++ {
		parts := []*Placements{NewPlacements(LearnOptions{}), NewPlacements(LearnOptions{}), NewPlacements(LearnOptions{})}
		for _, i := range r.Perm(len(msgs)) {
			parts[r.IntN(3)].Add(msgs[i])
		}
		order := r.Perm(3)
		acc := parts[order[0]]
		for _, i := range order[1:] {
			if err := acc.Merge(parts[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got := resultJSON(t, acc); !bytes.Equal(got, want) {
			t.Fatalf("trial %d: merged result differs", trial)
		}
	}
}

// TestThetaCircular: a cluster straddling +-pi is one cluster in circular
// mode, with its rotation near pi.
func TestThetaCircular(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	p := NewPlacements(LearnOptions{Theta: ThetaCircular, PruneFraction: -1})
	pl := lookupType(t, "interactive_world_msgs/Placement")
	for i := 0; i < 30; i++ {
		th := math.Pi + r.NormFloat64()*0.05
		p.Add(msgOf("/p", int64(i), mk(t, pl, map[string]any{"item.name": "cup", "reference_frame_id": "t",
			"position.x": 0.1 + r.NormFloat64()*0.01, "position.y": r.NormFloat64() * 0.01, "rotation": wrapAngle(th)})))
	}
	res, _ := p.Result()
	m := res.(*PlacementsResult).Models[0]
	if m.Clusters != 1 || math.Abs(math.Abs(float64(m.Placement.Rotation))-math.Pi) > 0.05 || float64(m.SigmaTheta) > 0.1 {
		t.Errorf("circular: %d clusters, rotation %v, sigma %v", m.Clusters, m.Placement.Rotation, m.SigmaTheta)
	}
	b, _ := json.Marshal(res)
	if !bytes.Contains(b, []byte(`"theta":"circular"`)) {
		t.Errorf("theta mode not reported")
	}
}
