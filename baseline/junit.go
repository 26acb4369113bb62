package baseline

import (
	"encoding/xml"
	"io"
	"strings"
	"time"
)

// JUnit XML in the common schema (the Ant/Jenkins JUnit.xsd): testsuites,
// one testsuite per analysis (or dataset), one testcase per statistic
// group, a failure with every new and removed row and every statistic
// beyond tolerance with its old and new value and its tolerance.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	ID         int             `xml:"id,attr"`
	Package    string          `xml:"package,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML. at and host fill the
// timestamp and hostname attributes the schema requires.
func (c *Comparison) WriteJUnit(w io.Writer, name string, at time.Time, host string) error {
	all := junitSuites{Name: "baglab baseline " + name, Time: "0"}
	index := map[string]int{}
	for _, g := range c.Groups {
		sec, _, _ := strings.Cut(g.Path, ".")
		sec, _, _ = strings.Cut(sec, "[")
		i, ok := index[sec]
		if !ok {
			i = len(all.Suites)
			index[sec] = i
			all.Suites = append(all.Suites, junitSuite{Name: sec, ID: i, Package: "baglab." + sec, Time: "0",
				Timestamp: at.UTC().Format("2006-01-02T15:04:05"), Hostname: host,
				Properties: []junitProperty{{"baseline", name}, {"kind", c.Kind}, {"tolerance", Tolerance{Rel: c.Tolerance}.String()}}})
		}
		s := &all.Suites[i]
		tc := junitCase{Name: g.Path, Classname: "baglab." + sec, Time: "0"}
		if g.Drift() {
			lines := g.rowLines(0)
			for _, d := range g.Diffs {
				lines = append(lines, d.String())
			}
			tc.Failure = &junitFailure{Message: g.Summary(), Type: "drift", Text: strings.Join(lines, "\n")}
			s.Failures++
			all.Failures++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
		all.Tests++
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
