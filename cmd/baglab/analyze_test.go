package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Topics of the study's analysed streams (the /all_types/ topics carry one
// random message of every type and are left out where truth is compared).
const (
	placementTopics = "/interactive_world/**"
	graspTopics     = "/rail_pick_and_place/**"
	factTopics      = "/agent_monitor/factList"
	mapTopics       = "/lama/**"
	studyTopics     = "re:^/(interactive_world|rail_pick_and_place|agent_monitor|lama|remap)/"
)

// analyzeJSON runs analyze --json and decodes the result into out.
func analyzeJSON(t *testing.T, out any, args ...string) []byte {
	t.Helper()
	stdout, stderr, code := run(t, append([]string{"analyze"}, append(args, "--json")...)...)
	if code != 0 {
		t.Fatalf("analyze %v: exit %d\n%s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), out); err != nil {
		t.Fatalf("analyze %v: %v\n%.500s", args, err, stdout)
	}
	return []byte(stdout)
}

func closeTo(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.6g, want %.6g ± %.3g", what, got, want, tol)
	}
}

func TestAnalyzePlacementsTruth(t *testing.T) {
	for _, file := range []string{"study.bag", "study.mcap"} {
		t.Run(file, func(t *testing.T) {
			var r analysis.PlacementsResult
			analyzeJSON(t, &r, "placements", studyFile(file), "--topics", placementTopics)
			truth := study.Truth.Placements
			if len(r.Groups) != len(truth) || len(r.Models) != len(truth) {
				t.Fatalf("%d groups, %d models; truth has %d groups", len(r.Groups), len(r.Models), len(truth))
			}
			total, surfaceFrame := 0, 0
			for _, g := range truth {
				total += g.N
				if g.Frame == g.Surface {
					surfaceFrame += g.N
				}
			}
			limit := int(0.05 * float64(surfaceFrame))
			if r.Placements != total || r.PruneTotal != surfaceFrame || r.PruneLimit != limit {
				t.Errorf("placements %d, prune total %d, limit %d; want %d, %d, %d", r.Placements, r.PruneTotal, r.PruneLimit, total, surfaceFrame, limit)
			}
			byKey := map[analysis.GroupKey]int{}
			for i, g := range r.Groups {
				byKey[g.GroupKey] = i
			}
			for _, tg := range truth {
				key := analysis.GroupKey{Item: tg.Item, Room: tg.Room, Surface: tg.Surface, ReferenceFrameID: tg.Frame}
				i, ok := byKey[key]
				if !ok {
					t.Errorf("no group %s", key)
					continue
				}
				g, m := r.Groups[i], r.Models[i]
				if g.N != tg.N || m.N != tg.N || m.Pruned != (tg.N < limit) {
					t.Errorf("%s: n %d (model %d, pruned %v), want %d", key, g.N, m.N, m.Pruned, tg.N)
				}
				if !tg.True {
					continue
				}
				// The mean of a one-cluster group estimates the cluster mean.
				if len(tg.Clusters) == 1 {
					c := tg.Clusters[0]
					n := math.Sqrt(float64(tg.N))
					closeTo(t, key.String()+" mean_x", float64(g.MeanX), c.X, 4*c.SigmaX/n)
					closeTo(t, key.String()+" mean_y", float64(g.MeanY), c.Y, 4*c.SigmaY/n)
					closeTo(t, key.String()+" rotation mean", float64(g.RotationMean), c.Theta, 4*c.SigmaTheta/n)
				}
				// The learned model sits on one of the true clusters, and
				// every cluster the learner found with members is near one.
				if !m.HasPlacement {
					t.Errorf("%s: no model learned", key)
					continue
				}
				near := func(x, y, th float64, n int) bool {
					s := 4 / math.Sqrt(float64(max(n, 1)))
					for _, c := range tg.Clusters {
						if math.Abs(x-c.X) <= s*c.SigmaX+0.01 && math.Abs(y-c.Y) <= s*c.SigmaY+0.01 && math.Abs(th-c.Theta) <= s*c.SigmaTheta+0.02 {
							return true
						}
					}
					return false
				}
				if !near(float64(m.Placement.Position.X), float64(m.Placement.Position.Y), float64(m.Placement.Rotation), m.N) {
					t.Errorf("%s: model at (%.3f, %.3f, %.3f) is on no true cluster %+v", key, m.Placement.Position.X, m.Placement.Position.Y, m.Placement.Rotation, tg.Clusters)
				}
				found := 0
				for _, c := range m.ClusterStats {
					if c.N < 2 {
						continue
					}
					found++
					if !near(float64(c.MeanX), float64(c.MeanY), float64(c.MeanTheta), c.N) {
						t.Errorf("%s: cluster %d at (%.3f, %.3f, %.3f), n %d, is on no true cluster", key, c.Index, c.MeanX, c.MeanY, c.MeanTheta, c.N)
					}
				}
				if found < len(tg.Clusters) {
					t.Errorf("%s: %d clusters with members, truth has %d", key, found, len(tg.Clusters))
				}
			}
			// The recorded TaskModels holds each item's main true cluster.
			if len(r.Recorded) != 5 {
				t.Fatalf("%d recorded models, want 5", len(r.Recorded))
			}
			for _, rm := range r.Recorded {
				for _, tg := range truth {
					if tg.True && tg.Item == rm.Item {
						c := tg.Clusters[0]
						if float64(rm.Placement.Position.X) != c.X || float64(rm.SigmaTheta) != c.SigmaTheta || !rm.Learned {
							t.Errorf("recorded model %s: %+v, want cluster %+v", rm.Item, rm, c)
						}
					}
				}
			}
		})
	}
	// --prune=false learns every group; circular theta is reported.
	var r analysis.PlacementsResult
	analyzeJSON(t, &r, "placements", studyFile("study.bag"), "--topics", placementTopics, "--prune=false", "--theta", "circular")
	for _, m := range r.Models {
		if m.Pruned {
			t.Errorf("%s pruned with --prune=false", m.GroupKey)
		}
	}
	if r.Theta != "circular" || r.PruneLimit != 0 {
		t.Errorf("theta %q, prune limit %d", r.Theta, r.PruneLimit)
	}
}

