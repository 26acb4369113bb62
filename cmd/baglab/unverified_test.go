package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestExportUnverifiedColumn: export --skip-bad --keep-unverified of the
// CRC-damaged study keeps every message of the undamaged file and marks,
// in the boolean column unverified, exactly the rows that --skip-bad alone
// leaves out; without --keep-unverified no table has the column (issue 10
// point 4).
func TestExportUnverifiedColumn(t *testing.T) {
	crc := studyFile("broken/study-crc.mcap")
	dir := t.TempDir()
	exportTo := func(name string, args ...string) map[string]parquetCounts {
		out := filepath.Join(dir, name)
		if _, stderr, code := run(t, append([]string{"export", "--out", out}, args...)...); code != exitOK && code != exitProblem {
			t.Fatalf("export %v: exit %d: %s", args, code, stderr)
		}
		return readUnverified(t, out)
	}
	whole := exportTo("whole", studyFile("study-none.mcap"))
	dropped := exportTo("dropped", "--skip-bad", crc)
	kept := exportTo("kept", "--skip-bad", "--keep-unverified", crc)
	marked := 0
	for table, w := range whole {
		d, k := dropped[table], kept[table]
		if d.hasColumn || w.hasColumn {
			t.Errorf("%s: an unverified column without --keep-unverified", table)
		}
		if !k.hasColumn {
			t.Errorf("%s: no unverified column with --keep-unverified", table)
		}
		if k.rows != w.rows || k.unverified != k.rows-d.rows {
			t.Errorf("%s: --keep-unverified gives %d rows (%d unverified), --skip-bad %d, the undamaged file %d",
				table, k.rows, k.unverified, d.rows, w.rows)
		}
		marked += k.unverified
	}
	if len(kept) != len(whole) || marked == 0 {
		t.Errorf("%d tables kept, %d in the undamaged export; %d rows marked unverified", len(kept), len(whole), marked)
	}
}

// parquetCounts is what readUnverified finds in one table.
type parquetCounts struct {
	rows, unverified int
	hasColumn        bool
}

// readUnverified reads every Parquet table under dir, keyed by its path
// below dir.
func readUnverified(t *testing.T, dir string) map[string]parquetCounts {
	t.Helper()
	out := map[string]parquetCounts{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") || strings.Contains(p, "_baglab") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		tbl, err := pqarrow.ReadTable(t.Context(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		defer tbl.Release()
		c := parquetCounts{rows: int(tbl.NumRows())}
		if idx := tbl.Schema().FieldIndices("unverified"); len(idx) == 1 {
			c.hasColumn = true
			for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
				b := chunk.(*array.Boolean)
				for i := 0; i < b.Len(); i++ {
					if b.Value(i) {
						c.unverified++
					}
				}
			}
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = c
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
