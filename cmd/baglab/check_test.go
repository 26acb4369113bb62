package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/recording/bag"
)

// writeStudyBag generates a study and writes its ROS1 messages, those
// keep allows, each changed by edit, as a bag.
func writeStudyBag(t *testing.T, path string, seed uint64, keep func(studygen.Event) bool, edit func(int, studygen.Event)) *studygen.Study {
	t.Helper()
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: seed, Sessions: 3})
	if err != nil {
		t.Fatal(err)
	}
	var evs []studygen.Event
	for _, e := range s.ROS1 {
		if keep == nil || keep(e) {
			if edit != nil {
				edit(len(evs), e)
			}
			evs = append(evs, e)
		}
	}
	if err := studygen.WriteBag(path, evs, bag.CompressionNone); err != nil {
		t.Fatal(err)
	}
	return s
}

const placementTopic = "/interactive_world/placement"

// remoteKey is the row key of the placement group of the study's remote
// control, the one item recorded as single Placement messages.
const remoteKey = "item=remote,room=living_room,surface=coffee_table,reference_frame_id=coffee_table"

// placementCount is the number of placements a study's truth holds.
func placementCount(s *studygen.Study) int {
	n := 0
	for _, g := range s.Truth.Placements {
		n += g.N
	}
	return n
}

