package cireport

import (
	"encoding/xml"
	"io"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/termtext"
)

// Suites is the root of a JUnit XML document: testsuites.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one testsuite.
type Suite struct {
	Name       string     `xml:"name,attr"`
	ID         int        `xml:"id,attr"`
	Package    string     `xml:"package,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       string     `xml:"time,attr"`
	Timestamp  string     `xml:"timestamp,attr"`
	Hostname   string     `xml:"hostname,attr"`
	Properties []Property `xml:"properties>property"`
	Cases      []Case     `xml:"testcase"`
	SystemOut  string     `xml:"system-out"`
	SystemErr  string     `xml:"system-err"`
}

// Property is one property of a suite.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one testcase; Failure is nil when it passed.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Failure `xml:"failure"`
	Skipped   *Skipped `xml:"skipped"`
}

// Failure says why a case failed.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Skipped says why a case did not run.
type Skipped struct {
	Message string `xml:"message,attr"`
}

// NewSuite returns an empty suite with the attributes the schema
// requires: at and host fill timestamp and hostname.
func NewSuite(name string, id int, pkg string, at time.Time, host string, props ...Property) Suite {
	return Suite{Name: name, ID: id, Package: pkg, Time: "0", Timestamp: at.UTC().Format("2006-01-02T15:04:05"),
		Hostname: host, Properties: props}
}

// Add appends c to the suite s of all and counts it.
func (all *Suites) Add(s int, c Case) {
	if c.Time == "" {
		c.Time = "0"
	}
	su := &all.Suites[s]
	su.Cases = append(su.Cases, c)
	su.Tests++
	all.Tests++
	switch {
	case c.Failure != nil:
		su.Failures++
		all.Failures++
	case c.Skipped != nil:
		su.Skipped++
	}
}

// Write writes the document with its XML header, indented.
func (all *Suites) Write(w io.Writer) error {
	if all.Time == "" {
		all.Time = "0"
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

// Code renders s as Markdown inline code that is safe in a table cell.
func Code(s string) string {
	s = termtext.Line(strings.ReplaceAll(s, "\n", " "))
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// Text is Code(s), or an em dash for an empty s.
func Text(s string) string {
	if s == "" {
		return "—"
	}
	return Code(s)
}
