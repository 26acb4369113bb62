package baseline

import (
	"fmt"
	"io"
	"strings"

	"github.com/baglab/baglab/internal/cireport"
)

// Reports of a Comparison: a short text for a terminal or CI log,
// Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY, JUnit XML
// for CI test views (one test case per statistic group).

// maxListed caps the row keys listed on one line of text.
const maxListed = 5

// headline is the first line of every report.
func (c *Comparison) headline(name string) string {
	drift, stats := 0, 0
	for _, g := range c.Groups {
		stats += g.Compared
		if g.Drift() {
			drift++
		}
	}
	def := Tolerance{Rel: c.Tolerance}.String()
	if drift == 0 {
		return fmt.Sprintf("baseline %s: within tolerance (%d statistic groups, %d statistics; default tolerance %s)",
			name, len(c.Groups), stats, def)
	}
	return fmt.Sprintf("baseline %s: drift in %d of %d statistic groups (default tolerance %s)", name, drift, len(c.Groups), def)
}

// rowLines describes a group's new and removed rows, one line each.
func (g *GroupDiff) rowLines(limit int) []string {
	var out []string
	for _, side := range []struct {
		what string
		rows []Row
	}{{"new", g.Added}, {"removed", g.Removed}} {
		if len(side.rows) == 0 {
			continue
		}
		var names []string
		for i, r := range side.rows {
			if limit > 0 && i == limit {
				names = append(names, fmt.Sprintf("… and %d more", len(side.rows)-i))
				break
			}
			names = append(names, g.rowName(r))
		}
		out = append(out, fmt.Sprintf("%d %s %s: %s", len(side.rows), side.what, g.Name(len(side.rows)), strings.Join(names, "; ")))
	}
	return out
}

// rowName is a row's key, or its whole path for the rows of a table
// inside another.
func (g *GroupDiff) rowName(r Row) string {
	if strings.Contains(g.Path, "[") {
		return r.Path
	}
	return r.Key
}

// WriteText writes the terminal report: a headline, a summary line per
// group that drifted and one for the others, then the details (new and
// removed rows, statistics beyond tolerance); maxLines lines in all at
// most, the last then saying how many more there are (at least the
// headline and that line).
func (c *Comparison) WriteText(w io.Writer, name string, maxLines int) error {
	lines := []string{c.headline(name)}
	ok := 0
	var details []string
	for _, g := range c.Groups {
		if !g.Drift() {
			ok++
			continue
		}
		lines = append(lines, fmt.Sprintf("  %s: %s", g.Path, g.Summary()))
		if g.Path == "files" && len(g.Removed) == g.OldRows && len(g.Added) == g.NewRows && g.OldRows > 0 && g.NewRows > 0 {
			details = append(details, "no file of the baseline is among these: files are matched by their path as given (info --json printed them)")
		}
		details = append(details, g.rowLines(maxListed)...)
		for _, d := range g.Diffs {
			details = append(details, d.String())
		}
	}
	if ok > 0 && ok < len(c.Groups) {
		lines = append(lines, fmt.Sprintf("  %d other statistic groups within tolerance", ok))
	}
	for _, d := range details {
		lines = append(lines, "  "+d)
	}
	if len(lines) > maxLines {
		keep := max(maxLines-1, 1)
		lines = append(lines[:keep], fmt.Sprintf("  … and %d more lines (every line in --report markdown:FILE or junit:FILE)", len(lines)-keep))
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

// WriteMarkdown writes the report as GitHub-flavoured Markdown: a table
// with one line per statistic group, the new and removed rows, and a table
// of at most maxRows statistics beyond tolerance.
func (c *Comparison) WriteMarkdown(w io.Writer, name string, maxRows int) error {
	var b strings.Builder
	status := "within tolerance ✅"
	if c.Drift() {
		status = "drift ❌"
	}
	fmt.Fprintf(&b, "### baglab baseline check: %s\n\n%s\n\n", status, c.headline(cireport.Code(name)))
	b.WriteString("| statistic group | rows | new | removed | beyond tolerance | status |\n|---|---:|---:|---:|---:|:---:|\n")
	for _, g := range c.Groups {
		rows := ""
		if g.Table {
			rows = fmt.Sprint(g.NewRows)
			if g.OldRows != g.NewRows {
				rows = fmt.Sprintf("%d → %d", g.OldRows, g.NewRows)
			}
		}
		mark := "✅"
		if g.Drift() {
			mark = "❌"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d of %d | %s |\n", cireport.Code(g.Path), rows, len(g.Added), len(g.Removed), len(g.Diffs), g.Compared, mark)
	}
	var rows []string
	var diffs []Diff
	for _, g := range c.Groups {
		for _, side := range []struct {
			what string
			rows []Row
		}{{"new", g.Added}, {"removed", g.Removed}} {
			if len(side.rows) == 0 {
				continue
			}
			names := make([]string, len(side.rows))
			for i, r := range side.rows {
				names[i] = cireport.Code(g.rowName(r))
			}
			rows = append(rows, fmt.Sprintf("- %d %s %s: %s", len(side.rows), side.what, g.Name(len(side.rows)), strings.Join(names, ", ")))
		}
		diffs = append(diffs, g.Diffs...)
	}
	if len(rows) > 0 {
		b.WriteString("\n#### New and removed rows\n\n" + strings.Join(rows, "\n") + "\n")
	}
	if len(diffs) > 0 {
		b.WriteString("\n#### Statistics beyond tolerance\n\n| statistic | baseline | now | change | tolerance |\n|---|---:|---:|---:|---|\n")
		for i, d := range diffs {
			if i == maxRows {
				fmt.Fprintf(&b, "\n… and %d more (see the JUnit report)\n", len(diffs)-i)
				break
			}
			change := ""
			if d.Old != "" && d.New != "" && d.Rel == d.Rel {
				change = percent(d.Rel)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cireport.Code(d.Path), cireport.Text(d.Old), cireport.Text(d.New), change, d.Tolerance)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
