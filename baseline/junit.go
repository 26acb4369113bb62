package baseline

import (
	"io"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/cireport"
)

// JUnit XML (cireport): one testsuite per analysis (or dataset), one
// testcase per statistic group, a failure with every new and removed row
// and every statistic beyond tolerance with its old and new value and its
// tolerance.

// WriteJUnit writes the report as JUnit XML. at and host fill the
// timestamp and hostname attributes the schema requires.
func (c *Comparison) WriteJUnit(w io.Writer, name string, at time.Time, host string) error {
	all := cireport.Suites{Name: "baglab baseline " + name}
	index := map[string]int{}
	for _, g := range c.Groups {
		sec, _, _ := strings.Cut(g.Path, ".")
		sec, _, _ = strings.Cut(sec, "[")
		i, ok := index[sec]
		if !ok {
			i = len(all.Suites)
			index[sec] = i
			all.Suites = append(all.Suites, cireport.NewSuite(sec, i, "baglab."+sec, at, host,
				cireport.Property{Name: "baseline", Value: name}, cireport.Property{Name: "kind", Value: c.Kind},
				cireport.Property{Name: "tolerance", Value: Tolerance{Rel: c.Tolerance}.String()}))
		}
		tc := cireport.Case{Name: g.Path, Classname: "baglab." + sec}
		if g.Drift() {
			lines := g.rowLines(0)
			for _, d := range g.Diffs {
				lines = append(lines, d.String())
			}
			tc.Failure = &cireport.Failure{Message: g.Summary(), Type: "drift", Text: strings.Join(lines, "\n")}
		}
		all.Add(i, tc)
	}
	return all.Write(w)
}