func TestAnalyzeGraspsTruth(t *testing.T) {
	var r analysis.GraspsResult
	analyzeJSON(t, &r, "grasps", studyFile("study-lz4.bag"), "--topics", graspTopics)
	if len(r.Grasps) != len(study.Truth.Grasps) {
		t.Fatalf("%d grasps, truth has %d", len(r.Grasps), len(study.Truth.Grasps))
	}
	type sum struct{ grasps, untried, k, n int64 }
	models := map[string]*sum{}
	for i, tg := range study.Truth.Grasps {
		g := r.Grasps[i]
		model := fmt.Sprint(tg.ModelID)
		if g.ModelID != model || g.GraspID != fmt.Sprint(tg.GraspID) || g.ObjectName != tg.Object {
			t.Errorf("grasp %d is %s/%s (%s), want %d/%d (%s)", i, g.ModelID, g.GraspID, g.ObjectName, tg.ModelID, tg.GraspID, tg.Object)
		}
		if g.Successes != int64(tg.Successes) || g.Attempts != int64(tg.Attempts) || g.Untried != tg.Untried {
			t.Errorf("grasp %s/%s: %d/%d untried %v, want %d/%d untried %v", g.ModelID, g.GraspID, g.Successes, g.Attempts, g.Untried, tg.Successes, tg.Attempts, tg.Untried)
		}
		rate := float64(g.SuccessRate)
		if tg.Untried {
			if !math.IsNaN(rate) || !math.IsNaN(float64(g.WilsonLow)) {
				t.Errorf("untried grasp %s/%s has rate %v", g.ModelID, g.GraspID, rate)
			}
		} else if rate != float64(tg.Successes)/float64(tg.Attempts) || !(g.WilsonLow <= g.SuccessRate && g.SuccessRate <= g.WilsonHigh) {
			t.Errorf("grasp %s/%s: rate %v [%v, %v], want %v", g.ModelID, g.GraspID, rate, g.WilsonLow, g.WilsonHigh, float64(tg.Successes)/float64(tg.Attempts))
		}
		s := models[model]
		if s == nil {
			s = &sum{}
			models[model] = s
		}
		s.grasps++
		if tg.Untried {
			s.untried++
		} else {
			s.k += int64(tg.Successes)
			s.n += int64(tg.Attempts)
		}
	}
	if len(r.Models) != len(models) {
		t.Fatalf("%d models, want %d", len(r.Models), len(models))
	}
	for _, m := range r.Models {
		s := models[m.ModelID]
		if s == nil || int64(m.Grasps) != s.grasps || int64(m.Untried) != s.untried || m.Successes != s.k || m.Attempts != s.n ||
			float64(m.SuccessRate) != float64(s.k)/float64(s.n) {
			t.Errorf("model %s: %+v, want %+v", m.ModelID, m, s)
		}
	}
	// 60 GraspAndStore attempts, 20 per object, each verified by a yes/no
	// answer with the same outcome: two sources, never added together.
	if len(r.Attempts) != 120 || r.Pending != 0 || len(r.AttemptRates) != 6 {
		t.Fatalf("%d attempts, %d pending, %d attempt rates", len(r.Attempts), r.Pending, len(r.AttemptRates))
	}
	for i := 0; i < 6; i += 2 {
		a, b := r.AttemptRates[i], r.AttemptRates[i+1]
		if a.ObjectName != b.ObjectName || a.Source != "grasp_and_store" || b.Source != "yes_no_feedback" ||
			a.Attempts != 20 || b.Attempts != 20 || a.Successes != b.Successes {
			t.Errorf("attempt rates %+v / %+v", a, b)
		}
	}
}

func TestAnalyzeFactsTruth(t *testing.T) {
	var r analysis.FactsResult
	analyzeJSON(t, &r, "facts", studyFile("study.mcap"), "--topics", factTopics)
	truth := study.Truth.Facts
	if len(r.Intervals) != len(truth) {
		t.Fatalf("%d intervals, truth has %d", len(r.Intervals), len(truth))
	}
	// Snapshots come every 0.5 s until the last one; a fact still holding
	// then is closed there and flagged censored.
	var last int64
	for _, e := range study.ROS1 {
		if e.Topic == factTopics {
			last = max(last, e.LogTime)
		}
	}
	for _, f := range truth {
		i := slices.IndexFunc(r.Intervals, func(iv analysis.FactInterval) bool {
			return iv.SubjectID == f.Subject && iv.Property == f.Property && iv.TargetID == f.Target && iv.StartNs == f.StartNs
		})
		if i < 0 {
			t.Errorf("no interval %s %s %s from %d", f.Subject, f.Property, f.Target, f.StartNs)
			continue
		}
		iv := r.Intervals[i]
		end, censored := f.EndNs, false
		if f.EndNs > last {
			end, censored = last, true
		}
		if iv.EndNs != end || iv.Censored != censored || float64(iv.Duration) != float64(end-f.StartNs)/1e9 {
			t.Errorf("%s %s %s: %d..%d (%v s, censored %v), want %d..%d (censored %v)", f.Subject, f.Property, f.Target,
				iv.StartNs, iv.EndNs, iv.Duration, iv.Censored, f.StartNs, end, censored)
		}
		closeTo(t, f.Subject+" "+f.Property+" mean confidence", float64(iv.MeanConfidence), f.Confidence, 1e-12)
	}
}

