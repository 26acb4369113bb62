package baseline_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/baglab/baglab/baseline"
)

func diffLines(t *testing.T, c *baseline.Comparison) []string {
	t.Helper()
	var got []string
	for _, d := range c.Diffs() {
		got = append(got, d.String())
	}
	return got
}

func compareDocs(t *testing.T, old, new string, o baseline.CompareOptions) *baseline.Comparison {
	t.Helper()
	b, err := baseline.Parse([]byte(old), keys)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.Compare([]byte(new), o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompareBaseline(t *testing.T) {
	old := `{"kind":"grasps","window_ns":100,"grasps":[{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN","attempts":4},
		{"model_id":"1","grasp_id":"3","success_rate":0.25,"wilson_low":0.1,"attempts":4}],
		"attempt_rates":[{"object_name":"bowl","source":"grasp_and_store","best_grasp":"","worst_grasp":"","grasps":3,"success_rate":0.5}],
		"attempts":[{"log_time_ns":1,"success":true},{"log_time_ns":2,"success":false}]}`
	cases := []struct {
		name, new string
		o         baseline.CompareOptions
		want      []string
	}{
		{"same", old, baseline.CompareOptions{}, nil},
		{"within", strings.Replace(old, "0.25", "0.2501", 1), baseline.CompareOptions{Tolerance: 1e-3}, nil},
		{"beyond", strings.Replace(old, "0.25", "0.26", 1), baseline.CompareOptions{Tolerance: 1e-3},
			[]string{"grasps.grasps[model_id=1,grasp_id=3].success_rate: 0.25 -> 0.26 (+4%, tolerance rel 0.001)"}},
		{"count exact", strings.Replace(old, `"window_ns":100`, `"window_ns":101`, 1), baseline.CompareOptions{Tolerance: 0.5},
			[]string{"grasps.window_ns: 100 -> 101 (+1%, tolerance exact)"}},
		{"reordered rows", `{"kind":"grasps","window_ns":100,"grasps":[{"model_id":"1","grasp_id":"3","success_rate":0.25,"wilson_low":0.1,"attempts":4},
			{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN","attempts":4}],
			"attempt_rates":[{"object_name":"bowl","source":"grasp_and_store","best_grasp":"","worst_grasp":"","grasps":3,"success_rate":0.5}],
			"attempts":[{"log_time_ns":2,"success":false},{"log_time_ns":1,"success":true}]}`, baseline.CompareOptions{ContentHash: true}, nil},
		{"removed row", strings.Replace(old, `{"model_id":"1","grasp_id":"2","success_rate":0.5,"wilson_low":"NaN","attempts":4},`, "", 1), baseline.CompareOptions{},
			[]string{"grasps.grasps[model_id=1,grasp_id=2]: removed row"}},
		{"observation added", strings.Replace(old, `{"log_time_ns":2,"success":false}`, `{"log_time_ns":2,"success":false},{"log_time_ns":0,"success":true}`, 1), baseline.CompareOptions{},
			[]string{"grasps.attempts.rows: 2 -> 3 (+50%, tolerance exact)"}},
		{"observation changed, no hash", strings.Replace(old, `"success":false`, `"success":true`, 1), baseline.CompareOptions{}, nil},
		{"key of its own fields only", strings.Replace(old, `"grasps":3`, `"grasps":4`, 1), baseline.CompareOptions{},
			[]string{"grasps.attempt_rates[object_name=bowl,source=grasp_and_store].grasps: 3 -> 4 (+33.3%, tolerance exact)"}},
		{"NaN to number", strings.Replace(old, `"NaN"`, "0.5", 1), baseline.CompareOptions{Tolerance: 1},
			[]string{`grasps.grasps[model_id=1,grasp_id=2].wilson_low: "NaN" -> 0.5`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := diffLines(t, compareDocs(t, old, c.new, c.o))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	// With ContentHash a changed observation shows as a changed hash.
	changed := strings.Replace(old, `"success":false`, `"success":true`, 1)
	got := diffLines(t, compareDocs(t, old, changed, baseline.CompareOptions{ContentHash: true}))
	if len(got) != 1 || !strings.HasPrefix(got[0], "grasps.attempts.sha256: ") {
		t.Errorf("hash: %q", got)
	}
	if _, err := baseline.Parse([]byte("{"), keys); err == nil {
		t.Error("bad JSON accepted")
	}
	if _, err := baseline.Parse([]byte(`{"a":1}`), keys); err == nil {
		t.Error("a document without kind accepted")
	}
	b, _ := baseline.Parse([]byte(old), keys)
	if _, err := b.Compare([]byte(`{"kind":"map"}`), baseline.CompareOptions{}); err == nil || !strings.Contains(err.Error(), `baseline is a "grasps" result, this run is "map"`) {
		t.Errorf("kind mismatch: %v", err)
	}
}

// TestCompareRowsByIdentity: a third recording adds rows and shifts the
// per-observation rows; the report names the new rows once and nothing
// else.
func TestCompareRowsByIdentity(t *testing.T) {
	old := `{"kind":"all","placements":{"kind":"placements","placements":3,
		"groups":[{"item":"cup","room":"kitchen","surface":"table","reference_frame_id":"table","n":2,"mean_x":0.4},
		          {"item":"plate","room":"kitchen","surface":"table","reference_frame_id":"world","n":1,"mean_x":0.8}],
		"models":[{"item":"cup","room":"kitchen","surface":"table","reference_frame_id":"table","decision_value":0.1,
		           "cluster_stats":[{"index":0,"n":2,"sigma_x":0.01}]}]},
		"grasps":{"kind":"grasps","attempts":[{"log_time_ns":1},{"log_time_ns":2}]}}`
	new := `{"kind":"all","placements":{"kind":"placements","placements":5,
		"groups":[{"item":"bowl","room":"kitchen","surface":"table","reference_frame_id":"table","n":1,"mean_x":0.1},
		          {"item":"plate","room":"kitchen","surface":"table","reference_frame_id":"world","n":1,"mean_x":0.8},
		          {"item":"cup","room":"kitchen","surface":"table","reference_frame_id":"table","n":2,"mean_x":0.4},
		          {"item":"mug, blue","room":"kitchen","surface":"table","reference_frame_id":"table","n":1,"mean_x":0.1}],
		"models":[{"item":"cup","room":"kitchen","surface":"table","reference_frame_id":"table","decision_value":0.1001,
		           "cluster_stats":[{"index":0,"n":2,"sigma_x":0.01},{"index":1,"n":1,"sigma_x":0.02}]}]},
		"grasps":{"kind":"grasps","attempts":[{"log_time_ns":0},{"log_time_ns":1},{"log_time_ns":2}]}}`
	tolerances := `{"baseline":{"comment":"test",
		"tolerances":{"placements.models[*].decision_value":{"rel":1e-2},"placements.models.*":{"rel":0},"grasps.attempts.rows":{"abs":1}}},`
	c := compareDocs(t, tolerances+strings.TrimPrefix(old, "{"), new, baseline.CompareOptions{Tolerance: 1e-9})
	want := []string{
		"placements.placements: 3 -> 5 (+66.7%, tolerance exact)",
		"placements.groups[item=bowl,room=kitchen,surface=table,reference_frame_id=table]: new row",
		`placements.groups[item="mug, blue",room=kitchen,surface=table,reference_frame_id=table]: new row`,
		"placements.models[item=cup,room=kitchen,surface=table,reference_frame_id=table].cluster_stats[index=1]: new row",
	}
	if got := diffLines(t, c); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var sums []string
	for _, g := range c.Groups {
		sums = append(sums, g.Path+": "+g.Summary())
	}
	wantSums := []string{
		"placements: 1 of 1 statistic differ",
		"placements.groups: 2 -> 4 rows: 2 new placement groups",
		"placements.models: 1 rows: 1 statistic within tolerance",
		"placements.models[*].cluster_stats: 1 -> 2 rows: 1 new model cluster",
		"grasps.attempts: 2 -> 3 rows (per observation): 1 statistic within tolerance",
	}
	if strings.Join(sums, "\n") != strings.Join(wantSums, "\n") {
		t.Errorf("summaries:\n%s\nwant:\n%s", strings.Join(sums, "\n"), strings.Join(wantSums, "\n"))
	}
	// Without the baseline's tolerances the decision value and the
	// attempt count differ.
	c = compareDocs(t, old, new, baseline.CompareOptions{Tolerance: 1e-9})
	got := strings.Join(diffLines(t, c), "\n")
	for _, w := range []string{
		"placements.models[item=cup,room=kitchen,surface=table,reference_frame_id=table].decision_value: 0.1 -> 0.1001 (+0.1%, tolerance rel 1e-09)",
		"grasps.attempts.rows: 2 -> 3 (+50%, tolerance exact)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in\n%s", w, got)
		}
	}
}

func TestDatasetBaseline(t *testing.T) {
	one := `{"path":"a.bag","format":"bag","message_count":3,"topics":[{"topic":"/x","type":"std_msgs/String","md5":"992ce8a1687cec8c8bd883ec73ca41d1","message_count":2,"frequency_hz":1.5},
		{"topic":"/y","type":"std_msgs/Int32","md5":"da5909fbe378aeaf85e547e830cc1bb7","message_count":1,"frequency_hz":0}]}`
	two := `[` + one + `,{"path":"b.bag","format":"bag","message_count":0,"topics":[]}]`
	lost := `[{"path":"a.bag","format":"bag","message_count":2,"topics":[{"topic":"/x","type":"std_msgs/String","md5":"992ce8a1687cec8c8bd883ec73ca41d1","message_count":2,"frequency_hz":1.5000001}]},
		{"path":"b.bag","format":"bag","message_count":0,"topics":[]}]`
	c := compareDocs(t, two, lost, baseline.CompareOptions{Tolerance: 1e-6})
	want := []string{
		"files[path=a.bag].message_count: 3 -> 2 (-33.3%, tolerance exact)",
		"files[path=a.bag].topics[topic=/y]: removed row",
	}
	if got := diffLines(t, c); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One file's object, the array of one and the wrapped form are the
	// same dataset.
	if c := compareDocs(t, one, "["+one+"]", baseline.CompareOptions{}); c.Drift() {
		t.Errorf("object vs array: %v", c.Diffs())
	}
	wrapped := `{"baseline":{"tolerances":{"files[*].topics[*].frequency_hz":{"ignore":true}}},"kind":"dataset","files":` + two + `}`
	if c := compareDocs(t, wrapped, strings.Replace(two, "1.5", "9", 1), baseline.CompareOptions{}); c.Drift() {
		t.Errorf("ignored statistic reported: %v", c.Diffs())
	}
	// Other paths for the same files: the report says how files match.
	var b bytes.Buffer
	moved := strings.ReplaceAll(two, `"path":"`, `"path":"elsewhere/`)
	_ = compareDocs(t, two, moved, baseline.CompareOptions{}).WriteText(&b, "ds.json", 10)
	if !strings.Contains(b.String(), "files are matched by their path as given") || !strings.Contains(b.String(), "2 new files: path=elsewhere/a.bag; path=elsewhere/b.bag") {
		t.Errorf("moved files:\n%s", b.String())
	}
	if _, err := (&baseline.Baseline{Kind: "dataset"}).Compare([]byte(`{"kind":"grasps"}`), baseline.CompareOptions{}); err == nil {
		t.Error("a dataset compared with an analysis")
	}
}

// TestBaselineMetaErrorOrder: a baseline member with several faults
// reports the same one every time (its members in name order). Before,
// the fault found first followed map order.
func TestBaselineMetaErrorOrder(t *testing.T) {
	doc := []byte(`{"kind": "facts", "baseline": {"zz": 1, "tolerances": 3, "comment": 5}, "facts": []}`)
	const want = "baseline member: comment: want a string"
	for range 20 {
		if _, err := baseline.Parse(doc, keys); err == nil || err.Error() != want {
			t.Fatalf("Parse: %v, want %s", err, want)
		}
	}
}
