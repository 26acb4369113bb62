package contract

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/cireport"
)

// Unit is the results of one recording (or one merged partial file).
type Unit struct {
	Name    string
	Results []Result
}

// Report is a contract check over several recordings.
type Report struct {
	// Spec names the contract file.
	Spec  string
	Units []Unit
}

// broken counts the broken rules of u.
func (u Unit) broken() int {
	n := 0
	for _, r := range u.Results {
		if !r.Pass {
			n++
		}
	}
	return n
}

// Broken reports whether a rule is broken in some recording.
func (r *Report) Broken() bool {
	for _, u := range r.Units {
		if u.broken() > 0 {
			return true
		}
	}
	return false
}

// headline is the first line of every report.
func (r *Report) headline() string {
	rules, broken, units := 0, 0, 0
	for _, u := range r.Units {
		rules += len(u.Results)
		if b := u.broken(); b > 0 {
			broken += b
			units++
		}
	}
	if broken == 0 {
		return fmt.Sprintf("contract %s: every rule holds (%d rules in %s)", r.Spec, rules, plural(int64(len(r.Units)), "recording"))
	}
	return fmt.Sprintf("contract %s: %d of %d rules broken in %d of %s", r.Spec, broken, rules, units, plural(int64(len(r.Units)), "recording"))
}

// WriteText writes the terminal report: the headline, then one line per
// broken rule (recording, topic, rule, what it has and what the rule
// wants); maxLines lines in all at most, the last then saying how many
// more there are.
func (r *Report) WriteText(w io.Writer, maxLines int) error {
	lines := []string{r.headline()}
	for _, u := range r.Units {
		for _, x := range u.Results {
			if !x.Pass {
				lines = append(lines, fmt.Sprintf("  %s: %s %s: %s, want %s", u.Name, x.Topic, x.Rule, x.Got, x.Want))
			}
		}
	}
	if len(lines) > maxLines {
		keep := max(maxLines-1, 1)
		lines = append(lines[:keep], fmt.Sprintf("  … and %d more lines (every rule in --report markdown:FILE or junit:FILE)", len(lines)-keep))
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

// WriteMarkdown writes the report as GitHub-flavoured Markdown: the
// headline and, per recording, a table of every rule.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	status := "every rule holds ✅"
	if r.Broken() {
		status = "rules broken ❌"
	}
	fmt.Fprintf(&b, "### baglab contract check: %s\n\n%s\n", status, r.headline())
	for _, u := range r.Units {
		fmt.Fprintf(&b, "\n#### %s\n\n| topic | rule | want | got | status |\n|---|---|---|---|:---:|\n", cireport.Code(u.Name))
		for _, x := range u.Results {
			mark := "✅"
			switch {
			case !x.Pass:
				mark = "❌"
			case x.Skipped != "":
				mark = "➖"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cireport.Code(x.Topic), cireport.Code(x.Rule), cireport.Text(x.Want), cireport.Text(x.Got), mark)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJUnit writes the report as JUnit XML: one test suite per
// recording, one test case per topic and rule (skipped for an absent
// topic that is not required). at and host fill the timestamp and
// hostname attributes the schema requires.
func (r *Report) WriteJUnit(w io.Writer, at time.Time, host string) error {
	all := cireport.Suites{Name: "baglab contract " + r.Spec}
	for i, u := range r.Units {
		all.Suites = append(all.Suites, cireport.NewSuite(u.Name, i, "baglab.contract", at, host,
			cireport.Property{Name: "spec", Value: r.Spec}))
		for _, x := range u.Results {
			c := cireport.Case{Name: x.Name(), Classname: "baglab.contract." + x.Topic}
			switch {
			case !x.Pass:
				c.Failure = &cireport.Failure{Message: fmt.Sprintf("%s: %s, want %s", x.Rule, x.Got, x.Want), Type: "contract",
					Text: fmt.Sprintf("%s %s\nwant: %s\ngot:  %s", x.Topic, x.Rule, x.Want, x.Got)}
			case x.Skipped != "":
				c.Skipped = &cireport.Skipped{Message: x.Skipped}
			}
			all.Add(i, c)
		}
	}
	return all.Write(w)
}