// TestCheckRegressionDataset is the CI user's day: a baseline made from
// two recordings; a third recording with a new item and a changed copy of
// the second are checked against it. The report names exactly the new
// rows and the changed statistics, and nothing for rows that merely moved.
func TestCheckRegressionDataset(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bag"), filepath.Join(dir, "b.bag")
	sa := writeStudyBag(t, a, 21, nil, nil)
	sb := writeStudyBag(t, b, 22, nil, nil)
	analysisFlags := []string{"--prune=false"}
	doc, stderr, code := run(t, append([]string{"analyze", "all", a, b, "--json"}, analysisFlags...)...)
	if code != 0 {
		t.Fatalf("analyze: %s", stderr)
	}
	base := filepath.Join(dir, "baseline.json")
	if err := os.WriteFile(base, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(files ...string) (string, int) {
		t.Helper()
		args := append([]string{"check", "--baseline", base, "--max-lines", "1000"}, analysisFlags...)
		out, stderr, code := run(t, append(args, files...)...)
		if code != exitOK && code != exitProblem {
			t.Fatalf("check: exit %d: %s", code, stderr)
		}
		return out, code
	}
	if out, code := check(b, a); code != 0 || !strings.Contains(out, "within tolerance") {
		t.Fatalf("the baseline's own recordings (in another order): exit %d\n%s", code, out)
	}

	// c: the remote control's placements of another study, as a new item.
	c := filepath.Join(dir, "c.bag")
	k := 0
	writeStudyBag(t, c, 23, func(e studygen.Event) bool { return e.Topic == placementTopic }, func(_ int, e studygen.Event) {
		k++
		if err := e.Value.Set("item.name", "tv_remote"); err != nil {
			t.Fatal(err)
		}
	})
	// b2: b with its first remote placement moved 0.3 m along x.
	b2 := filepath.Join(dir, "b2", "b.bag")
	os.Mkdir(filepath.Dir(b2), 0o755)
	moved := false
	var movedX float64
	writeStudyBag(t, b2, 22, nil, func(_ int, e studygen.Event) {
		if e.Topic != placementTopic || moved {
			return
		}
		x, _ := e.Value.Float("position.x")
		movedX = x + 0.3
		if err := e.Value.Set("position.x", movedX); err != nil {
			t.Fatal(err)
		}
		moved = true
	})
	if !moved || k == 0 {
		t.Fatal("the study has no remote placements")
	}

	out, code := check(a, b2, c)
	if code != exitProblem {
		t.Fatalf("drift: exit %d\n%s", code, out)
	}
	bl, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	base0, err := baseline.Parse(bl, baselineKeys())
	if err != nil {
		t.Fatal(err)
	}
	now, _, _ := run(t, append([]string{"analyze", "all", a, b2, c, "--json"}, analysisFlags...)...)
	cmp, err := base0.Compare([]byte(now), baseline.CompareOptions{Tolerance: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	// New rows: the new item's group in each placement table, nothing else.
	newKey := strings.Replace(remoteKey, "item=remote", "item=tv_remote", 1)
	var added, removed []string
	for _, g := range cmp.Groups {
		for _, r := range g.Added {
			added = append(added, r.Path)
		}
		for _, r := range g.Removed {
			removed = append(removed, r.Path)
		}
	}
	wantAdded := []string{
		"placements.groups[" + newKey + "]",
		"placements.frame_ranking[" + newKey + "]",
		"placements.models[" + newKey + "]",
	}
	if !slices.Equal(added, wantAdded) || len(removed) > 0 {
		t.Errorf("new rows %q, removed %q; want new %q", added, removed, wantAdded)
	}
	// Changed statistics: the number of placements, and the statistics of
	// the moved item's rows.
	nA, nB := placementCount(sa), placementCount(sb)
	var stats []string
	for _, g := range cmp.Groups {
		for _, d := range g.Diffs {
			stats = append(stats, d.Path)
			switch {
			case d.Path == "placements.placements":
				if d.Old != strconv.Itoa(nA+nB) || d.New != strconv.Itoa(nA+nB+k) {
					t.Errorf("placements: %s -> %s, want %d -> %d", d.Old, d.New, nA+nB, nA+nB+k)
				}
			case d.Path == "placements.prune_total":
			case strings.Contains(d.Path, remoteKey+"]"):
			case strings.HasPrefix(d.Path, "topics."): // b2 has other messages than b
			default:
				t.Errorf("statistic of an unchanged row reported: %s", d)
			}
		}
	}
	meanX := "placements.groups[" + remoteKey + "].mean_x"
	if !slices.Contains(stats, meanX) || !slices.Contains(stats, "placements.placements") {
		t.Errorf("changed statistics %q lack %s or placements.placements", stats, meanX)
	}
	// The moved placement shifts the mean by 0.3/n.
	var remoteN int
	for _, g := range append(sa.Truth.Placements, sb.Truth.Placements...) {
		if g.Item == "remote" {
			remoteN += g.N
		}
	}
	for _, g := range cmp.Groups {
		for _, d := range g.Diffs {
			if d.Path == meanX {
				o, _ := strconv.ParseFloat(d.Old, 64)
				n, _ := strconv.ParseFloat(d.New, 64)
				closeTo(t, "mean_x shift", n-o, 0.3/float64(remoteN), 1e-9)
			}
		}
	}
	// The terminal report says the same, with a summary line per table.
	for _, want := range []string{
		"  placements.groups: ", "1 new placement group", "1 new frame ranking", "1 new placement model",
		"1 new placement group: " + newKey,
		meanX + ": ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "attempts[") || strings.Contains(out, "best_grasp=") {
		t.Errorf("report lists per-observation rows or keys with other fields:\n%s", out)
	}

	// A whole third study adds per-observation rows: one count each.
	d := filepath.Join(dir, "d.bag")
	writeStudyBag(t, d, 24, nil, nil)
	out, _ = check(a, b, d)
	if !strings.Contains(out, "grasps.attempts.rows: ") || strings.Contains(out, "grasps.attempts[") {
		t.Errorf("per-observation table not compared by count:\n%s", out)
	}

	// JUnit and Markdown reports, --max-lines.
	junit, md := filepath.Join(dir, "check.xml"), filepath.Join(dir, "summary.md")
	out, _, code = run(t, append([]string{"check", "--baseline", base, "--report", "junit:" + junit, "--report", "markdown:" + md,
		"--max-lines", "2", a, b2, c}, analysisFlags...)...)
	if code != exitProblem {
		t.Errorf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasSuffix(lines[len(lines)-1], "more lines (every line in --report markdown:FILE or junit:FILE)") {
		t.Errorf("--max-lines 2 did not cut the details:\n%s", out)
	}
	if len(lines) > 2 { // it bounds the whole report (it printed the summary lines and 2 more)
		t.Errorf("--max-lines 2 printed %d lines:\n%s", len(lines), out)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &suites); err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				failed[c.Name] = c.Failure.Message + "\n" + c.Failure.Text
			}
		}
	}
	if f := failed["placements.groups"]; !strings.Contains(f, "1 new placement group") || !strings.Contains(f, meanX) {
		t.Errorf("JUnit failure of placements.groups: %q", f)
	}
	if _, ok := failed["grasps.grasps"]; ok || suites.Failures != len(failed) || suites.Tests < 20 {
		t.Errorf("JUnit: %d tests, %d failures: %v", suites.Tests, suites.Failures, failed)
	}
	if m, err := os.ReadFile(md); err != nil || !strings.Contains(string(m), "| `placements.groups` |") {
		t.Errorf("markdown: %v\n%s", err, m)
	}

	// The change is intended: update, and the next check passes; the
	// baseline's tolerances survive.
	withTol := strings.Replace(string(bl), "{", `{"baseline": {"comment": "CI", "tolerances": {"placements.models[*].decision_value": {"rel": 1e-3}}},`, 1)
	if err := os.WriteFile(base, []byte(withTol), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, append([]string{"check", "--baseline", base, "--update-baseline", a, b2, c}, analysisFlags...)...)
	if code != 0 || !strings.Contains(out, "1 new placement group") {
		t.Errorf("update: exit %d\n%s", code, out)
	}
	if out, code := check(a, b2, c); code != 0 {
		t.Errorf("after the update: exit %d\n%s", code, out)
	}
	updated, _ := os.ReadFile(base)
	if !strings.Contains(string(updated), `"placements.models[*].decision_value": {"rel": 1e-3}`) {
		t.Errorf("tolerances lost:\n%.300s", updated)
	}
}

// TestCheckDataset: an info --json baseline catches a recording that lost
// a topic before any analysis runs.
func TestCheckDataset(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bag"), filepath.Join(dir, "b.bag")
	writeStudyBag(t, a, 31, nil, nil)
	writeStudyBag(t, b, 32, nil, nil)
	doc, _, code := run(t, "info", a, b, "--json")
	if code != 0 {
		t.Fatal("info failed")
	}
	ds := filepath.Join(dir, "dataset.json")
	os.WriteFile(ds, []byte(doc), 0o644)
	if out, stderr, code := run(t, "check", "--baseline", ds, a, b); code != 0 {
		t.Fatalf("own files: exit %d\n%s%s", code, out, stderr)
	}
	// b loses /lama/objects.
	writeStudyBag(t, b, 32, func(e studygen.Event) bool { return e.Topic != "/lama/objects" }, nil)
	out, _, code := run(t, "check", "--baseline", ds, a, b)
	if code != exitProblem {
		t.Fatalf("lost topic: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"files[*].topics: ", "1 removed topic: files[path=" + b + "].topics[topic=/lama/objects]",
		"files[path=" + b + "].message_count: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[path="+a+"]") {
		t.Errorf("the unchanged file is reported:\n%s", out)
	}
	// Analysis flags make no sense with a dataset baseline.
	if _, stderr, code := run(t, "check", "--baseline", ds, "--theta", "circular", a, b); code != exitUsage {
		t.Errorf("--theta with a dataset: exit %d %s", code, stderr)
	}
	// A single-file info object is a baseline too.
	one, _, _ := run(t, "info", a, "--json")
	os.WriteFile(ds, []byte(one), 0o644)
	if out, _, code := run(t, "check", "--baseline", ds, a); code != 0 {
		t.Errorf("single file: exit %d\n%s", code, out)
	}
}

func TestCheckUsage(t *testing.T) {
	base := filepath.Join(t.TempDir(), "b.json")
	os.WriteFile(base, []byte(`{"kind":"facts"}`), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no baseline", []string{"check", studyFile("study.bag")}, exitUsage, "--baseline"},
		{"bad report", []string{"check", "--baseline", base, "--report", "html:x", studyFile("study.bag")}, exitUsage, "junit:FILE or markdown:FILE"},
		{"negative lines", []string{"check", "--baseline", base, "--max-lines", "-1", studyFile("study.bag")}, exitUsage, "--max-lines"},
		{"missing baseline", []string{"check", "--baseline", base + ".nope", studyFile("study.bag")}, exitNoInput, "analyze --json or info --json"},
		{"report needs baseline", []string{"analyze", "facts", studyFile("study.bag"), "--report", "junit:x.xml"}, exitUsage, "--report needs --baseline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, c.args...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, want %d; stderr %q lacks %q", code, c.code, stderr, c.msg)
			}
		})
	}
}

