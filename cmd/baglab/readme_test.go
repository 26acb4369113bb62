package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// readmeBlock is one fenced code block of README.md.
type readmeBlock struct{ lang, text string }

func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.Root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []readmeBlock
	for _, m := range regexp.MustCompile("(?ms)^```(\\w*)\\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		blocks = append(blocks, readmeBlock{m[1], m[2]})
	}
	return blocks
}

// findBlock returns the one block of lang containing marker.
func findBlock(t *testing.T, blocks []readmeBlock, lang, marker string) string {
	t.Helper()
	var found []string
	for _, b := range blocks {
		if b.lang == lang && strings.Contains(b.text, marker) {
			found = append(found, b.text)
		}
	}
	if len(found) != 1 {
		t.Fatalf("README: %d %s blocks with %q, want 1", len(found), lang, marker)
	}
	return found[0]
}

// demoExports makes, under dir/demo, what `make demo` exports: the study
// in demo/data, Parquet in demo/parquet, CSV in demo/csv, a date-partitioned
// export in demo/by-date.
func demoExports(t *testing.T, dir string) {
	t.Helper()
	data := filepath.Join(dir, "demo", "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"study.bag", "queries.mcap"} {
		if err := os.Symlink(studyFile(f), filepath.Join(data, f)); err != nil {
			t.Fatal(err)
		}
	}
	bag, mcap := filepath.Join(data, "study.bag"), filepath.Join(data, "queries.mcap")
	for _, args := range [][]string{
		{"export", bag, mcap, "--out", filepath.Join(dir, "demo", "parquet")},
		{"export", bag, "--out", filepath.Join(dir, "demo", "csv"), "--format", "csv"},
		{"export", bag, "--out", filepath.Join(dir, "demo", "by-date"), "--partition-by", "date"},
	} {
		if _, stderr, code := run(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestReadmeDuckDB runs every statement of the README's DuckDB block as
// written, from a folder holding make demo's exports.
func TestReadmeDuckDB(t *testing.T) {
	testenv.RequirePeer(t, "duckdb")
	dir := t.TempDir()
	demoExports(t, dir)
	stmts := sqlStatements(findBlock(t, readmeBlocks(t), "sql", "demo/parquet"))
	for _, stmt := range stmts {
		readmeQuery(t, dir, stmt)
	}
	if n := len(stmts); n < 5 {
		t.Errorf("only %d DuckDB statements in the README", n)
	}
}

// sqlStatements splits a README SQL block into its statements, comment
// lines left out and whitespace collapsed.
func sqlStatements(block string) []string {
	var sql strings.Builder
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			sql.WriteString(line + "\n")
		}
	}
	var stmts []string
	for _, stmt := range strings.Split(sql.String(), ";") {
		if stmt = strings.Join(strings.Fields(stmt), " "); stmt != "" {
			stmts = append(stmts, stmt)
		}
	}
	return stmts
}

// readmeQuery runs one README statement in DuckDB from dir and returns its
// rows; a failure or an empty result is a test error (nil rows).
func readmeQuery(t *testing.T, dir, stmt string) []map[string]any {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(testenv.Root(t), "testdata", "duckdb", "query.mjs"), stmt)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var res struct {
		Rows  []map[string]any
		Error string
	}
	if err != nil || json.Unmarshal(out, &res) != nil || res.Error != "" || len(res.Rows) == 0 {
		t.Errorf("README statement %q: %v %s", stmt, err, out)
		return nil
	}
	return res.Rows
}

// readmePolars pairs each statement of the README's polars block with its
// nodejs-polars equivalent (npm; no PyPI where the tests run). The README
// block must consist of exactly these statements.
var readmePolars = []struct{ python, js string }{
	{`import polars as pl`, ``},
	{`pl.read_parquet("demo/parquet/interactive_world/placement.parquet").select(
    "log_time", pl.col("item").struct.field("name").alias("item"),
    pl.col("position").struct.field("x"), pl.col("position").struct.field("y"), "rotation")`,
		`out(pl.readParquet("demo/parquet/interactive_world/placement.parquet").select(
    "log_time", pl.col("item").struct.field("name").alias("item"),
    pl.col("position").struct.field("x"), pl.col("position").struct.field("y"), "rotation"))`},
	{`facts = (pl.read_parquet("demo/parquet/agent_monitor/factList.parquet")
           .explode("factList").unnest("factList")
           .select("log_time", "subjectId", "property", "targetId", "confidence"))`,
		`out(pl.readParquet("demo/parquet/agent_monitor/factList.parquet")
           .explode("factList").unnest("factList")
           .select("log_time", "subjectId", "property", "targetId", "confidence"))`},
	{`# a partitioned export: scan one topic's folder (topics differ in schema), hive adds ` + "`date`" + `
pl.scan_parquet("demo/by-date/topic=%2Finteractive_world%2Fplacement/**/*.parquet", hive_partitioning=True).collect()`,
		`out(await pl.scanParquet("demo/by-date/topic=%2Finteractive_world%2Fplacement/**/*.parquet", {hivePartitioning: true}).collect())`},
}

// TestReadmePolars runs the nodejs-polars equivalents of the README's
// polars snippets from a folder holding make demo's exports: each gives
// rows with the columns the snippet selects.
func TestReadmePolars(t *testing.T) {
	testenv.RequirePeer(t, "polars")
	block := findBlock(t, readmeBlocks(t), "python", "import polars")
	var js strings.Builder
	js.WriteString("const pl = require('module').createRequire(process.argv[1] + '/package.json')('nodejs-polars');\n" +
		"const res = []; const out = (df) => res.push({columns: df.columns, rows: df.height});\n(async () => {\n")
	for _, s := range readmePolars {
		if !strings.Contains(block, s.python) {
			t.Errorf("README polars block lacks %q: update readmePolars", s.python)
		}
		block = strings.Replace(block, s.python, "", 1)
		js.WriteString(s.js + ";\n")
	}
	if rest := strings.TrimSpace(block); rest != "" {
		t.Errorf("README polars block has statements without an equivalent here: %q", rest)
	}
	js.WriteString("console.log(JSON.stringify(res));\n})().catch((e) => { console.error(e); process.exit(1); });\n")
	dir := t.TempDir()
	demoExports(t, dir)
	cmd := exec.Command("node", "-e", js.String(), testenv.NodeDir(t))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("polars: %v\n%s", err, stderr.String())
	}
	var res []struct {
		Columns []string
		Rows    int
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"log_time", "item", "x", "y", "rotation"},
		{"log_time", "subjectId", "property", "targetId", "confidence"},
		nil, // the partitioned scan: every field of the topic, then date
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	for i, r := range res {
		if r.Rows == 0 || (want[i] != nil && strings.Join(r.Columns, ",") != strings.Join(want[i], ",")) {
			t.Errorf("snippet %d: %d rows, columns %v, want %v", i+1, r.Rows, r.Columns, want[i])
		}
	}
	if last := res[2].Columns; len(last) == 0 || last[len(last)-1] != "date" {
		t.Errorf("partitioned scan: columns %v, want a date column from the folders", last)
	}
}
