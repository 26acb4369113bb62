package baseline

import (
	"fmt"
	"math"
	"strings"
)

// CompareOptions configure Compare.
type CompareOptions struct {
	// Tolerance is the relative tolerance of the numbers no pattern of the
	// baseline names and that are not both integers (counts are exact
	// unless a pattern says otherwise). An absolute difference of 1e-12
	// always passes.
	Tolerance float64
	// ContentHash also compares a SHA-256 of the rows of per-observation
	// tables (in any order), not only their number.
	ContentHash bool
}

// Comparison is the outcome of comparing a result with a baseline.
type Comparison struct {
	// Kind is the kind of both documents.
	Kind string
	// Tolerance is the default relative tolerance used.
	Tolerance float64
	// Groups are the statistic groups, in report order: each kind's
	// summary statistics, then its tables.
	Groups []*GroupDiff
}

// GroupDiff is the comparison of one statistic group: a table, or the
// summary statistics of one analysis.
type GroupDiff struct {
	// Path is the group's glob path ("placements.groups", "placements").
	Path string
	// Key documents the table (nil for summary statistics and tables
	// without a documented key, which are compared as row counts).
	Key *TableKey
	// Table marks groups that are tables; OldRows and NewRows count their
	// rows (of every enclosing row both sides have).
	Table            bool
	OldRows, NewRows int
	// Added and Removed are the rows present on one side only.
	Added, Removed []Row
	// Diffs are the statistics beyond tolerance.
	Diffs []Diff
	// Compared counts the statistics compared.
	Compared int
}

// Row names one row of a table.
type Row struct {
	// Path is the full path of the row ("placements.groups[item=cup,…]").
	Path string
	// Key is its identity alone ("item=cup,room=kitchen,…").
	Key string
}

// Diff is one statistic beyond tolerance.
type Diff struct {
	// Path locates the statistic
	// ("placements.groups[item=cup,room=kitchen,surface=kitchen_table,reference_frame_id=plate].mean_x").
	Path string
	// Old and New are the values as JSON text ("" when absent).
	Old, New string
	// Rel is the relative change of a number (NaN for other values).
	Rel float64
	// Tolerance is the tolerance that applied.
	Tolerance Tolerance
	// Row marks a whole row, new (Old "") or removed (New "").
	Row bool
}

func (d Diff) String() string {
	switch {
	case d.Row && d.Old == "":
		return d.Path + ": new row"
	case d.Row:
		return d.Path + ": removed row"
	case d.Old == "":
		return fmt.Sprintf("%s: added %s", d.Path, d.New)
	case d.New == "":
		return fmt.Sprintf("%s: removed (was %s)", d.Path, d.Old)
	case !math.IsNaN(d.Rel):
		return fmt.Sprintf("%s: %s -> %s (%s, tolerance %s)", d.Path, d.Old, d.New, percent(d.Rel), d.Tolerance)
	}
	return fmt.Sprintf("%s: %s -> %s", d.Path, d.Old, d.New)
}

func percent(rel float64) string {
	if math.IsInf(rel, 0) {
		return "from 0"
	}
	return fmt.Sprintf("%+.3g%%", rel*100)
}

// Drift reports whether the group differs beyond tolerance.
func (g *GroupDiff) Drift() bool { return len(g.Added)+len(g.Removed)+len(g.Diffs) > 0 }

// Name is the group's noun for n rows ("placement groups"), or its path.
func (g *GroupDiff) Name(n int) string {
	if g.Key != nil {
		return g.Key.plural(n)
	}
	if g.Table {
		if n == 1 {
			return "row"
		}
		return "rows"
	}
	return "statistics"
}

// Summary is one line about the group: its rows, the new and removed ones
// and the statistics that differ.
func (g *GroupDiff) Summary() string {
	var parts []string
	if len(g.Added) > 0 {
		parts = append(parts, fmt.Sprintf("%d new %s", len(g.Added), g.Name(len(g.Added))))
	}
	if len(g.Removed) > 0 {
		parts = append(parts, fmt.Sprintf("%d removed %s", len(g.Removed), g.Name(len(g.Removed))))
	}
	if n := len(g.Diffs); n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s differ", n, g.Compared, plural(g.Compared, "statistic")))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d %s within tolerance", g.Compared, plural(g.Compared, "statistic")))
	}
	s := strings.Join(parts, ", ")
	if g.Table {
		rows := fmt.Sprintf("%d rows", g.NewRows)
		if g.OldRows != g.NewRows {
			rows = fmt.Sprintf("%d -> %d rows", g.OldRows, g.NewRows)
		}
		if g.Key == nil || g.Key.PerObservation {
			rows += " (per observation)"
		}
		s = rows + ": " + s
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Drift reports whether anything differs beyond tolerance.
func (c *Comparison) Drift() bool {
	for _, g := range c.Groups {
		if g.Drift() {
			return true
		}
	}
	return false
}

// Diffs returns every difference in report order, new and removed rows
// included (as Diffs with an empty Old or New).
func (c *Comparison) Diffs() []Diff {
	var out []Diff
	for _, g := range c.Groups {
		for _, r := range g.Removed {
			out = append(out, Diff{Path: r.Path, Old: r.Key, Rel: math.NaN(), Row: true})
		}
		for _, r := range g.Added {
			out = append(out, Diff{Path: r.Path, New: r.Key, Rel: math.NaN(), Row: true})
		}
		out = append(out, g.Diffs...)
	}
	return out
}

// current decodes the result document of this run and checks it is of the