// TestEveryTableHasAKey: every array of objects in a result of every
// analysis has a documented key (analysis.TableKeys, baseline.DatasetKeys).
func TestEveryTableHasAKey(t *testing.T) {
	doc, _, code := run(t, "analyze", "all", studyFile("study.bag"), studyFile("queries.mcap"), "--json")
	if code != 0 {
		t.Fatal("analyze failed")
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	info, _, _ := run(t, "info", studyFile("study.mcap"), studyFile("queries.mcap"), "--json")
	var files any
	if err := json.Unmarshal([]byte(info), &files); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, k := range baselineKeys() {
		known[k.Path] = true
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, e)
			}
		case []any:
			for _, e := range x {
				if _, ok := e.(map[string]any); ok {
					if !known[path] {
						t.Errorf("table %s has no documented key (add it to analysis.tableKeys)", path)
					}
					walk(path+"[*]", e)
					return
				}
			}
		}
	}
	m := v.(map[string]any)
	delete(m, "kind")
	walk("", m)
	walk("files", files)
}

// TestCheckUpdateUnchanged: --update-baseline with a run that gives the
// baseline's own content leaves the file untouched (bytes and
// modification time) and says so, with and without a "baseline" member.
// It used to say "rewrote baseline" and add a newline at the end.
func TestCheckUpdateUnchanged(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "facts.json")
	doc, _, code := run(t, "analyze", "facts", studyFile("study.bag"), "--json")
	if code != 0 {
		t.Fatal("analyze failed")
	}
	withTol := strings.Replace(doc, "{", `{"baseline": {"comment": "CI", "tolerances": {"facts.facts[*].total_duration_s": {"rel": 1e-6}}},`, 1)
	for name, content := range map[string]string{"plain": doc, "with tolerances": withTol} {
		if err := os.WriteFile(base, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// A first update may reformat a file written by hand; the next
		// one finds nothing to change.
		if _, stderr, code := run(t, "check", "--baseline", base, "--update-baseline", studyFile("study.bag")); code != 0 {
			t.Fatalf("%s: first update: exit %d: %s", name, code, stderr)
		}
		before, _ := os.ReadFile(base)
		old := time.Now().Add(-time.Hour).Truncate(time.Second)
		if err := os.Chtimes(base, old, old); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, "check", "--baseline", base, "--update-baseline", studyFile("study.bag"))
		after, _ := os.ReadFile(base)
		st, err := os.Stat(base)
		if err != nil {
			t.Fatal(err)
		}
		if code != 0 || !bytes.Equal(before, after) || !st.ModTime().Equal(old) || !strings.Contains(stderr, "left untouched") ||
			strings.Contains(stderr, "rewrote") {
			t.Errorf("%s: exit %d, file changed %v, mtime %v (was %v): %s", name, code, !bytes.Equal(before, after), st.ModTime(), old, stderr)
		}
		if name == "plain" && !bytes.Equal(after, []byte(doc)) {
			t.Errorf("plain: the update changed analyze --json's own output:\n%q\n%q", after[max(0, len(after)-20):], doc[max(0, len(doc)-20):])
		}
	}
}

