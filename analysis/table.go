package analysis

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/termtext"
	"github.com/rivo/uniseg"
)

// ColumnKind is the type of a table column.
type ColumnKind uint8

// The column kinds.
const (
	KindString ColumnKind = iota
	KindInt
	KindFloat
	KindBool
)

var kindNames = [...]string{KindString: "string", KindInt: "int", KindFloat: "float", KindBool: "bool"}

// Column describes one column of a Table.
//
// Two name suffixes carry a unit by convention: a KindInt column named
// "*_ns" holds a time point in nanoseconds since the Unix epoch, shown to
// people as an RFC 3339 time in UTC; a KindFloat column named "*_s" holds
// seconds. Other units are given by Unit.
type Column struct {
	Name string
	Kind ColumnKind
	// Unit is the unit of the values as people read it ("m", "rad", "s");
	// empty for counts, ratios, names and times.
	Unit string
}

// IsTime reports whether the column holds time points (Int, "*_ns").
func (c Column) IsTime() bool {
	return c.Kind == KindInt && strings.HasSuffix(c.Name, "_ns")
}

// Numeric reports whether the column holds numbers people compare by
// magnitude (ints and floats, not times): they are right-aligned.
func (c Column) Numeric() bool {
	return (c.Kind == KindInt || c.Kind == KindFloat) && !c.IsTime()
}

// Header is the column's name for people: the name with its unit in
// parentheses ("mean_x (m)", "total_duration (s)", "log_time (UTC)").
func (c Column) Header() string {
	switch {
	case c.IsTime():
		return strings.TrimSuffix(c.Name, "_ns") + " (UTC)"
	case c.Kind == KindFloat && strings.HasSuffix(c.Name, "_s"):
		return strings.TrimSuffix(c.Name, "_s") + " (s)"
	case c.Unit != "":
		return c.Name + " (" + c.Unit + ")"
	}
	return c.Name
}

// Table is a tidy table: one row per observation, one column per variable.
// Row values are string, int64, float64 or bool matching the column kinds.
type Table struct {
	// Name is the file stem the table is exported under ("placements").
	Name string
	// Caption says in a sentence what one row is and what the numbers
	// mean, with their units.
	Caption string
	Columns []Column
	Rows    [][]any
	// Detail marks per-observation tables left out of terminal output.
	Detail bool
	// Brief names the columns terminal output shows unless asked for all
	// (nil: every column).
	Brief []string
	// err is the first cell that did not fit its column (see Err).
	err error
}

// Err returns the first cell that did not fit its column — a value of a Go
// type the column's kind does not hold, or a row of the wrong length — as
// an error naming the table and column, else nil. Such a cell is a bug in
// the analysis that built the table, not bad input; WriteText, tabular's
// writers and the report refuse a table with one rather than show a zero
// in its place.
func (t *Table) Err() error { return t.err }

// NewTable returns an empty table with the given columns, written as
// "name:kind" pairs where kind is s, i, f or b.
func NewTable(name string, detail bool, cols ...string) *Table {
	t := &Table{Name: name, Detail: detail}
	for _, c := range cols {
		k := KindString
		n := c
		if len(c) > 2 && c[len(c)-2] == ':' {
			n = c[:len(c)-2]
			switch c[len(c)-1] {
			case 'i':
				k = KindInt
			case 'f':
				k = KindFloat
			case 'b':
				k = KindBool
			}
		}
		t.Columns = append(t.Columns, Column{Name: n, Kind: k})
	}
	if d, ok := tableDocs[name]; ok {
		t.Describe(d.caption, d.units...)
	}
	return t
}

// Describe sets the caption of t and the units of its columns, given as
// "column:unit" pairs.
func (t *Table) Describe(caption string, units ...string) *Table {
	t.Caption = caption
	for _, u := range units {
		name, unit, _ := strings.Cut(u, ":")
		for i := range t.Columns {
			if t.Columns[i].Name == name {
				t.Columns[i].Unit = unit
			}
		}
	}
	return t
}

// RowCount is "1 row" or "N rows".
func (t *Table) RowCount() string {
	if len(t.Rows) == 1 {
		return "1 row"
	}
	return strconv.Itoa(len(t.Rows)) + " rows"
}

// ShowByDefault sets the columns shown in terminal output by default.
func (t *Table) ShowByDefault(cols ...string) *Table {
	t.Brief = cols
	return t
}

// Add appends one row; values are converted to the column kinds. A cell
// that does not fit its column is kept as its kind's zero value and
// recorded (Err).
func (t *Table) Add(vals ...any) {
	if len(vals) != len(t.Columns) && t.err == nil {
		t.err = fmt.Errorf("analysis: table %s: a row of %d values for %d columns", t.Name, len(vals), len(t.Columns))
	}
	row := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		cell, ok := convertCell(c.Kind, v)
		if !ok {
			if t.err == nil {
				t.err = fmt.Errorf("analysis: table %s column %s: a %T (%v) in a %s column", t.Name, c.Name, v, v, kindNames[c.Kind])
			}
			cell = zeroCell[c.Kind]
		}
		row[i] = cell
	}
	t.Rows = append(t.Rows, row)
}

// zeroCell is what a cell that does not fit its column holds.
var zeroCell = [...]any{KindString: "", KindInt: int64(0), KindFloat: math.NaN(), KindBool: false}

