package tabular

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

func sampleTable() *analysis.Table {
	t := &analysis.Table{Name: "sample", Columns: []analysis.Column{
		{Name: "name", Kind: analysis.KindString}, {Name: "n", Kind: analysis.KindInt},
		{Name: "rate", Kind: analysis.KindFloat}, {Name: "ok", Kind: analysis.KindBool}}}
	t.Rows = [][]any{{"a,b", int64(3), 0.25, true}, {"c\"d", int64(-7), math.NaN(), false}, {"", int64(1 << 40), 1e-300, true}}
	return t
}

// duckdb runs SQL in DuckDB (npm @duckdb/node-api) and returns the rows as JSON.
const duckScript = `
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const r = await c.runAndReadAll(process.argv[1]);
  console.log(JSON.stringify(r.getRowsJson()));
})().catch(e => { console.error(e); process.exit(1); });
`

func duckdb(t *testing.T, sql string) [][]any {
	t.Helper()
	testenv.RequirePeer(t, "duckdb")
	cmd := exec.Command("node", "-e", duckScript, sql)
	cmd.Dir = testenv.NodeDir(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	var rows [][]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("duckdb output %s: %v", out, err)
	}
	return rows
}

// TestParquetAndCSVInDuckDB writes a table both ways and reads it back
// with DuckDB.
func TestParquetAndCSVInDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	dir := t.TempDir()
	tb := sampleTable()
	if err := ParquetDir(dir).WriteTable(tb); err != nil {
		t.Fatal(err)
	}
	if err := CSVDir(dir).WriteTable(tb); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "sample.parquet")
	rows := duckdb(t, "SELECT name, n, rate, ok, typeof(n), typeof(rate) FROM read_parquet('"+pq+"') ORDER BY n")
	want := `[["c\"d","-7","NaN",false,"BIGINT","DOUBLE"],["a,b","3",0.25,true,"BIGINT","DOUBLE"],["","1099511627776",1e-300,true,"BIGINT","DOUBLE"]]`
	if got, _ := json.Marshal(rows); string(got) != want {
		t.Errorf("parquet via duckdb:\n%s\nwant\n%s", got, want)
	}
	csvPath := filepath.Join(dir, "sample.csv")
	rows = duckdb(t, "SELECT name, n, ok FROM read_csv('"+csvPath+"', header=true, quote='\"', escape='\"') ORDER BY n")
	if got, _ := json.Marshal(rows); !strings.Contains(string(got), `["a,b","3",true]`) || !strings.Contains(string(got), `["c\"d","-7",false]`) {
		t.Errorf("csv via duckdb: %s", got)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Stat(pq); err != nil {
		t.Error(err)
	}
}
