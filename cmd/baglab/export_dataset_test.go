package main

import (
	"bytes"
	"fmt"
	"github.com/baglab/baglab/export"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// placementRows counts the /interactive_world/placement rows of a
// partitioned dataset per source file, with DuckDB.
func placementRows(t *testing.T, dir string) map[string]string {
	t.Helper()
	rows := duckdbQuery(t, "SELECT source_file, count(*) AS n FROM read_parquet('"+filepath.Join(dir, "topic=*", "*", "*.parquet")+
		"', hive_partitioning = true) WHERE topic = '/interactive_world/placement' GROUP BY ALL ORDER BY ALL")
	out := map[string]string{}
	for _, r := range rows {
		out[fmt.Sprint(r["source_file"])] = fmt.Sprint(r["n"])
	}
	return out
}

// TestExportDatasetRerun is the regression of issue 13: a second
// partitioned export with an input exported before double-counted it (22
// rows where the input has 11). Now the input is skipped and the
// directory keeps one copy; a third run changes nothing; --force
// replaces an input's parts; a run cut before its manifest row resumes.
func TestExportDatasetRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	bag, mcap := studyFile("study.bag"), studyFile("study.mcap")
	want := fmt.Sprint(topicCounts(t, bag)["/interactive_world/placement"])
	dir := filepath.Join(t.TempDir(), "fleet")
	// Before: the bag was part-1 in the first run and part-0 in the second.
	if _, stderr, code := run(t, "export", mcap, bag, "--out", dir, "--partition-by", "date"); code != 0 {
		t.Fatalf("first export: exit %d: %s", code, stderr)
	}
	_, stderr, code := run(t, "export", bag, "--out", dir, "--partition-by", "date")
	if code != 0 || !strings.Contains(stderr, bag+": already in "+dir) || !strings.Contains(stderr, "nothing to export") {
		t.Fatalf("second export: exit %d: %s", code, stderr)
	}
	if got := placementRows(t, dir); got[bag] != want || got[mcap] != want || len(got) != 2 {
		t.Fatalf("placement rows per input %v, want %s each", got, want)
	}
	before := fileTree(t, dir)
	_, stderr, code = run(t, "export", mcap, bag, "--out", dir, "--partition-by", "date")
	if code != 0 || !strings.Contains(stderr, "nothing to export") {
		t.Fatalf("third export: exit %d: %s", code, stderr)
	}
	assertSameTree(t, before, fileTree(t, dir))

	// The manifest: one row per input, digests as sha256sum computes them,
	// counts per topic as info gives them, parts that exist.
	rows := duckdbQuery(t, "SELECT path, sha256, format, message_count, len(parts) AS parts, "+
		"list_filter(topics, x -> x.topic = '/interactive_world/placement')[1].message_count AS placements FROM read_parquet('"+
		filepath.Join(dir, "_baglab", "files", "*.pq")+"') ORDER BY path")
	if len(rows) != 2 {
		t.Fatalf("manifest rows %v", rows)
	}
	for _, r := range rows {
		p := fmt.Sprint(r["path"])
		sum, err := exec.Command("sha256sum", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(r["sha256"]); !strings.HasPrefix(string(sum), got+" ") {
			t.Errorf("%s: sha256 %s, sha256sum %s", p, got, sum)
		}
		if fmt.Sprint(r["placements"]) != want || fmt.Sprint(r["parts"]) == "0" {
			t.Errorf("%s: row %v", p, r)
		}
	}

	// --force with another selection: the input's other parts go away.
	if _, stderr, code := run(t, "export", bag, "--out", dir, "--partition-by", "date", "--force", "--topics", "/interactive_world/placement"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	after := fileTree(t, dir)
	sha := manifestSHA(t, dir, bag)
	for name := range after {
		if strings.Contains(name, "part-"+sha[:16]) && !strings.HasPrefix(name, "topic=%2Finteractive_world%2Fplacement/") {
			t.Errorf("--force left %s", name)
		}
	}
	if got := placementRows(t, dir); got[bag] != want || got[mcap] != want {
		t.Errorf("after --force: %v", got)
	}

	// Cut between the parts and the manifest row (the row missing), and a
	// temporary file left by a killed writer: the next run exports the
	// input again over the same part names.
	if err := os.Remove(filepath.Join(dir, "_baglab", "files", manifestSHA(t, dir, mcap)+".pq")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".leftover.parquet.tmp-1"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	// (With the selection bag was exported with: another is refused, see
	// TestExportDatasetSelection.)
	_, stderr, code = run(t, "export", mcap, bag, "--out", dir, "--partition-by", "date", "--topics", "/interactive_world/placement")
	if code != 0 || !strings.Contains(stderr, "exported 1 file(s)") {
		t.Fatalf("resumed export: exit %d: %s", code, stderr)
	}
	if got := placementRows(t, dir); got[bag] != want || got[mcap] != want {
		t.Errorf("after resuming: %v", got)
	}
}

// manifestSHA returns the sha256 of the manifest row of path.
func manifestSHA(t *testing.T, dir, path string) string {
	t.Helper()
	rows := duckdbQuery(t, "SELECT sha256 FROM read_parquet('"+filepath.Join(dir, "_baglab", "files", "*.pq")+"') WHERE path = '"+path+"'")
	if len(rows) != 1 {
		t.Fatalf("no manifest row for %s", path)
	}
	return fmt.Sprint(rows[0]["sha256"])
}

func assertSameTree(t *testing.T, want, got map[string][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d files, want %d", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s changed", name)
		}
	}
}

// TestExportDatasetRefused: a directory with other files, an
// unpartitioned export into a non-empty directory, and another layout are
// usage errors that write nothing; --force goes ahead.
func TestExportDatasetRefused(t *testing.T) {
	bag := studyFile("study.bag")
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"export", bag, "--out", other, "--partition-by", "date"},
		{"export", bag, "--out", other},
	} {
		if _, stderr, code := run(t, args...); code != exitOutput || !strings.Contains(stderr, "notes.txt") || !strings.Contains(stderr, "--force") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(other); len(entries) != 1 {
		t.Errorf("refused exports wrote %v", entries)
	}
	if _, stderr, code := run(t, "export", bag, "--out", other, "--partition-by", "date", "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "export", bag, "--out", other, "--partition-by", "source"); code != exitOutput || !strings.Contains(stderr, "--partition-by date") {
		t.Errorf("another partitioning: exit %d: %s", code, stderr)
	}
	plain := filepath.Join(dir, "plain")
	if _, stderr, code := run(t, "export", bag, "--out", plain); code != 0 {
		t.Fatalf("plain: exit %d: %s", code, stderr)
	}
	before := fileTree(t, plain)
	if _, stderr, code := run(t, "export", studyFile("study.mcap"), "--out", plain); code != exitOutput || !strings.Contains(stderr, "never added to") {
		t.Errorf("second plain run: exit %d: %s", code, stderr)
	}
	assertSameTree(t, before, fileTree(t, plain))
}

