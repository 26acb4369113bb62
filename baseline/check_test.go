package baseline_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/recording"
)

func TestBaselineCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "base.json")
	file := "// kept\n{\"baseline\": {\"tolerances\": {\"grasps.grasps[*].success_rate\": {\"abs\": 0.1}}},\n" + reportOld[1:]
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := baseline.Read(path, keys)
	if err != nil {
		t.Fatal(err)
	}
	junit, md := filepath.Join(dir, "reports", "r.xml"), filepath.Join(dir, "r.md") // reports/ is made
	var text, stdout bytes.Buffer
	o := baseline.CheckOptions{Path: path, MaxLines: 2, Stdout: &stdout, CompareOptions: baseline.CompareOptions{Tolerance: 1e-9},
		Reports: []baseline.Report{{"junit", junit}, {"markdown", md}, {"markdown", "-"}},
		Now:     time.Unix(1714564800, 0).UTC(), Host: "ci"}
	res, err := b.Check([]byte(reportNew), o, &text)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Drift || res.Updated {
		t.Errorf("result %+v, want drift and no update", res)
	}
	if !strings.HasPrefix(text.String(), "baseline "+path+": drift in 2 of 4 statistic groups") {
		t.Errorf("text report:\n%s", text.String())
	}
	mdFile, _ := os.ReadFile(md)
	if !strings.Contains(string(mdFile), "| `placements.groups` | 1 → 2 | 1 | 0 | 1 of 2 | ❌ |") || stdout.String() != string(mdFile) {
		t.Errorf("markdown file:\n%s\nstdout:\n%s", mdFile, stdout.String())
	}
	xml, _ := os.ReadFile(junit)
	if !strings.Contains(string(xml), `hostname="ci"`) || !strings.Contains(string(xml), `timestamp="2024-05-01T12:00:00"`) {
		t.Errorf("junit:\n%s", xml)
	}
	if got, _ := os.ReadFile(path); string(got) != file {
		t.Error("the baseline changed without Update")
	}

	// Update: drift is reported, the file is rewritten keeping its
	// comment and tolerances, and the new file compares clean.
	o.Update, o.Reports = true, nil
	if res, err = b.Check([]byte(reportNew), o, &text); err != nil || !res.Updated || !res.Drift {
		t.Fatalf("update: %+v, %v", res, err)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), "// kept\n{\n  \"baseline\": {\"tolerances\": {\"grasps.grasps[*].success_rate\": {\"abs\": 0.1}}},") {
		t.Errorf("updated baseline:\n%s", got)
	}
	b2, err := baseline.Read(path, keys)
	if err != nil {
		t.Fatal(err)
	}
	o.Update = false
	if res, err := b2.Check([]byte(reportNew), o, &text); err != nil || res.Drift {
		t.Errorf("after update: %+v, %v", res, err)
	}

	// A run of another kind is an error of the baseline.
	var be *baseline.Error
	if _, err := b2.Check([]byte(`{"kind":"grasps"}`), o, &text); !errors.As(err, &be) || be.Path != path {
		t.Errorf("other kind: %v", err)
	}
}

func TestReadBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	var ie *recording.InputError
	_, err := baseline.Read(filepath.Join(dir, "none.json"), keys)
	if !errors.As(err, &ie) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "make the first baseline") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"kind":`), 0o644)
	var be *baseline.Error
	if _, err := baseline.Read(bad, keys); !errors.As(err, &be) || be.Path != bad {
		t.Errorf("bad file: %v", err)
	}
}

func TestParseBaselineReport(t *testing.T) {
	for in, want := range map[string]baseline.Report{"junit:a.xml": {"junit", "a.xml"}, "markdown:-": {"markdown", "-"}, "markdown:x:y": {"markdown", "x:y"}} {
		if got, err := baseline.ParseReport(in); err != nil || got != want {
			t.Errorf("%s: %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"junit", "junit:", "html:a", ":a"} {
		if _, err := baseline.ParseReport(in); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

// TestDatasetDocument: the dataset document of two recordings is the
// array of their info --json objects, and compares clean with itself as
// a baseline; a file that cannot be described fails it.
func TestDatasetDocument(t *testing.T) {
	dir := studytest.Dir(t, studygen.Options{Seed: 5, Sessions: 1})
	paths := []string{filepath.Join(dir, "study.bag"), filepath.Join(dir, "queries.mcap")}
	doc, err := baseline.DatasetDocument(paths)
	if err != nil {
		t.Fatal(err)
	}
	var want []json.RawMessage
	for _, p := range paths {
		d, err := recording.Describe(p)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(d)
		want = append(want, j)
	}
	if w, _ := json.Marshal(want); !bytes.Equal(doc, w) {
		t.Errorf("got\n%s\nwant\n%s", doc, w)
	}
	b, err := baseline.Parse(doc, keys)
	if err != nil || b.Kind != "dataset" {
		t.Fatalf("%v, kind %q", err, b.Kind)
	}
	if c, err := b.Compare(doc, baseline.CompareOptions{}); err != nil || c.Drift() {
		t.Errorf("itself: %v", err)
	}
	if _, err := baseline.DatasetDocument([]string{paths[0], filepath.Join(dir, "none.bag")}); err == nil {
		t.Error("a missing file described")
	}
	// A plain folder stands for its recordings, as in `info --json DIR`.
	runs := filepath.Join(t.TempDir(), "runs")
	var inRuns []string
	for _, p := range paths {
		inRuns = append(inRuns, filepath.Join(runs, filepath.Base(p)))
		recordtest.CopyFile(t, p, inRuns[len(inRuns)-1])
	}
	slices.Sort(inRuns) // name order: queries.mcap, study.bag
	folder, err := baseline.DatasetDocument([]string{runs})
	if err != nil {
		t.Fatal(err)
	}
	if files, err := baseline.DatasetDocument(inRuns); err != nil || !bytes.Equal(folder, files) || !bytes.Contains(folder, []byte(`"path":"`+inRuns[1]+`"`)) {
		t.Errorf("folder %s:\n%s\nits files (%v):\n%s", runs, folder, err, files)
	}
}

func TestKeysText(t *testing.T) {
	text := keys.Text()
	lines := strings.Split(text, "\n")
	if len(lines) != len(keys) || strings.HasSuffix(text, "\n") {
		t.Fatalf("%d lines for %d tables", len(lines), len(keys))
	}
	for _, want := range []string{
		"  placements.groups                    item, room, surface, reference_frame_id",
		"  grasps.attempts                      per observation: row count",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %q in\n%s", want, text)
		}
	}
}
