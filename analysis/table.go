package analysis

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
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

// formatShort renders a cell for people: floats with 4 significant digits.
func formatShort(v any) string {
	if x, ok := v.(float64); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return FormatCell(v)
}

// WriteText renders the table for a terminal, aligned in columns with
// floats shortened to 4 significant digits.
func (t *Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if _, err := fmt.Fprintf(w, "== %s (%d rows)\n", t.Name, len(t.Rows)); err != nil {
		return err
	}
	for i, c := range t.Columns {
		if i > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, c.Name)
	}
	fmt.Fprint(tw, "\t\n")
	for _, r := range t.Rows {
		for i, v := range r {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, formatShort(v))
		}
		fmt.Fprint(tw, "\t\n")
	}
	return tw.Flush()
}
