package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestReadmeFleet runs the export lines of the README's "Many recordings,
// many machines" section as written, in a folder holding make demo's
// files, checks what each run says, and runs every DuckDB statement of the
// section's query block on the dataset: each must return rows.
func TestReadmeFleet(t *testing.T) {
	testenv.RequirePeer(t, "duckdb")
	dir := t.TempDir()
	data := filepath.Join(dir, "demo", "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"study.bag", "study.mcap", "queries.mcap"} {
		if err := os.Symlink(studyFile(f), filepath.Join(data, f)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	blocks := readmeBlocks(t)
	var said []string
	for _, line := range strings.Split(findBlock(t, blocks, "sh", "--out demo/fleet"), "\n") {
		args := strings.Fields(line)
		if len(args) < 2 || args[0] != "baglab" {
			continue
		}
		_, stderr, code := run(t, args[1:]...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", line, code, stderr)
		}
		said = append(said, stderr)
	}
	if len(said) != 4 || !strings.Contains(said[1], "study.bag: already in demo/fleet") || !strings.Contains(said[1], "exported 1 file(s)") ||
		!strings.Contains(said[2], "nothing to export") || !strings.Contains(said[3], "exported 1 file(s)") {
		t.Errorf("the README's export runs said:\n%s", strings.Join(said, "\n"))
	}
	stmts := sqlStatements(findBlock(t, blocks, "sql", "demo/fleet"))
	for _, stmt := range stmts {
		rows := readmeQuery(t, dir, stmt)
		if rows == nil {
			continue
		}
		switch {
		case strings.Contains(stmt, "unnest") && strings.Contains(stmt, "TIMESTAMPTZ"):
			// study.bag and study.mcap hold the placements; queries.mcap none.
			if len(rows) != 2 {
				t.Errorf("recordings with placements in the window: %v", rows)
			}
		case strings.Contains(stmt, "hive_partitioning"):
			if len(rows) != 2 || rows[0]["placements"] != rows[1]["placements"] {
				t.Errorf("placements per input: %v", rows)
			}
		}
	}
	if n := len(stmts); n != 3 {
		t.Errorf("%d DuckDB statements in the fleet section, want 3", n)
	}
}
