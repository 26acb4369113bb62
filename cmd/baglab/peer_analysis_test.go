package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// peerStudy writes a bag with Debian's rosbag and genpy (classes generated
// at run time from the definitions' full texts), draws the data with numpy
// and prints the statistics numpy computes from it.
const peerStudy = `
import json, sys
import numpy as np
import genpy.dynamic, rosbag, rospy

out, defs = sys.argv[1], json.load(open(sys.argv[2]))
def cls(name):
    return genpy.dynamic.generate_dynamic(name, defs[name])[name]
Placement, PlacementSet = cls("interactive_world_msgs/Placement"), cls("interactive_world_msgs/PlacementSet")
GraspModel, GWSR = cls("rail_pick_and_place_msgs/GraspModel"), cls("rail_pick_and_place_msgs/GraspWithSuccessRate")

rng = np.random.default_rng(42)
truth = {"groups": {}, "grasps": {}}
with rosbag.Bag(out, "w", compression="bz2") as bag:
    t0 = 1700000000.0
    for k, (item, surface, mx, my, n) in enumerate([("mug", "desk", 0.3, 0.2, 40), ("pen", "desk", 0.9, 0.1, 25)]):
        xs, ys = rng.normal(mx, 0.05, n), rng.normal(my, 0.02, n)
        th = rng.normal(0.5, 0.1, n)
        ps = PlacementSet()
        ps.item.name, ps.surface.name, ps.room.name, ps.reference_frame_id = item, surface, "office", surface
        for i in range(n):
            p = Placement()
            p.item.name, p.surface.name, p.room.name, p.reference_frame_id = item, surface, "office", surface
            p.position.x, p.position.y, p.position.z, p.rotation = xs[i], ys[i], 0.75, th[i]
            ps.placements.append(p)
        bag.write("/placements", ps, rospy.Time.from_sec(t0 + k))
        c = np.exp(1j * th).mean()
        truth["groups"][item] = {"n": n, "mean_x": xs.mean(), "mean_y": ys.mean(), "sd_x": xs.std(), "sd_y": ys.std(),
            "sd_sample_x": xs.std(ddof=1), "min_x": xs.min(), "max_y": ys.max(),
            "rotation_circular_mean": float(np.angle(c)), "rotation_resultant_length": float(abs(c))}
    m = GraspModel()
    m.id, m.object_name = 7, "mug"
    for gid, (s, a) in enumerate([(9, 10), (3, 12), (0, 0)], start=1):
        g = GWSR()
        g.id, g.grasp.successes, g.grasp.attempts = gid, s, a
        m.grasps.append(g)
        truth["grasps"][str(gid)] = {"successes": s, "attempts": a, "rate": s / a if a else None}
    bag.write("/grasp_models", m, rospy.Time.from_sec(t0 + 5))
print(json.dumps(truth))
`

// TestAnalyzePeerRecording runs the analyses on a bag Debian's rosbag wrote
// and compares them with numpy's statistics of the same data.
func TestAnalyzePeerRecording(t *testing.T) {
	dir := t.TempDir()
	defs := map[string]string{}
	for _, name := range []string{"interactive_world_msgs/Placement", "interactive_world_msgs/PlacementSet", "rail_pick_and_place_msgs/GraspModel", "rail_pick_and_place_msgs/GraspWithSuccessRate"} {
		typ, err := msgdef.Default().Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		defs[name] = msgdef.FullText(typ)
	}
	defsPath := filepath.Join(dir, "defs.json")
	b, _ := json.Marshal(defs)
	if err := os.WriteFile(defsPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bagPath := filepath.Join(dir, "peer.bag")
	testenv.RequirePeer(t, "rosbag")
	out, err := exec.Command(testenv.Python, "-c", peerStudy, bagPath, defsPath).Output()
	if err != nil {
		t.Fatalf("peer: %v", err)
	}
	var truth struct {
		Groups map[string]map[string]float64
		Grasps map[string]struct {
			Successes, Attempts int
			Rate                *float64
		}
	}
	if err := json.Unmarshal(out, &truth); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := run(t, "analyze", "placements", "--json", "--no-learn", bagPath)
	if code != 0 {
		t.Fatalf("analyze placements: %s", stderr)
	}
	var pl struct {
		Groups []map[string]any `json:"groups"`
	}
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatal(err)
	}
	if len(pl.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(pl.Groups))
	}
	for _, g := range pl.Groups {
		want := truth.Groups[g["item"].(string)]
		for stat, w := range want {
			got, ok := g[stat].(float64)
			if !ok || math.Abs(got-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("%s %s = %v, numpy %v", g["item"], stat, g[stat], w)
			}
		}
	}

	stdout, stderr, code = run(t, "analyze", "grasps", "--json", bagPath)
	if code != 0 {
		t.Fatalf("analyze grasps: %s", stderr)
	}
	var gr struct {
		Grasps []struct {
			GraspID     string `json:"grasp_id"`
			Successes   int    `json:"successes"`
			Attempts    int    `json:"attempts"`
			SuccessRate any    `json:"success_rate"` // a number, or "NaN" when untried
			Untried     bool   `json:"untried"`
		} `json:"grasps"`
	}
	if err := json.Unmarshal([]byte(stdout), &gr); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(gr.Grasps) != 3 {
		t.Fatalf("%d grasps, want 3", len(gr.Grasps))
	}
	for _, g := range gr.Grasps {
		w := truth.Grasps[g.GraspID]
		if g.Successes != w.Successes || g.Attempts != w.Attempts || g.Untried != (w.Attempts == 0) {
			t.Errorf("grasp %s: %+v, peer %+v", g.GraspID, g, w)
		}
		rate, isNumber := g.SuccessRate.(float64)
		if w.Rate != nil && (!isNumber || math.Abs(rate-*w.Rate) > 1e-12) {
			t.Errorf("grasp %s rate %v, want %v", g.GraspID, g.SuccessRate, *w.Rate)
		}
		if w.Rate == nil && isNumber {
			t.Errorf("untried grasp %s has rate %v", g.GraspID, rate)
		}
	}
}