// convertCell returns v as the Go type of kind k's cells (int64, float64,
// bool, string), and false for a type k does not hold.
func convertCell(k ColumnKind, v any) (any, bool) {
	switch k {
	case KindInt:
		switch x := v.(type) {
		case int:
			return int64(x), true
		case int64:
			return x, true
		case int32:
			return int64(x), true
		case uint32:
			return int64(x), true
		}
	case KindFloat:
		switch x := v.(type) {
		case float64:
			return x, true
		case Num:
			return float64(x), true
		case int:
			return float64(x), true
		case int64:
			return float64(x), true
		}
	case KindBool:
		b, ok := v.(bool)
		return b, ok
	default:
		s, ok := v.(string)
		return s, ok
	}
	return nil, false
}

// FormatCell renders one cell for text and CSV output: floats in the
// shortest form that round-trips, NaN as "NaN", infinities as "+Inf"/"-Inf".
func FormatCell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "+Inf"
		case math.IsInf(x, -1):
			return "-Inf"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// Display returns every row formatted for people, as WriteText shows them:
// the floats of a column with one number of decimals (or all in
// scientific notation with four significant digits), times as RFC 3339 in
// UTC, control characters escaped.
func (t *Table) Display() [][]string {
	cols := make([]int, len(t.Columns))
	for i := range cols {
		cols[i] = i
	}
	return t.Cells(cols)
}

// Shown returns the indices of the columns people see by default: the
// Brief ones (every column when wide or when Brief is nil).
func (t *Table) Shown(wide bool) []int {
	var cols []int
	for i, c := range t.Columns {
		if wide || t.Brief == nil || slices.Contains(t.Brief, c.Name) {
			cols = append(cols, i)
		}
	}
	return cols
}

// Cells renders the rows' cells of the columns cols (indices into
// Columns) as Display does.
func (t *Table) Cells(cols []int) [][]string {
	cells := make([][]string, len(t.Rows))
	for r := range t.Rows {
		cells[r] = make([]string, len(cols))
	}
	for j, i := range cols {
		format := FormatCell
		switch c := t.Columns[i]; {
		case c.IsTime():
			format = formatTime
		case c.Kind == KindFloat:
			format = floatFormat(t.Rows, i)
		case c.Kind == KindString:
			format = func(v any) string { return termtext.Line(FormatCell(v)) }
		}
		for r, row := range t.Rows {
			if i < len(row) {
				cells[r][j] = format(row[i])
			}
		}
	}
	return cells
}

// WriteText renders the table for a terminal: a title line with the row
// count, then aligned columns under their headers (with units), text
// left-aligned and numbers right-aligned, cells as Display gives them.
// wide selects every column instead of the Brief ones.
func (t *Table) WriteText(w io.Writer, wide bool) error {
	if t.err != nil {
		return t.err
	}
	cols := t.Shown(wide)
	cells := append([][]string{make([]string, len(cols))}, t.Cells(cols)...)
	for j, i := range cols {
		cells[0][j] = t.Columns[i].Header()
	}
	width := make([]int, len(cols))
	for _, row := range cells {
		for j, c := range row {
			width[j] = max(width[j], uniseg.StringWidth(c))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", t.Name, t.RowCount())
	for _, row := range cells {
		for j, c := range row {
			pad := strings.Repeat(" ", width[j]-uniseg.StringWidth(c))
			if j > 0 {
				b.WriteString("  ")
			}
			if !t.Columns[cols[j]].Numeric() {
				b.WriteString(c)
				if j < len(row)-1 {
					b.WriteString(pad)
				}
			} else {
				b.WriteString(pad)
				b.WriteString(c)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// formatTime shows a time point (ns since the Unix epoch) as RFC 3339 in
// UTC with milliseconds.
func formatTime(v any) string {
	if x, ok := v.(int64); ok {
		return time.Unix(0, x).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	return FormatCell(v)
}

// noise is the magnitude below which a float is shown as 0: rounding
// residue such as 2.22e-16 carries no information for people (the full
// value is in --json, CSV and Parquet).
const noise = 1e-12

// floatFormat picks the format of float column i. Fixed decimals give the
// largest magnitude four significant digits and the smallest non-zero one
// at least two; when that needs more than six decimals, the magnitudes
// span more than about three orders, or the largest is 1e7 or more, every
// value is shown in scientific notation with four significant digits. NaN and infinities are shown as FormatCell does.
func floatFormat(rows [][]any, i int) func(any) string {
	finite := func(v any) (float64, bool) {
		x, ok := v.(float64)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		if math.Abs(x) < noise {
			x = 0
		}
		return x, true
	}
	top, least := 0.0, math.Inf(1)
	for _, r := range rows {
		if x, ok := finite(r[i]); ok && x != 0 {
			top = max(top, math.Abs(x))
			least = min(least, math.Abs(x))
		}
	}
	fixed := func(decimals int) func(any) string {
		return func(v any) string {
			x, ok := finite(v)
			if !ok {
				return FormatCell(v)
			}
			s := strconv.FormatFloat(x, 'f', decimals, 64)
			if s[0] == '-' && strings.Trim(s, "-0.") == "" {
				s = s[1:] // a tiny negative rounds to zero: no "-0.000"
			}
			return s
		}
	}
	if top == 0 {
		return fixed(0)
	}
	forTop := 3 - int(math.Floor(math.Log10(top)))
	forLeast := 1 - int(math.Floor(math.Log10(least)))
	if decimals := max(forTop, forLeast, 0); decimals <= 6 && forLeast-forTop <= 2 && top < 1e7 {
		return fixed(decimals)
	}
	return func(v any) string {
		x, ok := finite(v)
		if !ok {
			return FormatCell(v)
		}
		return strconv.FormatFloat(x+0, 'e', 3, 64) // +0 turns -0 into 0
	}
}