// TestCheckSpec: check --spec over recordings and over partial files, its
// exit codes and reports, and the flags it refuses.
func TestCheckSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	good := `topics:
  /agent_monitor/factList: {type: toaster_msgs/msg/FactList, min_rate_hz: 1.5, max_gap: 1s, min_count: 50}
  /rail_pick_and_place/grasp_and_store/status: {max_latency: 50ms}
  /interactive_world/placement: {values: {"position.x": [-5, 5]}}
  /not/there: {required: false, min_rate_hz: 5}
`
	os.WriteFile(spec, []byte(good), 0o644)
	bags := []string{studyFile("study.bag"), studyFile("study-lz4.mcap")}
	junit, md := filepath.Join(dir, "c.xml"), filepath.Join(dir, "c.md")
	out, stderr, code := run(t, append([]string{"check", "--spec", spec, "--report", "junit:" + junit, "--report", "markdown:" + md}, bags...)...)
	if code != 0 || !strings.HasPrefix(out, "contract "+spec+": every rule holds (22 rules in 2 recordings)") {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	x, _ := os.ReadFile(junit)
	if !strings.Contains(string(x), `tests="22" failures="0"`) || strings.Count(string(x), "<testcase ") != 22 || strings.Count(string(x), "<skipped ") != 4 {
		t.Errorf("JUnit:\n%s", x)
	}
	if m, _ := os.ReadFile(md); !strings.Contains(string(m), "| `/agent_monitor/factList` | `min_rate_hz` | `>= 1.5 Hz` | `2 Hz` | ✅ |") {
		t.Errorf("Markdown:\n%s", m)
	}
	os.WriteFile(spec, []byte(good+"  /lama/objects: {min_rate_hz: 20}\n"), 0o644)
	out, _, code = run(t, append([]string{"check", "--spec", spec}, bags...)...)
	if code != exitProblem || !strings.Contains(out, "2 of 26 rules broken in 2 of 2 recordings") ||
		!strings.Contains(out, "study.bag: /lama/objects min_rate_hz: 10 Hz, want >= 20 Hz") {
		t.Errorf("broken rule: exit %d\n%s", code, out)
	}
	// From partial files: the topic rules; value rules need the messages.
	part := filepath.Join(dir, "p.json")
	if _, stderr, code := run(t, "analyze", "topics", bags[0], "--partial", part); code != 0 {
		t.Fatalf("--partial: %s", stderr)
	}
	os.WriteFile(spec, []byte("topics:\n  /lama/objects: {min_rate_hz: 20}\n  /agent_monitor/factList: {min_count: 60}\n"), 0o644)
	out, _, code = run(t, "check", "--spec", spec, "--from-partial", part)
	if code != exitProblem || !strings.Contains(out, "1 of 4 rules broken in 1 of 1 recording") {
		t.Errorf("from partial: exit %d\n%s", code, out)
	}
	// Value rules need the messages: skipped from a partial file, and said.
	os.WriteFile(spec, []byte(good), 0o644)
	junit = filepath.Join(dir, "p.xml")
	if _, stderr, code := run(t, "check", "--spec", spec, "--from-partial", part, "--report", "junit:"+junit); code != 0 {
		t.Errorf("value rules from a partial: exit %d: %s", code, stderr)
	}
	if x, _ := os.ReadFile(junit); !strings.Contains(string(x), `<skipped message="value rules read the messages; a partial file holds statistics only">`) {
		t.Errorf("value rule from a partial:\n%s", x)
	}
	for _, args := range [][]string{
		{"check", "--spec", spec, "--baseline", spec, bags[0]},
		{"check", "--spec", spec, "--tolerance", "0.1", bags[0]},
		{"check", "--spec", spec},
		{"check", "--baseline", spec, "--from-partial", part},
	} {
		if _, stderr, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	os.WriteFile(spec, []byte("topics:\n  /a: {min_rate: 3}\n"), 0o644)
	if _, stderr, code := run(t, "check", "--spec", spec, bags[0]); code != exitBadInput || !strings.Contains(stderr, "min_rate") {
		t.Errorf("bad spec: exit %d: %s", code, stderr)
	}
}
