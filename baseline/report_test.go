package baseline_test

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/baseline"
)

const reportOld = `{"kind":"all",
	"placements":{"kind":"placements","placements":3,
		"groups":[{"item":"cup","room":"kitchen","surface":"table","reference_frame_id":"table","n":3,"mean_x":0.4}]},
	"grasps":{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"1","success_rate":0.5}],"attempts":[{"log_time_ns":1}]}}`

const reportNew = `{"kind":"all",
	"placements":{"kind":"placements","placements":4,
		"groups":[{"item":"cup","room":"kitchen","surface":"table","reference_frame_id":"table","n":3,"mean_x":0.45},
		          {"item":"a|b","room":"kitchen","surface":"table","reference_frame_id":"table","n":1,"mean_x":0.1}]},
	"grasps":{"kind":"grasps","grasps":[{"model_id":"1","grasp_id":"1","success_rate":0.5}],"attempts":[{"log_time_ns":1}]}}`

func TestComparisonText(t *testing.T) {
	c := compareDocs(t, reportOld, reportNew, baseline.CompareOptions{Tolerance: 1e-9})
	var b bytes.Buffer
	// maxLines bounds the whole report (issue 31.13: with 10 it printed
	// 33 lines, 10 of details after the summaries).
	if err := c.WriteText(&b, "base.json", 6); err != nil {
		t.Fatal(err)
	}
	want := `baseline base.json: drift in 2 of 4 statistic groups (default tolerance rel 1e-09)
  placements: 1 of 1 statistic differ
  placements.groups: 1 -> 2 rows: 1 new placement group, 1 of 2 statistics differ
  2 other statistic groups within tolerance
  placements.placements: 3 -> 4 (+33.3%, tolerance exact)
  … and 2 more lines (every line in --report markdown:FILE or junit:FILE)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	c = compareDocs(t, reportOld, reportOld, baseline.CompareOptions{Tolerance: 1e-9})
	_ = c.WriteText(&b, "base.json", 2)
	if want := "baseline base.json: within tolerance (4 statistic groups, 5 statistics; default tolerance rel 1e-09)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestComparisonMarkdown(t *testing.T) {
	c := compareDocs(t, reportOld, reportNew, baseline.CompareOptions{Tolerance: 1e-9})
	var b bytes.Buffer
	if err := c.WriteMarkdown(&b, "base.json", 500); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"### baglab baseline check: drift ❌",
		"| statistic group | rows | new | removed | beyond tolerance | status |",
		"| `placements.groups` | 1 → 2 | 1 | 0 | 1 of 2 | ❌ |",
		"| `grasps.attempts` | 1 | 0 | 0 | 0 of 1 | ✅ |",
		"- 1 new placement group: `item=a\\|b,room=kitchen,surface=table,reference_frame_id=table`",
		"| `placements.groups[item=cup,room=kitchen,surface=table,reference_frame_id=table].mean_x` | `0.4` | `0.45` | +12.5% | rel 1e-09 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	// Every table line has the header's number of cells (no stray |).
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| `placements") || strings.HasPrefix(line, "| `grasps") {
			cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
			if cells != 7 && cells != 6 {
				t.Errorf("%d cell separators in %q", cells, line)
			}
		}
	}
}

// The common JUnit schema (Ant's JUnit.xsd, which Jenkins, GitLab and
// GitHub test reporters read): testsuites of testsuite elements with name,
// tests, failures, errors, time, timestamp, hostname, id and package;
// properties, testcase (name, classname, time), system-out and system-err;
// a failure carries message and type.
type xsdSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Attrs    []xml.Attr `xml:",any,attr"`
	Suites   []xsdSuite `xml:"testsuite"`
	Unwanted []xml.Name `xml:",any"`
}

type xsdSuite struct {
	Attrs      []xml.Attr `xml:",any,attr"`
	Properties *struct {
		Property []struct {
			Attrs []xml.Attr `xml:",any,attr"`
		} `xml:"property"`
	} `xml:"properties"`
	Cases     []xsdCase `xml:"testcase"`
	SystemOut *string   `xml:"system-out"`
	SystemErr *string   `xml:"system-err"`
}

type xsdCase struct {
	Attrs   []xml.Attr `xml:",any,attr"`
	Failure *struct {
		Attrs []xml.Attr `xml:",any,attr"`
		Text  string     `xml:",chardata"`
	} `xml:"failure"`
}

func attrs(t *testing.T, what string, as []xml.Attr, required ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, a := range as {
		m[a.Name.Local] = a.Value
	}
	for _, r := range required {
		if _, ok := m[r]; !ok {
			t.Errorf("%s: required attribute %q missing (have %v)", what, r, m)
		}
	}
	return m
}

func TestComparisonJUnit(t *testing.T) {
	c := compareDocs(t, reportOld, reportNew, baseline.CompareOptions{Tolerance: 1e-9})
	var b bytes.Buffer
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	if err := c.WriteJUnit(&b, "base.json", at, "ci-runner"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Error("no XML declaration")
	}
	var doc xsdSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	attrs(t, "testsuites", doc.Attrs, "name", "tests", "failures", "errors", "time")
	if len(doc.Suites) != 2 {
		t.Fatalf("%d suites, want placements and grasps", len(doc.Suites))
	}
	total, failures := 0, 0
	var failed []string
	for _, s := range doc.Suites {
		sa := attrs(t, "testsuite", s.Attrs, "name", "tests", "failures", "errors", "time", "timestamp", "hostname", "id", "package")
		if sa["timestamp"] != "2026-12-01T09:30:00" || sa["hostname"] != "ci-runner" {
			t.Errorf("timestamp/hostname %q %q", sa["timestamp"], sa["hostname"])
		}
		if s.SystemOut == nil || s.SystemErr == nil || s.Properties == nil {
			t.Errorf("suite %s: properties, system-out and system-err are required", sa["name"])
		}
		n, f := 0, 0
		for _, tc := range s.Cases {
			ca := attrs(t, "testcase", tc.Attrs, "name", "classname", "time")
			n++
			if tc.Failure != nil {
				fa := attrs(t, "failure", tc.Failure.Attrs, "message", "type")
				f++
				failed = append(failed, ca["name"]+": "+fa["message"]+"\n"+tc.Failure.Text)
			}
		}
		if sa["tests"] != strconv.Itoa(n) || sa["failures"] != strconv.Itoa(f) {
			t.Errorf("suite %s: tests=%s failures=%s, has %d cases %d failures", sa["name"], sa["tests"], sa["failures"], n, f)
		}
		total += n
		failures += f
	}
	if ta := attrs(t, "testsuites", doc.Attrs); ta["tests"] != strconv.Itoa(total) || ta["failures"] != strconv.Itoa(failures) {
		t.Errorf("testsuites counts %v, cases %d failures %d", ta, total, failures)
	}
	want := []string{
		"placements: 1 of 1 statistic differ\nplacements.placements: 3 -> 4 (+33.3%, tolerance exact)",
		"placements.groups: 1 -> 2 rows: 1 new placement group, 1 of 2 statistics differ\n" +
			`1 new placement group: item=a|b,room=kitchen,surface=table,reference_frame_id=table` + "\n" +
			"placements.groups[item=cup,room=kitchen,surface=table,reference_frame_id=table].mean_x: 0.4 -> 0.45 (+12.5%, tolerance rel 1e-09)",
	}
	if strings.Join(failed, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(failed, "\n"), strings.Join(want, "\n"))
	}
}

func TestUpdateKeepsTolerancesAndComments(t *testing.T) {
	old := "// regression baseline of the breakfast study\n" + `{
  "baseline": {
    // decision values move with the EM's floating point
    "comment": "owned by the lab",
    "tolerances": {"placements.groups[*].mean_x": {"rel": 0.5}, "placements.*": {"abs": 1}}
  },` + strings.TrimPrefix(reportOld, "{")
	b, err := baseline.Parse([]byte(old), keys)
	if err != nil {
		t.Fatal(err)
	}
	if b.Comment != "owned by the lab" || len(b.Tolerances) != 2 || b.Tolerances[0].Pattern != "placements.groups[*].mean_x" {
		t.Fatalf("parsed %+v", b)
	}
	data, err := b.Update([]byte(reportNew))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"// regression baseline of the breakfast study\n{\n  \"baseline\": {\n    // decision values move",
		`"tolerances": {"placements.groups[*].mean_x": {"rel": 0.5}, "placements.*": {"abs": 1}}`,
		`"placements": 4`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	nb, err := baseline.Parse(data, keys)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(nb.Tolerances) != 2 || nb.Comment != b.Comment {
		t.Errorf("tolerances or comment lost: %+v", nb)
	}
	c, err := nb.Compare([]byte(reportNew), baseline.CompareOptions{})
	if err != nil || c.Drift() {
		t.Errorf("updated baseline differs from the result it was made from: %v %v", err, c.Diffs())
	}
	// A baseline without a baseline member becomes the result itself.
	plain, _ := baseline.Parse([]byte(reportOld), keys)
	data, _ = plain.Update([]byte(reportNew))
	if nb, err := baseline.Parse(data, keys); err != nil || len(nb.Tolerances) != 0 || strings.Contains(string(data), `"baseline"`) {
		t.Errorf("plain update: %v\n%s", err, data)
	}
	// A dataset baseline with tolerances keeps the wrapped form.
	ds, err := baseline.Parse([]byte(`{"baseline":{"tolerances":{"files[*].topics[*].frequency_hz":{"ignore":true}}},"kind":"dataset","files":[{"path":"a.bag","format":"bag","topics":[]}]}`), keys)
	if err != nil {
		t.Fatal(err)
	}
	data, err = ds.Update([]byte(`{"path":"a.bag","format":"bag","topics":[{"topic":"/x","message_count":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if nb, err := baseline.Parse(data, keys); err != nil || nb.Kind != "dataset" || len(nb.Tolerances) != 1 || !strings.Contains(string(data), `"topic": "/x"`) {
		t.Errorf("dataset update: %v\n%s", err, data)
	}
	if _, err := b.Update([]byte(`{"kind":"map"}`)); err == nil {
		t.Error("update with another kind accepted")
	}
}
