package tabular

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/analysis"
)

// TestWriteResults: each table of each result as Parquet and CSV; the CSV
// holds the table's rows.
func TestWriteResults(t *testing.T) {
	dir := t.TempDir()
	q := &analysis.QueriesResult{All: analysis.QueryStat{Calls: 2}}
	results := []analysis.Result{q, &analysis.FactsResult{}}
	n, err := WriteResults(dir, results)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, r := range results {
		for _, tb := range r.Tables() {
			want++
			f, err := os.Open(filepath.Join(dir, tb.Name+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil || len(recs) != len(tb.Rows)+1 || len(recs[0]) != len(tb.Columns) || recs[0][0] != tb.Columns[0].Name {
				t.Errorf("%s.csv: %v rows (%v), want %d", tb.Name, len(recs), err, len(tb.Rows)+1)
			}
			if st, err := os.Stat(filepath.Join(dir, tb.Name+".parquet")); err != nil || st.Size() < 12 {
				t.Errorf("%s.parquet: %v", tb.Name, err)
			}
		}
	}
	if n != want || n == 0 {
		t.Errorf("%d tables written, want %d", n, want)
	}
}
