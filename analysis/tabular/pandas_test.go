package tabular

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// pandasRead reads path with pandas.read_csv(path, **kw) (Debian
// python3-pandas) and gives each column's dtype and cells, floats as
// Python's repr.
const pandasRead = `
import json, sys
import pandas as pd
df = pd.read_csv(sys.argv[1], **json.loads(sys.argv[2]))
print(json.dumps({"dtypes": {c: str(t) for c, t in df.dtypes.items()},
                  "cols": {c: [repr(v) if isinstance(v, float) else str(v) for v in df[c].tolist()] for c in df.columns}}))
`

type pandasTable struct {
	DTypes map[string]string
	Cols   map[string][]string
}

func pandas(t *testing.T, path string, kw map[string]any) pandasTable {
	t.Helper()
	testenv.RequirePeer(t, "pandas")
	args, _ := json.Marshal(kw)
	out, err := exec.Command(testenv.Python, "-c", pandasRead, path, string(args)).CombinedOutput()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, out)
	}
	var r pandasTable
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("pandas output %s: %v", out, err)
	}
	return r
}

// TestCSVInPandas writes a table whose float column x holds whole numbers,
// values with many digits and NaN/±Inf, and whose float column w holds
// whole numbers only, and reads the CSV with pandas: with its defaults both
// must be float64 (whole floats were written "2" and pandas read w as
// int64) and each value of x within 3 units
// in the last place of the table's (0.0001589314829463513 was written so
// and read 2e-16 off: pandas' default parser reads 17 digits, leading
// zeros counted); with float_precision="round_trip" each value exactly.
func TestCSVInPandas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pandas")
	}
	floats := []float64{2, -0.0001589314829463513, 0.30000000000000004, 1e21, 3, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 123456.78901234567}
	tb := &analysis.Table{Name: "floats", Columns: []analysis.Column{{Name: "x", Kind: analysis.KindFloat}, {Name: "n", Kind: analysis.KindInt}, {Name: "w", Kind: analysis.KindFloat}}}
	for i, f := range floats {
		tb.Rows = append(tb.Rows, []any{f, int64(i), float64(i * 1000)})
	}
	dir := t.TempDir()
	if err := CSVDir(dir).WriteTable(tb); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "floats.csv")
	for _, c := range []struct {
		name string
		kw   map[string]any
		ulps uint64
	}{
		{"defaults", map[string]any{}, 3},
		{"round_trip", map[string]any{"float_precision": "round_trip"}, 0},
	} {
		r := pandas(t, path, c.kw)
		if r.DTypes["x"] != "float64" || r.DTypes["n"] != "int64" || r.DTypes["w"] != "float64" {
			t.Errorf("%s: dtypes %v, want x float64, n int64, w float64", c.name, r.DTypes)
		}
		for i, want := range floats {
			got, err := strconv.ParseFloat(r.Cols["x"][i], 64)
			if err != nil {
				t.Errorf("%s: row %d: %q: %v", c.name, i, r.Cols["x"][i], err)
				continue
			}
			d := math.Float64bits(math.Abs(got)) - math.Float64bits(math.Abs(want))
			if int64(d) < 0 {
				d = -d
			}
			ok := math.IsNaN(want) && math.IsNaN(got) || math.Signbit(got) == math.Signbit(want) && d <= c.ulps
			if !ok {
				t.Errorf("%s: row %d: pandas read %s, want %v (within %d ULP)", c.name, i, r.Cols["x"][i], strconv.FormatFloat(want, 'g', -1, 64), c.ulps)
			}
		}
	}
}