func TestAnalyzeMapTruth(t *testing.T) {
	var r analysis.MapResult
	analyzeJSON(t, &r, "map", studyFile("study-bz2.bag"), "--topics", mapTopics)
	tr := study.Truth
	if r.Vertices != tr.Vertices || r.Edges != tr.Edges || r.Dangling != tr.Dangling {
		t.Errorf("%d vertices, %d edges, %d dangling; want %d, %d, %d", r.Vertices, r.Edges, r.Dangling, tr.Vertices, tr.Edges, tr.Dangling)
	}
	var areas []float64
	for _, p := range r.PlaceProfiles {
		areas = append(areas, float64(p.Area))
	}
	if !slices.Equal(areas, []float64{1, 4, 9}) {
		t.Errorf("place profile areas %v, want [1 4 9]", areas)
	}
}

func TestAnalyzeQueriesTruth(t *testing.T) {
	q := study.Truth.Queries
	for _, file := range []string{"queries.mcap", "queries.db3", "queries_rosbag2"} {
		var r analysis.QueriesResult
		analyzeJSON(t, &r, "queries", studyFile(file))
		if r.All.Calls != q.Requests || r.All.Responses != q.Requests || r.All.Successes != q.Successes ||
			float64(r.All.SuccessRate) != float64(q.Successes)/float64(q.Requests) {
			t.Errorf("%s: %+v, want %d calls, %d successes", file, r.All, q.Requests, q.Successes)
		}
		closeTo(t, file+" mean latency", float64(r.All.Latency.Mean), q.MeanLatencyNs/1e9, 1e-12)
	}
	// The same events from two recordings are one set of calls; a time
	// window keeps the requests in it.
	var r analysis.QueriesResult
	analyzeJSON(t, &r, "queries", studyFile("queries.mcap"), studyFile("queries.db3"), "--end", "+5s")
	if r.All.Calls != 5 || r.All.Responses != 5 {
		t.Errorf("first 5 s of both recordings: %d calls, %d responses; want 5, 5", r.All.Calls, r.All.Responses)
	}
}

// TestAnalyzeText checks the terminal tables: a headline per analysis and
// aligned columns.
func TestAnalyzeText(t *testing.T) {
	out, stderr, code := run(t, "analyze", "all", studyFile("study.bag"), studyFile("queries.mcap"), "--topics", studyTopics)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"# placements: ", "# grasps: 12 grasps (2 untried) in 3 models", "# facts: 5 facts, 6 intervals",
		"# map: 6 vertices, 5 edges (1 dangling)", "# queries: 20 calls, 20 responses, 16 successes (rate 0.8)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Every line of a table block has the same width (its last column is
	// numeric, right-aligned).
	blocks := strings.Split(out, "\n\n")
	checked := 0
	for _, b := range blocks {
		lines := strings.Split(strings.TrimRight(b, "\n"), "\n")
		if !strings.HasPrefix(lines[0], "grasps (") && !strings.HasPrefix(lines[0], "placement_groups (") {
			continue
		}
		checked++
		for _, l := range lines[2:] {
			if len(l) != len(lines[1]) {
				t.Errorf("%s: line %q is %d wide, header %d", lines[0], l, len(l), len(lines[1]))
			}
		}
		if !strings.Contains(lines[1], "success_rate") && !strings.Contains(lines[1], "mean_x") {
			t.Errorf("%s: header %q", lines[0], lines[1])
		}
	}
	if checked != 2 {
		t.Errorf("found %d of the 2 tables checked", checked)
	}
	// --wide shows the columns left out by default.
	out, _, _ = run(t, "analyze", "grasps", studyFile("study.bag"), "--topics", graspTopics, "--wide")
	if !strings.Contains(out, "eef_frame_id") {
		t.Error("--wide lacks eef_frame_id")
	}
}

