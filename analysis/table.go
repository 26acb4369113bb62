package analysis

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rivo/uniseg"
)

// ColumnKind is the type of a table column.
type ColumnKind uint8

// The column kinds.
const (
	String ColumnKind = iota
	Int
	Float
	Bool
)

// Column describes one column of a Table.
type Column struct {
	Name string
	Kind ColumnKind
}

// Table is a tidy table: one row per observation, one column per variable.
// Row values are string, int64, float64 or bool matching the column kinds.
type Table struct {
	// Name is the file stem the table is exported under ("placements").
	Name    string
	Columns []Column
	Rows    [][]any
	// Detail marks per-observation tables left out of terminal output.
	Detail bool
	// Brief names the columns terminal output shows unless asked for all
	// (nil: every column).
	Brief []string
}

// newTable returns an empty table with the given columns, written as
// "name:kind" pairs where kind is s, i, f or b.
func newTable(name string, detail bool, cols ...string) *Table {
	t := &Table{Name: name, Detail: detail}
	for _, c := range cols {
		k := String
		n := c
		if len(c) > 2 && c[len(c)-2] == ':' {
			n = c[:len(c)-2]
			switch c[len(c)-1] {
			case 'i':
				k = Int
			case 'f':
				k = Float
			case 'b':
				k = Bool
			}
		}
		t.Columns = append(t.Columns, Column{Name: n, Kind: k})
	}
	return t
}

// brief sets the columns shown in terminal output by default.
func (t *Table) brief(cols ...string) *Table {
	t.Brief = cols
	return t
}

// add appends one row; values are converted to the column kinds.
func (t *Table) add(vals ...any) {
	row := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		var v any
		if i < len(vals) {
			v = vals[i]
		}
		row[i] = convertCell(c.Kind, v)
	}
	t.Rows = append(t.Rows, row)
}

func convertCell(k ColumnKind, v any) any {
	switch k {
	case Int:
		switch x := v.(type) {
		case int:
			return int64(x)
		case int64:
			return x
		case uint32:
			return int64(x)
		case uint64:
			return int64(x)
		}
		return int64(0)
	case Float:
		switch x := v.(type) {
		case float64:
			return x
		case Num:
			return float64(x)
		case int:
			return float64(x)
		case int64:
			return float64(x)
		}
		return math.NaN()
	case Bool:
		b, _ := v.(bool)
		return b
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
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
// floats with a column-wide number of decimals, control characters escaped.
func (t *Table) Display() [][]string {
	cols := make([]int, len(t.Columns))
	for i := range cols {
		cols[i] = i
	}
	return t.formatted(cols)
}

// formatted renders the rows' cells of the columns cols.
func (t *Table) formatted(cols []int) [][]string {
	cells := make([][]string, len(t.Rows))
	for r := range t.Rows {
		cells[r] = make([]string, len(cols))
	}
	for j, i := range cols {
		format := FormatCell
		switch t.Columns[i].Kind {
		case Float:
			format = floatFormat(t.Rows, i)
		case String:
			format = func(v any) string { return printable(FormatCell(v)) }
		}
		for r, row := range t.Rows {
			if i < len(row) {
				cells[r][j] = format(row[i])
			}
		}
	}
	return cells
}

// WriteText renders the table for a terminal: a title line, then aligned
// columns, text left-aligned and numbers right-aligned. The floats of a
// column share one number of decimals, chosen to give its largest value
// four significant digits (columns spanning magnitudes beyond 1e-4..1e7
// use %.4g instead). wide selects every column instead of the Brief ones.
func (t *Table) WriteText(w io.Writer, wide bool) error {
	var cols []int
	for i, c := range t.Columns {
		if wide || t.Brief == nil || slices.Contains(t.Brief, c.Name) {
			cols = append(cols, i)
		}
	}
	cells := append([][]string{make([]string, len(cols))}, t.formatted(cols)...)
	for j, i := range cols {
		cells[0][j] = t.Columns[i].Name
	}
	width := make([]int, len(cols))
	for _, row := range cells {
		for j, c := range row {
			width[j] = max(width[j], uniseg.StringWidth(c))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d rows)\n", t.Name, len(t.Rows))
	for _, row := range cells {
		for j, c := range row {
			pad := strings.Repeat(" ", width[j]-uniseg.StringWidth(c))
			if j > 0 {
				b.WriteString("  ")
			}
			if t.Columns[cols[j]].Kind == String {
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

// printable escapes the characters of s a terminal would not show as
// themselves (tabs, newlines, other controls) the way Go strings do.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// floatFormat picks the format of float column i: fixed decimals giving
// the largest value four significant digits, or %.4g per value when that
// would show a non-zero value with fewer than two significant digits or
// the largest value is beyond 1e-4..1e7.
func floatFormat(rows [][]any, i int) func(any) string {
	general := func(v any) string {
		if x, ok := v.(float64); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
			return strconv.FormatFloat(x+0, 'g', 4, 64) // +0 turns -0 into 0
		}
		return FormatCell(v)
	}
	top, least := 0.0, math.Inf(1)
	for _, r := range rows {
		if x, ok := r[i].(float64); ok && !math.IsNaN(x) && !math.IsInf(x, 0) && x != 0 {
			top = max(top, math.Abs(x))
			least = min(least, math.Abs(x))
		}
	}
	if top == 0 {
		return general
	}
	if top < 1e-4 || top >= 1e7 {
		return general
	}
	decimals := min(max(3-int(math.Floor(math.Log10(top))), 0), 7)
	if least < math.Pow(10, float64(1-decimals)) {
		return general
	}
	return func(v any) string {
		if x, ok := v.(float64); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
			s := strconv.FormatFloat(x, 'f', decimals, 64)
			if s[0] == '-' && strings.Trim(s, "-0.") == "" {
				s = s[1:] // a tiny negative rounds to zero: no "-0.000"
			}
			return s
		}
		return FormatCell(v)
	}
}
