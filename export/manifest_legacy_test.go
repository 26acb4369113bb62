package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestLegacyRows: a dataset written before rows were named .pq
// (rows named <sha256>.parquet) is still read, and the next row written
// for an input replaces its .parquet row instead of standing beside it.
func TestManifestLegacyRows(t *testing.T) {
	dir := t.TempDir()
	row := &ManifestRow{Path: "run0.bag", Size: 3, SHA256: strings.Repeat("ab", 32), Format: "bag", BaglabVersion: "test"}
	if err := WriteManifestRow(dir, row); err != nil {
		t.Fatal(err)
	}
	current := manifestPath(dir, row.SHA256)
	legacy := strings.TrimSuffix(current, ManifestExt) + ".parquet"
	if err := os.Rename(current, legacy); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadManifest(dir)
	if err != nil || len(rows) != 1 || rows[0].Path != "run0.bag" {
		t.Fatalf("legacy dataset: %v, %v", rows, err)
	}
	if r, err := ReadManifestRow(dir, row.SHA256); err != nil || r.Path != "run0.bag" {
		t.Fatalf("legacy row: %v, %v", r, err)
	}
	if err := WriteManifestRow(dir, row); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(ManifestDir), "*"))
	if len(names) != 1 || names[0] != current {
		t.Errorf("after a rewrite: %v, want only %s", names, current)
	}
	if rows, err := ReadManifest(dir); err != nil || len(rows) != 1 {
		t.Errorf("after a rewrite: %d rows, %v", len(rows), err)
	}
}