func TestAnalyzeBaseline(t *testing.T) {
	dir := t.TempDir()
	args := []string{"analyze", "grasps", studyFile("study.bag"), "--topics", graspTopics}
	doc, _, code := run(t, append(args, "--json")...)
	if code != 0 {
		t.Fatal("analyze failed")
	}
	base := filepath.Join(dir, "base.json")
	if err := os.WriteFile(base, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, append(args, "--baseline", base)...); code != 0 {
		t.Errorf("against its own output: exit %d\n%s", code, stderr)
	}
	perturb := func(factor float64) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		g := m["models"].([]any)[1].(map[string]any)
		g["success_rate"] = g["success_rate"].(float64) * factor
		b, _ := json.Marshal(m)
		p := filepath.Join(dir, fmt.Sprintf("perturbed-%g.json", factor))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, stderr, code := run(t, append(args, "--baseline", perturb(1.05), "--tolerance", "0.01")...)
	if code != exitProblem || !strings.Contains(stderr, "grasps.models[model_id=2].success_rate: 0.525 -> 0.5 (-4.76%") ||
		!strings.Contains(stderr, "grasps.models: 3 rows: 1 of 30 statistics differ") {
		t.Errorf("perturbed beyond tolerance: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run(t, append(args, "--baseline", perturb(1.001), "--tolerance", "0.01")...); code != 0 {
		t.Errorf("perturbed within tolerance: exit %d\n%s", code, stderr)
	}
	// A baseline of another analysis is refused; a broken one is bad input.
	if _, stderr, code := run(t, "analyze", "map", studyFile("study.bag"), "--topics", mapTopics, "--baseline", base); code != exitBadInput || !strings.Contains(stderr, `baseline is a "grasps" result, this run is "map"`) {
		t.Errorf("other kind: exit %d\n%s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"kind":`), 0o644)
	if _, _, code := run(t, append(args, "--baseline", bad)...); code != exitBadInput {
		t.Errorf("broken baseline: exit %d", code)
	}
}

// splitStudy cuts study.bag into three files by time (the facts span the
// first cut) and returns their paths.
func splitStudy(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	var parts []string
	for i, w := range [][]string{{"--end", "+15s"}, {"--start", "+15s", "--end", "+120s"}, {"--start", "+120s"}} {
		p := filepath.Join(dir, fmt.Sprintf("part%d.bag", i))
		if _, stderr, code := run(t, append([]string{"filter", studyFile("study.bag"), p}, w...)...); code != 0 {
			t.Fatalf("filter: %s", stderr)
		}
		parts = append(parts, p)
	}
	return parts
}

// TestAnalyzeJobs checks that per-file accumulators merged in any order
// give the result of one accumulator reading every file, byte for byte, and
// the result of the unsplit recording.
func TestAnalyzeJobs(t *testing.T) {
	parts := splitStudy(t)
	inputs := append(slices.Clone(parts), studyFile("queries.mcap"), studyFile("queries.db3"))
	args := append([]string{"analyze", "all"}, inputs...)
	one, stderr, code := run(t, append(args, "--json", "--jobs", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, jobs := range []string{"2", "5"} {
		for range 3 {
			got, _, _ := run(t, append(args, "--json", "--jobs", jobs)...)
			if got != one {
				t.Fatalf("--jobs %s differs from --jobs 1 (%d vs %d bytes)", jobs, len(got), len(one))
			}
		}
	}
	reversed := slices.Clone(inputs)
	slices.Reverse(reversed)
	if got, _, _ := run(t, append(append([]string{"analyze", "all"}, reversed...), "--json", "--jobs", "1")...); got != one {
		t.Error("files in reverse order give another result")
	}
	whole, _, _ := run(t, "analyze", "all", studyFile("study.bag"), studyFile("queries.mcap"), "--json")
	diffs, err := baseline.CompareDocs([]byte(whole), []byte(one), 1e-12, baselineKeys())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		// queries.mcap and queries.db3 hold the same calls: queries counts
		// each call once, topics counts the messages of both files.
		if !strings.HasPrefix(d.Path, "topics.") {
			t.Errorf("split study differs from the whole: %s", d)
		}
	}
}

// duckdbQuery runs SQL with DuckDB through testdata/duckdb/query.mjs and
// returns the rows of the one result.
func duckdbQuery(t *testing.T, sql string) []map[string]any {
	t.Helper()
	testenv.RequirePeer(t, "duckdb")
	cmd := exec.Command("node", "../../testdata/duckdb/query.mjs", sql)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb %q: %v\n%s%s", sql, err, out, stderr.String())
	}
	var res struct {
		Rows  []map[string]any `json:"rows"`
		Error string           `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Error != "" {
		t.Fatalf("duckdb %q: %v %s", sql, err, out)
	}
	return res.Rows
}

func TestAnalyzeOutDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "tables")
	if _, stderr, code := run(t, "analyze", "all", studyFile("study.bag"), studyFile("queries.mcap"), "--topics", studyTopics, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"placement_groups", "placements", "models", "grasps", "learning_curve", "facts", "fact_intervals",
		"map_summary", "map_edges", "place_profiles", "queries", "queries_all"} {
		for _, ext := range []string{".parquet", ".csv"} {
			if st, err := os.Stat(filepath.Join(out, name+ext)); err != nil || st.Mode().Perm() != 0o644 {
				t.Errorf("%s%s: %v", name, ext, err)
			}
		}
	}
	var k, n, untried int64
	for _, g := range study.Truth.Grasps {
		k += int64(g.Successes)
		n += int64(g.Attempts)
		if g.Untried {
			untried++
		}
	}
	want := fmt.Sprintf(`{"a":"%d","k":"%d","n":"%d","u":"%d"}`, n, k, len(study.Truth.Grasps), untried)
	for _, src := range []string{"read_parquet('" + filepath.Join(out, "grasps.parquet") + "')", "read_csv('" + filepath.Join(out, "grasps.csv") + "')"} {
		rows := duckdbQuery(t, "SELECT count(*) AS n, sum(successes) AS k, sum(attempts) AS a, count(*) FILTER (WHERE untried) AS u FROM "+src)
		if got, _ := json.Marshal(rows[0]); len(rows) != 1 || string(got) != want {
			t.Errorf("%s: %s, want %s", src, got, want)
		}
	}
	rows := duckdbQuery(t, "SELECT list(area ORDER BY area) AS a, typeof(any_value(area)) AS t FROM read_parquet('"+filepath.Join(out, "place_profiles.parquet")+"')")
	if got, _ := json.Marshal(rows); string(got) != `[{"a":[1,4,9],"t":"DOUBLE"}]` {
		t.Errorf("place profile areas via duckdb: %s", got)
	}
	rows = duckdbQuery(t, "SELECT sum(n) AS n FROM read_parquet('"+filepath.Join(out, "placement_groups.parquet")+"')")
	total := 0
	for _, g := range study.Truth.Placements {
		total += g.N
	}
	if got, _ := json.Marshal(rows); string(got) != fmt.Sprintf(`[{"n":"%d"}]`, total) {
		t.Errorf("placement count via duckdb: %s, want %d", got, total)
	}
}

func TestAnalyzePlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	if _, stderr, code := run(t, "analyze", "all", studyFile("study.bag"), studyFile("queries.mcap"), "--topics", studyTopics, "--plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	groups := len(study.Truth.Placements)
	if len(names) != 2*(groups+7) {
		t.Errorf("%d files, want PNG and SVG for %d placement groups, grasp rates, two learning curves, the fact timeline, map degrees, query latency and the topic timeline: %v", len(names), groups, names)
	}
	for _, n := range []string{"grasp_rates.png", "fact_timeline.svg", "placements_00_book_bookshelf_bookshelf.png", "map_degrees.svg", "query_latency.png", "topic_timeline.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		switch {
		case err != nil:
			t.Error(err)
		case strings.HasSuffix(n, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
			t.Errorf("%s is not a PNG", n)
		case strings.HasSuffix(n, ".svg") && !bytes.Contains(b, []byte("<svg")):
			t.Errorf("%s is not an SVG", n)
		}
	}
	// --dpi sets the PNG resolution: twice the dots, twice the pixels.
	width := func(dir string) int {
		f, err := os.Open(filepath.Join(dir, "query_latency.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		c, err := png.DecodeConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.Width
	}
	hi := filepath.Join(t.TempDir(), "figs300")
	if _, stderr, code := run(t, "analyze", "queries", studyFile("queries.mcap"), "--plots", hi, "--dpi", "300"); code != 0 {
		t.Fatalf("--dpi 300: exit %d: %s", code, stderr)
	}
	if w150, w300 := width(dir), width(hi); w150 != 750 || w300 != 1500 {
		t.Errorf("query_latency.png is %d px wide at the default 150 dpi and %d at 300, want 750 and 1500 (5 in)", w150, w300)
	}
	if _, _, code := run(t, "analyze", "queries", studyFile("queries.mcap"), "--dpi", "300"); code != exitUsage {
		t.Errorf("--dpi without --plots: exit %d, want a usage error", code)
	}
}

// modelsInJSON returns the learned models with a placement, as the
// TaskModels written by --models-out should hold them.
func modelsInJSON(r *analysis.PlacementsResult) []analysis.LearnedModel {
	var out []analysis.LearnedModel
	for _, m := range r.Models {
		if m.HasPlacement {
			out = append(out, m)
		}
	}
	return out
}

// taskModel is a Model as the peers print it.
type taskModel struct {
	Item, Room, Surface, Frame   string
	ItemWidth                    float64
	X, Y, Z, Rotation            float64
	Decision, SX, SY, SZ, STheta float64
}

func wantModels(r *analysis.PlacementsResult) []taskModel {
	var out []taskModel
	for _, m := range modelsInJSON(r) {
		out = append(out, taskModel{Item: m.Item, Room: m.Room, Surface: m.Surface, Frame: m.ReferenceFrameID,
			X: float64(m.Placement.Position.X), Y: float64(m.Placement.Position.Y), Z: float64(m.Placement.Position.Z),
			Rotation: float64(m.Placement.Rotation), Decision: float64(m.DecisionValue),
			SX: float64(m.SigmaX), SY: float64(m.SigmaY), SZ: float64(m.SigmaZ), STheta: float64(m.SigmaTheta)})
	}
	return out
}

const rosbagModels = `
import json, sys, rosbag
bag = rosbag.Bag(sys.argv[1])
conns = [c for c in bag._connections.values()]
out = {"latching": conns[0].header.get("latching", b"").decode(), "topic": conns[0].topic, "type": conns[0].datatype, "messages": []}
for topic, msg, t in bag.read_messages():
    out["messages"].append([{"Item": m.placement.item.name, "Room": m.placement.room.name, "Surface": m.placement.surface.name,
        "Frame": m.placement.reference_frame_id, "ItemWidth": m.placement.item.width,
        "X": m.placement.position.x, "Y": m.placement.position.y, "Z": m.placement.position.z, "Rotation": m.placement.rotation,
        "Decision": m.decision_value, "SX": m.sigma_x, "SY": m.sigma_y, "SZ": m.sigma_z, "STheta": m.sigma_theta} for m in msg.models])
print(json.dumps(out))
`

func TestAnalyzeModelsOut(t *testing.T) {
	dir := t.TempDir()
	bagPath, mcapPath := filepath.Join(dir, "models.bag"), filepath.Join(dir, "models.mcap")
	var r analysis.PlacementsResult
	analyzeJSON(t, &r, "placements", studyFile("study.bag"), "--topics", placementTopics, "--models-out", bagPath)
	var r2 analysis.PlacementsResult
	analyzeJSON(t, &r2, "placements", studyFile("study.bag"), "--topics", placementTopics, "--models-out", mcapPath, "--models-topic", "/learned/models")
	want := wantModels(&r)
	if len(want) < 5 {
		t.Fatalf("only %d models learned", len(want))
	}
	// Our reader, both formats.
	for _, c := range []struct{ path, topic string }{{bagPath, "/interactive_world/models"}, {mcapPath, "/learned/models"}} {
		out, stderr, code := run(t, "cat", c.path)
		if code != 0 {
			t.Fatalf("cat %s: %s", c.path, stderr)
		}
		lines := parseCat(t, out)
		if len(lines) != 1 || lines[0].Topic != c.topic || lines[0].Type != "interactive_world_msgs/TaskModels" {
			t.Fatalf("%s: %+v", c.path, lines)
		}
		var msg struct {
			Models []struct {
				Placement struct {
					Item struct {
						Name  string  `json:"name"`
						Width float64 `json:"width"`
					} `json:"item"`
					Room, Surface struct {
						Name string `json:"name"`
					}
					ReferenceFrameID string `json:"reference_frame_id"`
					Position         struct{ X, Y, Z float64 }
					Rotation         float64 `json:"rotation"`
				} `json:"placement"`
				Decision float64 `json:"decision_value"`
				SX       float64 `json:"sigma_x"`
				SY       float64 `json:"sigma_y"`
				SZ       float64 `json:"sigma_z"`
				STheta   float64 `json:"sigma_theta"`
			} `json:"models"`
		}
		if err := json.Unmarshal(lines[0].Message, &msg); err != nil {
			t.Fatal(err)
		}
		var got []taskModel
		for _, m := range msg.Models {
			p := m.Placement
			got = append(got, taskModel{Item: p.Item.Name, Room: p.Room.Name, Surface: p.Surface.Name, Frame: p.ReferenceFrameID,
				X: p.Position.X, Y: p.Position.Y, Z: p.Position.Z, Rotation: p.Rotation, Decision: m.Decision,
				SX: m.SX, SY: m.SY, SZ: m.SZ, STheta: m.STheta, ItemWidth: p.Item.Width})
		}
		checkModels(t, c.path+" (baglab)", got, want)
	}
	// Debian python rosbag reads the bag.
	testenv.RequirePeer(t, "rosbag")
	cmd := exec.Command(testenv.Python, "-c", rosbagModels, bagPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python rosbag: %v\n%s", err, stderr.String())
	}
	var py struct {
		Latching string        `json:"latching"`
		Topic    string        `json:"topic"`
		Type     string        `json:"type"`
		Messages [][]taskModel `json:"messages"`
	}
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if py.Latching != "1" || py.Topic != "/interactive_world/models" || py.Type != "interactive_world_msgs/TaskModels" || len(py.Messages) != 1 {
		t.Fatalf("rosbag sees %+v", py)
	}
	checkModels(t, "rosbag", py.Messages[0], want)

	// Read back as input, the written models are the recorded models and
	// agree with the learned ones exactly.
	var back analysis.PlacementsResult
	analyzeJSON(t, &back, "placements", studyFile("study.bag"), mcapPath, "--topics", "re:^/interactive_world/(placement|placement_sets|training_data)$|^/learned/models$")
	if len(back.Recorded) != len(want) {
		t.Fatalf("%d recorded models read back, want %d", len(back.Recorded), len(want))
	}
	for _, rm := range back.Recorded {
		if rm.Topic != "/learned/models" || !rm.Learned || rm.DeltaX != 0 || rm.DeltaY != 0 || rm.DeltaRotation != 0 || rm.DeltaDecision != 0 || rm.DeltaSigmaTheta != 0 {
			t.Errorf("model read back: %+v", rm)
		}
	}
}

func checkModels(t *testing.T, who string, got, want []taskModel) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d models, want %d", who, len(got), len(want))
	}
	for i := range want {
		w := want[i]
		if got[i].ItemWidth <= 0 {
			t.Errorf("%s: model %d has no item width (item not copied from the placements)", who, i)
		}
		w.ItemWidth = got[i].ItemWidth
		if got[i] != w {
			t.Errorf("%s: model %d\n got %+v\nwant %+v", who, i, got[i], w)
		}
	}
}

// TestReportSourceDateEpoch: with SOURCE_DATE_EPOCH set, the page shows
// that time as when it was made, so two runs give the same bytes; a value
// that is not whole seconds is a usage error and writes no page.
func TestReportSourceDateEpoch(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	var pages [2][]byte
	for i := range pages {
		page := filepath.Join(dir, fmt.Sprintf("r%d.html", i))
		if _, stderr, code := run(t, "report", studyFile("queries.mcap"), "-o", page); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = bytes.ReplaceAll(b, []byte(fmt.Sprintf("r%d.html", i)), []byte("r.html")) // the command line names the page
	}
	if !bytes.Contains(pages[0], []byte(`<dd class="time">2023-11-14T22:13:20Z</dd>`)) {
		t.Errorf("page does not say it was made at SOURCE_DATE_EPOCH 1700000000 (2023-11-14T22:13:20Z)")
	}
	if !bytes.Equal(pages[0], pages[1]) {
		t.Errorf("two runs with SOURCE_DATE_EPOCH set differ")
	}
	for _, bad := range []string{"1.5", "-1", "soon", "99999999999999"} {
		t.Setenv("SOURCE_DATE_EPOCH", bad)
		page := filepath.Join(dir, "bad.html")
		_, stderr, code := run(t, "report", studyFile("queries.mcap"), "-o", page)
		if _, err := os.Stat(page); code != exitUsage || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") || err == nil {
			t.Errorf("SOURCE_DATE_EPOCH=%s: exit %d (want %d), page written: %v, stderr %q", bad, code, exitUsage, err == nil, stderr)
		}
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if _, stderr, code := run(t, "report", studyFile("study.bag"), studyFile("queries.db3"), "--topics", studyTopics, "-o", page); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	if !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(html), "</html>") {
		t.Errorf("not one HTML page: %.100s ... %.100s", html, html[max(0, len(html)-100):])
	}
	for _, kind := range kinds.Names() {
		if strings.Count(html, `<section id="`+kind+`">`) != 1 {
			t.Errorf("no section %s", kind)
		}
	}
	if got, want := strings.Count(html, `<figure id="figure-`), len(study.Truth.Placements)+7; got != want {
		t.Errorf("%d inline SVG figures, want %d", got, want)
	}
	for _, want := range []string{`data-table="grasps"`, `data-table="map_summary"`, `data-table="queries_all"`, "<svg", "baglab report: study.bag, queries.db3"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Self-contained: nothing is fetched; the one script (sorting) is inline.
	if strings.Count(html, "<script>") != 1 {
		t.Error("want one inline script")
	}
	for _, bad := range []string{"<link", "@import", "url("} {
		if strings.Contains(html, bad) {
			t.Errorf("page refers to outside resources: %s", bad)
		}
	}
	// the pictures of the media section are inline PNG data, nothing else has a src
	if n := strings.Count(html, "src="); n != strings.Count(html, `src="data:image/png;base64,`) {
		t.Errorf("page refers to outside resources: %d src= of which %d inline PNG", n, strings.Count(html, `src="data:image/png;base64,`))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// Only the analyses with data get a section.
	if _, _, code := run(t, "report", studyFile("queries.mcap"), "-o", page, "--title", "Q", "--force"); code != 0 {
		t.Fatal("report of queries failed")
	}
	b, _ = os.ReadFile(page)
	if got := strings.Count(string(b), "<section id="); got != 3 || !strings.Contains(string(b), `<section id="provenance">`) ||
		!strings.Contains(string(b), `<section id="queries">`) || !strings.Contains(string(b), `<section id="topics">`) ||
		!strings.Contains(string(b), "<title>Q</title>") {
		t.Errorf("queries-only report has %d sections, want provenance, queries and topics", got)
	}
	// Nothing to report (no message in the window): the page says so and
	// the exit code is 1.
	_, stderr, code := run(t, "report", studyFile("all_types_ros2.mcap"), "--start", "+1h", "-o", page, "--force")
	b, _ = os.ReadFile(page)
	if code != exitProblem || !strings.Contains(stderr, "nothing to report") || !strings.Contains(string(b), "Nothing to report") {
		t.Errorf("report without data: exit %d, %s", code, stderr)
	}
}

func TestAnalyzeUsageAndInputErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown kind", []string{"analyze", "weather", studyFile("study.bag")}, exitUsage, "unknown analysis"},
		{"no file", []string{"analyze", "grasps"}, exitUsage, "no input: give recordings"},
		{"bad theta", []string{"analyze", "placements", studyFile("study.bag"), "--theta", "polar"}, exitUsage, "--theta"},
		{"bad threshold", []string{"analyze", "placements", studyFile("study.bag"), "--prune-threshold", "1.5"}, exitUsage, "--prune-threshold"},
		{"models-out needs placements", []string{"analyze", "grasps", studyFile("study.bag"), "--models-out", "x.bag"}, exitUsage, "--models-out"},
		{"models-out extension", []string{"analyze", "placements", studyFile("study.bag"), "--models-out", "x.txt"}, exitUsage, "extension"},
		{"models-out over an input", []string{"analyze", "placements", studyFile("study.bag"), "--models-out", studyFile("study.bag")}, exitUsage, "overwrite an input"},
		{"tolerance alone", []string{"analyze", "grasps", studyFile("study.bag"), "--tolerance", "0.1"}, exitUsage, "--baseline"},
		{"jobs", []string{"analyze", "grasps", studyFile("study.bag"), "--jobs", "0"}, exitUsage, "--jobs"},
		{"report without -o", []string{"report", studyFile("study.bag")}, exitUsage, "-o"},
		{"missing file", []string{"analyze", "grasps", studyFile("nope.bag")}, exitNoInput, "nope.bag"},
		{"truncated", []string{"analyze", "all", studyFile("broken/study-truncated.bag")}, exitBadInput, "offset"},
		{"missing baseline", []string{"analyze", "grasps", studyFile("study.bag"), "--baseline", studyFile("nope.json")}, exitNoInput, "nope.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, c.args...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d (want %d)\nstdout: %.300s\nstderr: %.500s", code, c.code, out, stderr)
			}
		})
	}
}