// TestExportDatasetSelection: an input exported into a dataset with
// --topics is not skipped as "already in" by a run that selects other
// messages (its other topics would never be exported): that run is refused
// naming both selections, the dataset is left as it was, and --force
// exports it again with the new selection, which its manifest row records.
func TestExportDatasetSelection(t *testing.T) {
	bag := studyFile("study.bag")
	out := filepath.Join(t.TempDir(), "ds")
	if _, stderr, code := run(t, "export", bag, "--out", out, "--partition-by", "date", "--topics", "/lama/objects"); code != 0 {
		t.Fatalf("first export: exit %d: %s", code, stderr)
	}
	before := fileTree(t, out)
	_, stderr, code := run(t, "export", bag, "--out", out, "--partition-by", "date")
	if code != exitOutput || !strings.Contains(stderr, "with --topics /lama/objects, this run selects every message") {
		t.Errorf("rerun without --topics: exit %d: %s", code, stderr)
	}
	assertSameTree(t, before, fileTree(t, out))
	if _, stderr, code := run(t, "export", bag, "--out", out, "--partition-by", "date", "--topics", "/lama/objects"); code != 0 || !strings.Contains(stderr, "already in") {
		t.Errorf("same selection again: exit %d, want it skipped: %s", code, stderr)
	}
	if _, stderr, code := run(t, "export", bag, "--out", out, "--partition-by", "date", "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	rows, err := export.ReadManifest(out)
	if err != nil || len(rows) != 1 || rows[0].Selection != "" {
		t.Fatalf("manifest after --force: %+v, %v", rows, err)
	}
	if _, err := os.Stat(filepath.Join(out, "topic=%2Fagent_monitor%2FfactList")); err != nil {
		entries, _ := os.ReadDir(out)
		t.Errorf("--force exported no other topic: %v (%v)", err, entries)
	}
}
