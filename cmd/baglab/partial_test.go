package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/digest"
)

// TestAnalyzePartials: analyze --partial over two groups of recordings and
// --from-partial over the partials give byte for byte the --json, the
// --out tables and the --models-out recording of one analyze over all of
// them; a merge of partials into a partial merges the same; report takes
// partials and lists the recordings they came from.
func TestAnalyzePartials(t *testing.T) {
	dir := t.TempDir()
	groups := [][]string{{studyFile("study.bag")}, {studyFile("study-lz4.mcap"), studyFile("queries.db3")}}
	all := append(append([]string{}, groups[0]...), groups[1]...)
	p := []string{filepath.Join(dir, "a.partial.json"), filepath.Join(dir, "b.partial.json")}
	for i, g := range groups {
		if _, stderr, code := run(t, append([]string{"analyze", "all", "--partial", p[i]}, g...)...); code != 0 {
			t.Fatalf("--partial: exit %d: %s", code, stderr)
		}
	}
	from := "--from-partial=" + strings.Join(p, ",")
	outs := func(name string, args ...string) (string, map[string][]byte, []byte) {
		tables, models := filepath.Join(dir, name+"-tables"), filepath.Join(dir, name+"-models.bag")
		out, stderr, code := run(t, append([]string{"analyze", "all", "--json", "--out", tables, "--models-out", models}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		b, err := os.ReadFile(models)
		if err != nil {
			t.Fatal(err)
		}
		return out, fileTree(t, tables), b
	}
	wantJSON, wantTables, wantModels := outs("one", all...)
	gotJSON, gotTables, gotModels := outs("merged", from)
	if gotJSON != wantJSON {
		t.Errorf("--json of the merged partials differs from one analyze:\n%.400s\nwant\n%.400s", gotJSON, wantJSON)
	}
	assertSameTree(t, wantTables, gotTables)
	if !bytes.Equal(gotModels, wantModels) || len(wantModels) == 0 {
		t.Error("--models-out of the merged partials differs from one analyze's")
	}
	baseline := filepath.Join(dir, "baseline.json")
	if err := os.WriteFile(baseline, []byte(wantJSON), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "analyze", "all", from, "--baseline", baseline); code != 0 {
		t.Errorf("--baseline on merged partials: exit %d: %s", code, stderr)
	}

	// A partial of partials, and one kind out of an "all" partial.
	both := filepath.Join(dir, "both.partial.json")
	if _, stderr, code := run(t, "analyze", "all", from, "--partial", both); code != 0 {
		t.Fatalf("merging into a partial: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, "analyze", "all", "--json", "--from-partial", both); code != 0 || out != wantJSON {
		t.Errorf("partial of partials: exit %d: %s", code, stderr)
	}
	one, _, _ := run(t, append([]string{"analyze", "grasps", "--json"}, all...)...)
	if out, stderr, code := run(t, "analyze", "grasps", "--json", from); code != 0 || out != one {
		t.Errorf("grasps from all-kinds partials: exit %d: %s", code, stderr)
	}

	page := filepath.Join(dir, "report.html")
	if _, stderr, code := run(t, "report", from, "-o", page); code != 0 {
		t.Fatalf("report --from-partial: exit %d: %s", code, stderr)
	}
	html, _ := os.ReadFile(page)
	for _, f := range all {
		d, err := digest.Of(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(html, []byte(d.SHA256)) {
			t.Errorf("the report of partials does not list %s (sha256 %s)", f, d.SHA256)
		}
	}
}

func TestAnalyzePartialErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.partial.json")
	if _, stderr, code := run(t, "analyze", "grasps", studyFile("study.bag"), "--partial", p); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	notPartial := filepath.Join(dir, "result.json")
	out, _, _ := run(t, "analyze", "grasps", studyFile("study.bag"), "--json")
	if err := os.WriteFile(notPartial, []byte(out), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"analyze", "grasps"}, exitUsage, "no input"},
		{[]string{"analyze", "grasps", studyFile("study.bag"), "--from-partial", p}, exitUsage, "not both"},
		{[]string{"analyze", "grasps", studyFile("study.bag"), "--partial", filepath.Join(dir, "x"), "--json"}, exitUsage, "state only"},
		{[]string{"analyze", "facts", "--from-partial", p}, exitBadInput, "not facts"},
		{[]string{"analyze", "grasps", "--from-partial", notPartial}, exitBadInput, "baglab.analysis.partial"},
		{[]string{"analyze", "grasps", "--from-partial", filepath.Join(dir, "missing")}, exitNoInput, "missing"},
		{[]string{"report", "-o", filepath.Join(dir, "r.html")}, exitUsage, "no input"},
	} {
		if _, stderr, code := run(t, tc.args...); code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, want %d with %q: %s", tc.args, code, tc.code, tc.msg, stderr)
		}
	}
}