// TestAnalyzeStudyFormatsAgree analyses the study in every container: the
// same result, whatever the format and compression.
func TestAnalyzeStudyFormatsAgree(t *testing.T) {
	var want []byte
	for _, f := range []string{"study.bag", "study-lz4.bag", "study.mcap", "study-none.mcap", "broken/study.bag.active"} {
		var r map[string]any
		got := analyzeJSON(t, &r, "all", studyFile(f))
		if want == nil {
			want = got
			continue
		}
		d, err := baseline.CompareDocs(want, got, 0, baselineKeys())
		if err != nil || len(d) > 0 {
			t.Errorf("%s differs from study.bag: %v %v", f, err, d)
		}
	}
}

// BenchmarkAnalyzeAll runs `analyze all` through Main: on the study (two
// copies; placement learning dominates) and on a 64 MB recording of 1 MB
// point clouds among small messages (the clouds' topic is never read),
// with and without learning. MB/s are of the input files.
func BenchmarkAnalyzeAll(b *testing.B) {
	big := filepath.Join(studyDir, "big.bag")
	if _, err := os.Stat(big); err != nil {
		if _, err := studygen.WriteBig(big, msgdef.Default(), studygen.BigOptions{Size: 64 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	study := studyFile("study.bag")
	cases := []struct {
		name  string
		files []string
		args  []string
	}{
		{"study/jobs=1", []string{study, study}, []string{"--jobs", "1"}},
		{"study/jobs=4", []string{study, study}, []string{"--jobs", "4"}},
		{"big/no-learn", []string{big}, []string{"--no-learn"}},
		{"big/learn", []string{big}, nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var size int64
			for _, f := range c.files {
				st, err := os.Stat(f)
				if err != nil {
					b.Fatal(err)
				}
				size += st.Size()
			}
			b.SetBytes(size)
			b.ReportAllocs()
			args := append(append([]string{"analyze", "all", "--json"}, c.files...), c.args...)
			for b.Loop() {
				var out, errb bytes.Buffer
				if code := Main(args, nil, &out, &errb); code != 0 {
					b.Fatal(errb.String())
				}
			}
		})
	}
}

// TestAnalyzeSkipBad writes a bag with one undecodable LaMa object among
// good ones: analyze stops on it (exit 3, naming file, offset and topic)
// unless --skip-bad, which reports it and analyses the rest.
func TestAnalyzeSkipBad(t *testing.T) {
	reg := msgdef.Default()
	typ, err := reg.Lookup("lama_msgs/LamaObject")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.bag")
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/lama/objects", MessageEncoding: "ros1",
		Schema: &record.Schema{Name: typ.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(typ)), MD5: msgdef.MD5(typ)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		v := value.New(typ)
		if err := v.Set("id", i+1); err != nil {
			t.Fatal(err)
		}
		_ = v.Set("type", 1)
		data, err := ros1.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			data = data[:7] // cut inside the name
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: studygen.StartNs + int64(i)*1e9, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "analyze", "map", path)
	if code != exitBadInput || !strings.Contains(stderr, "bad.bag") || !strings.Contains(stderr, "offset") || !strings.Contains(stderr, "/lama/objects") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	var r analysis.MapResult
	out, stderr, code := run(t, "analyze", "map", path, "--skip-bad", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Vertices != 2 ||
		!strings.Contains(stderr, "skipped: ") || !strings.Contains(stderr, "baglab: --skip-bad: 1 message left out; see above") {
		t.Errorf("--skip-bad: exit %d, %d vertices\n%s", code, r.Vertices, stderr)
	}
}

// TestFromPartialFolderAndGlob: --from-partial takes a folder (its *.json
// files in name order) and the many arguments a shell glob expands to
// (--from-partial parts/*.json), besides the comma list; all three merge
// into the same result. The glob used to be refused ("give recordings or
// --from-partial, not both") and the folder to fail as a file.
func TestFromPartialFolderAndGlob(t *testing.T) {
	parts := filepath.Join(t.TempDir(), "parts")
	var files []string
	for i, in := range []string{studyFile("study.bag"), studyFile("queries.mcap")} {
		p := filepath.Join(parts, fmt.Sprintf("p%d.json", i))
		if _, stderr, code := run(t, "analyze", "all", in, "--partial", p); code != 0 {
			t.Fatalf("--partial: exit %d: %s", code, stderr)
		}
		files = append(files, p)
	}
	want, stderr, code := run(t, "analyze", "all", "--from-partial", strings.Join(files, ","), "--json", "--no-learn")
	if code != 0 {
		t.Fatalf("comma list: exit %d: %s", code, stderr)
	}
	for name, args := range map[string][]string{
		"folder": {"--from-partial", parts},
		"glob":   append([]string{"--from-partial"}, files...),
	} {
		got, stderr, code := run(t, append(append([]string{"analyze", "all"}, args...), "--json", "--no-learn")...)
		if code != 0 || got != want {
			t.Errorf("%s: exit %d, same result %v: %s", name, code, got == want, stderr)
		}
	}
	if _, stderr, code := run(t, "analyze", "all", "--from-partial", files[0], studyFile("study.bag")); code != exitUsage || !strings.Contains(stderr, "not both") {
		t.Errorf("a recording beside --from-partial: exit %d: %s", code, stderr)
	}
	empty := t.TempDir()
	if _, stderr, code := run(t, "analyze", "all", "--from-partial", empty); code != exitUsage || !strings.Contains(stderr, "holds no partial file") {
		t.Errorf("an empty folder: exit %d: %s", code, stderr)
	}
}

// TestReportOptions: the report's options table lists what was given
// (--title) and what changes the numbers, at its default too (--theta,
// --seed), never what only changes how the report is made (--cpuprofile,
// --jobs) nor empty selections (--topics). It used to list every flag.
func TestReportOptions(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	if _, stderr, code := run(t, "report", studyFile("study.bag"), "-o", page, "--title", "T", "--cpuprofile", filepath.Join(dir, "cpu.prof"), "-j", "1", "--seed", "7"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(page)
	html := string(b)
	i := strings.Index(html, `id="options"`)
	if i < 0 {
		t.Fatal("no options table")
	}
	table := html[i : i+strings.Index(html[i:], "</table>")]
	row := func(name, value, given, results string) string {
		return `<tr><td class="txt">--` + name + `</td><td class="txt">` + value + `</td><td class="txt">` + given + `</td><td class="txt">` + results + `</td></tr>`
	}
	for _, want := range []string{row("title", "T", "yes", "no"), row("seed", "7", "yes", "yes"), row("theta", "linear", "default", "yes"), row("gap", "0s", "default", "yes")} {
		if !strings.Contains(table, want) {
			t.Errorf("options lack %s", want)
		}
	}
	for _, not := range []string{"--cpuprofile", "--jobs", "--topics", "--dpi", "--output", "--quiet"} {
		if strings.Contains(table, not+"<") {
			t.Errorf("options list %s", not)
		}
	}
}
