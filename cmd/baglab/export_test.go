package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// topicCounts returns message counts per topic of files, from info --json.
func topicCounts(t *testing.T, files ...string) map[string]int64 {
	t.Helper()
	counts := map[string]int64{}
	for _, f := range files {
		out, stderr, code := run(t, "info", "--json", f)
		if code != 0 {
			t.Fatalf("info %s: exit %d: %s", f, code, stderr)
		}
		var info struct {
			Topics []struct {
				Topic        string `json:"topic"`
				MessageCount int64  `json:"message_count"`
			} `json:"topics"`
		}
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			t.Fatal(err)
		}
		for _, tp := range info.Topics {
			counts[tp.Topic] += tp.MessageCount
		}
	}
	return counts
}

// fileTree returns the files under dir with their contents.
func fileTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestExportParquet exports the study (a bag and a ROS2 MCAP) and reads it
// back with DuckDB: one file per topic, every message, and values equal to
// what cat prints.
func TestExportParquet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	files := []string{studyFile("study.bag"), studyFile("queries.mcap")}
	out := filepath.Join(t.TempDir(), "tables")
	if _, stderr, code := run(t, append([]string{"export", "--out", out}, files...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	counts := topicCounts(t, files...)
	var parts []string
	var topics []string
	for topic := range counts {
		topics = append(topics, topic)
	}
	sort.Strings(topics)
	for _, topic := range topics {
		p := filepath.Join(out, strings.TrimPrefix(topic, "/")+".parquet")
		parts = append(parts, fmt.Sprintf("SELECT '%s' AS topic, count(*) AS n FROM read_parquet('%s')", topic, p))
	}
	rows := duckdbQuery(t, strings.Join(parts, " UNION ALL ")+" ORDER BY topic")
	if len(rows) != len(topics) {
		t.Fatalf("%d topics read back, want %d", len(rows), len(topics))
	}
	for _, r := range rows {
		if got, want := fmt.Sprint(r["n"]), fmt.Sprint(counts[r["topic"].(string)]); got != want {
			t.Errorf("%s: %s rows, want %s", r["topic"], got, want)
		}
	}
	if n := len(fileTree(t, out)); n != len(topics) {
		t.Errorf("%d files for %d topics", n, len(topics))
	}

	// Values: the placements as cat prints them.
	catOut, _, _ := run(t, "cat", studyFile("study.bag"), "--topics", "/interactive_world/placement")
	var want []string
	for _, l := range parseCat(t, catOut) {
		var m struct {
			Position struct{ X, Y json.Number } `json:"position"`
			Rotation json.Number                `json:"rotation"`
			Item     struct{ Name string }      `json:"item"`
		}
		d := json.NewDecoder(bytes.NewReader(l.Message))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%d %s %s %s %s", l.LogTimeNs/1000, m.Position.X, m.Position.Y, m.Rotation, m.Item.Name))
	}
	rows = duckdbQuery(t, "SELECT epoch_us(log_time) AS t, position.x AS x, position.y AS y, rotation AS r, item.name AS name FROM read_parquet('"+
		filepath.Join(out, "interactive_world/placement.parquet")+"') ORDER BY sequence")
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v %v %v %v %v", r["t"], r["x"], r["y"], r["r"], r["name"]))
	}
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("placements via duckdb:\n%s\nwant (cat):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExportCSV(t *testing.T) {
	out := t.TempDir()
	if _, stderr, code := run(t, "export", studyFile("study.bag"), "--out", out, "--format", "csv",
		"--topics", "/interactive_world/placement_sets", "--arrays", "explode:placements", "--time-format", "ns"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(out, "interactive_world/placement_sets.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := strings.Join(rows[0], ",")
	if !strings.HasPrefix(header, "log_time,publish_time,sequence,source_file,") || !strings.Contains(header, "placements._index,placements.item.name") {
		t.Errorf("header %s", header)
	}
	catOut, _, _ := run(t, "cat", studyFile("study.bag"), "--topics", "/interactive_world/placement_sets")
	var elems int
	for _, l := range parseCat(t, catOut) {
		var m struct{ Placements []json.RawMessage }
		json.Unmarshal(l.Message, &m)
		elems += max(1, len(m.Placements))
	}
	if len(rows)-1 != elems {
		t.Errorf("%d rows, want one per placement: %d", len(rows)-1, elems)
	}
	if ts := rows[1][0]; len(ts) != 19 || strings.ContainsAny(ts, "-:T") {
		t.Errorf("log_time %q is not integer ns", ts)
	}
}

// TestExportDeterministic: partitioned export with several jobs gives the
// same bytes as with one.
func TestExportDeterministic(t *testing.T) {
	files := []string{studyFile("study.bag"), studyFile("study.mcap"), studyFile("queries.mcap")}
	var trees []map[string][]byte
	for _, jobs := range []string{"1", "3"} {
		out := t.TempDir()
		if _, stderr, code := run(t, append([]string{"export", "--out", out, "--partition-by", "date", "--jobs", jobs}, files...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		trees = append(trees, fileTree(t, out))
	}
	if len(trees[0]) == 0 || len(trees[0]) != len(trees[1]) {
		t.Fatalf("%d vs %d files", len(trees[0]), len(trees[1]))
	}
	for name, b := range trees[0] {
		if !strings.HasPrefix(name, "_baglab/files/") && (!strings.HasPrefix(name, "topic=%2F") || !strings.Contains(name, "/date=2024-")) {
			t.Errorf("file %s", name)
		}
		if !bytes.Equal(b, trees[1][name]) {
			t.Errorf("%s differs between --jobs 1 and 3", name)
		}
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"export", studyFile("study.bag")}, exitUsage},
		{[]string{"export", studyFile("study.bag"), "--out", dir, "--format", "xml"}, exitUsage},
		{[]string{"export", studyFile("study.bag"), "--out", dir, "--arrays", "first:2"}, exitUsage},
		{[]string{"export", studyFile("study.bag"), "--out", dir, "--compression", "gzip"}, exitUsage},
		{[]string{"export", studyFile("study.bag"), "--out", dir, "--jobs", "0"}, exitUsage},
		{[]string{"export", filepath.Join(dir, "missing.bag"), "--out", dir}, exitNoInput},
		{[]string{"export", studyFile("broken/study-truncated.bag"), "--out", filepath.Join(dir, "out")}, exitBadInput},
	} {
		if _, stderr, code := run(t, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed exports left %v", entries)
	}
}

func TestExportInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	g := &globalOptions{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	o := &exportOptions{g: g, files: []string{studyFile("study.bag")}, out: filepath.Join(dir, "x"),
		format: "parquet", compression: "zstd", partitionBy: "none", arrays: "json", timeFormat: "rfc3339", jobs: 1}
	err := runExport(ctx, o)
	if exitCode(err) != exitInterrupted {
		t.Fatalf("err %v, exit %d", err, exitCode(err))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("interrupted export left %v", entries)
	}
}

// TestExportEveryNativeType exports one message of every type of the native
// packages (ROS1 bag and ROS2 db3) through the CLI to Parquet and CSV, and
// has DuckDB read every file back: one row each, the meta columns, and
// the values cat shows for a few fields.
func TestExportEveryNativeType(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	files := []string{studyFile("all_types.bag"), studyFile("all_types_ros2.db3")}
	counts := topicCounts(t, files...)
	if len(counts) < 200 {
		t.Fatalf("only %d types in the all_types files", len(counts))
	}
	for _, format := range []string{"parquet", "csv"} {
		out := filepath.Join(t.TempDir(), format)
		if _, stderr, code := run(t, append([]string{"export", "--format", format, "--out", out}, files...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		reader := "read_parquet"
		if format == "csv" {
			reader = "read_csv"
		}
		var parts []string
		for topic := range counts {
			p := filepath.Join(out, strings.TrimPrefix(topic, "/")+"."+format)
			parts = append(parts, fmt.Sprintf("SELECT '%s' AS topic, count(*) AS n, min(sequence) AS seq, min(source_file) AS src FROM %s('%s')", topic, reader, p))
		}
		rows := duckdbQuery(t, strings.Join(parts, " UNION ALL "))
		if len(rows) != len(counts) {
			t.Fatalf("%s: %d files read back, want %d", format, len(rows), len(counts))
		}
		for _, r := range rows {
			if fmt.Sprint(r["n"]) != "1" || r["src"] == nil || !strings.HasPrefix(filepath.Base(fmt.Sprint(r["src"])), "all_types") {
				t.Errorf("%s %s: %v", format, r["topic"], r)
			}
		}
	}
	// Values: a LaMa object and a remap query request, as cat shows them.
	out := filepath.Join(t.TempDir(), "pq")
	if _, stderr, code := run(t, append([]string{"export", "--out", out}, files...)...); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct{ topic, sql, field string }{
		{"/all_types/lama_msgs/LamaObject", "SELECT name AS v FROM read_parquet('%s')", "name"},
		{"/all_types/remap_msgs/Query_Request", "SELECT id AS v FROM read_parquet('%s')", "id"},
	} {
		catOut, _, _ := run(t, "cat", files[0], files[1], "--topics", c.topic)
		lines := parseCat(t, catOut)
		if len(lines) != 1 {
			t.Fatalf("%s: %d messages", c.topic, len(lines))
		}
		var msg map[string]any
		json.Unmarshal(lines[0].Message, &msg)
		rows := duckdbQuery(t, fmt.Sprintf(c.sql, filepath.Join(out, strings.TrimPrefix(c.topic, "/")+".parquet")))
		if len(rows) != 1 || rows[0]["v"] != msg[c.field] {
			t.Errorf("%s: duckdb %v, cat %v", c.topic, rows, msg[c.field])
		}
	}
}

func TestExportExplodeUnknownPath(t *testing.T) {
	out := filepath.Join(t.TempDir(), "csv")
	_, stderr, code := run(t, "export", studyFile("study.bag"), "--format", "csv", "--topics", "/agent_monitor/factList", "--arrays", "explode:facts", "--out", out)
	if code != exitUsage || !strings.Contains(stderr, `no selected topic has an array field "facts"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed export created its output directory")
	}
	if _, stderr, code := run(t, "export", studyFile("study.bag"), "--format", "csv", "--topics", "/agent_monitor/factList", "--arrays", "explode:factList", "--out", out); code != 0 {
		t.Errorf("explode:factList: exit %d: %s", code, stderr)
	}
}
