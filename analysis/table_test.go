package analysis

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestWriteText(t *testing.T) {
	tb := NewTable("sample", false, "name", "n:i", "rate:f", "big:f", "mixed:f", "ok:b").ShowByDefault("name", "n", "rate", "mixed")
	tb.Add("cup", 3, 0.25, 1.5e9, 2112.0, true)
	tb.Add("tab\there", -12, math.NaN(), 2.0, 0.0001234, false)
	tb.Add("杯子", 100000, math.Copysign(0, -1), math.Inf(1), -0.5, true)
	tb.Add("tasse 🍵", 0, 0.03125, 0.0, math.Copysign(0, -1), true)
	var b strings.Builder
	if err := tb.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	want := `sample (4 rows)
name            n    rate       mixed
cup             3  0.2500   2.112e+03
tab\there     -12     NaN   1.234e-04
杯子       100000  0.0000  -5.000e-01
tasse 🍵        0  0.0312   0.000e+00
`
	if b.String() != want {
		t.Errorf("brief:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := tb.WriteText(&b, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[1] != "name            n    rate        big       mixed  ok" || lines[2] != "cup             3  0.2500  1.500e+09   2.112e+03  true" ||
		lines[4] != "杯子       100000  0.0000       +Inf  -5.000e-01  true" {
		t.Errorf("wide:\n%s", b.String())
	}
}

// TestDisplayPrecision checks that the floats of a column share one
// number of decimals, that rounding residue is shown as zero, that times
// are RFC 3339 and that headers carry units.
func TestDisplayPrecision(t *testing.T) {
	tb := NewTable("one", false, "log_time_ns:i", "rotation:f", "sd:f", "duration_s:f", "noise:f").Describe("c", "rotation:rad", "sd:m")
	tb.Add(int64(1764579600123456789), 1.557, 0.0536, 2.5, 2.220446049250313e-16)
	tb.Add(int64(0), 0.009199, 0.009, 12.25, 0.0)
	cells := tb.Display()
	for i, want := range [][]string{
		{"2025-12-01T09:00:00.123Z", "1.5570", "0.05360", "2.50", "0"},
		{"1970-01-01T00:00:00.000Z", "0.0092", "0.00900", "12.25", "0"},
	} {
		if strings.Join(cells[i], " ") != strings.Join(want, " ") {
			t.Errorf("row %d: %q, want %q", i, cells[i], want)
		}
	}
	var heads []string
	for _, c := range tb.Columns {
		heads = append(heads, c.Header())
	}
	if got := strings.Join(heads, "|"); got != "log_time (UTC)|rotation (rad)|sd (m)|duration (s)|noise" {
		t.Errorf("headers %s", got)
	}
	if tb.RowCount() != "2 rows" {
		t.Error(tb.RowCount())
	}
	tb.Rows = tb.Rows[:1]
	var b strings.Builder
	if err := tb.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "one (1 row)\n") {
		t.Errorf("title line: %q", b.String())
	}
	if tb.Columns[0].Numeric() || !tb.Columns[1].Numeric() || tb.Columns[0].Kind != KindInt {
		t.Error("a time column is not numeric for alignment, a float is")
	}
}

// TestTableDocs checks every table of every analysis has a caption and
// that the units named exist as columns.
func TestTableDocs(t *testing.T) {
	for name, d := range tableDocs {
		if d.caption == "" {
			t.Errorf("%s: no caption", name)
		}
	}
	for _, r := range []Result{&PlacementsResult{}, &GraspsResult{}, &FactsResult{}, &MapResult{}, &QueriesResult{}} {
		for _, tb := range r.Tables() {
			if tb.Caption == "" {
				t.Errorf("table %s has no caption", tb.Name)
			}
		}
	}
}

// TestTableAddKinds: cells come out as their column kind's Go type, and a
// value the kind does not hold — which used to become 0, NaN or its
// fmt.Sprint text silently — is recorded as the table's error, naming the
// table and column, as is a row whose length is not the table's; the cell
// keeps its kind's zero value and WriteText refuses the table.
func TestTableAddKinds(t *testing.T) {
	tb := NewTable("t", false, "s", "n:i", "x:f", "ok:b")
	tb.Add("a", 3, Num(0.5), true)
	tb.Add("b", int64(-4), 2, false)
	tb.Add("c", uint32(7), int64(9), true)
	want := [][]any{{"a", int64(3), 0.5, true}, {"b", int64(-4), 2.0, false}, {"c", int64(7), 9.0, true}}
	if !reflect.DeepEqual(tb.Rows, want) || tb.Err() != nil {
		t.Errorf("rows %#v (%v), want %#v", tb.Rows, tb.Err(), want)
	}
	for _, c := range []struct {
		vals []any
		want string
	}{
		{[]any{"a", 1.5, 0.0, true}, "table t column n: a float64 (1.5) in a int column"},
		{[]any{"a", uint64(1 << 63), 0.0, true}, "table t column n: a uint64"},
		{[]any{"a", 1, "x", true}, "table t column x: a string (x) in a float column"},
		{[]any{"a", 1, 0.0, nil}, "table t column ok: a <nil>"},
		{[]any{3, 1, 0.0, true}, "table t column s: a int (3) in a string column"},
		{[]any{"a", 1, 0.0}, "table t: a row of 3 values for 4 columns"},
	} {
		bad := NewTable("t", false, "s", "n:i", "x:f", "ok:b")
		bad.Add("a", 3, Num(0.5), true)
		bad.Add(c.vals...)
		bad.Add("z", 1, 1.0, true) // the first error stays
		if err := bad.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("add(%v): Err %v, want it to say %q", c.vals, err, c.want)
		}
		if len(bad.Rows) != 3 || len(bad.Rows[1]) != 4 {
			t.Errorf("add(%v): rows %v, want 3 of 4 cells", c.vals, bad.Rows)
		}
		var b strings.Builder
		if err := bad.WriteText(&b, true); err == nil || b.Len() != 0 {
			t.Errorf("add(%v): WriteText wrote %q, %v; want the table's error", c.vals, b.String(), err)
		}
	}
}
