package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/contract"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

func TestParse(t *testing.T) {
	s, err := contract.Parse([]byte(`topics:
  /imu: {type: sensor_msgs/Imu, min_rate_hz: 90, max_gap: 0.1s, min_count: 100}
  /camera/info: {max_latency: 50ms, max_rate_hz: 31}
  /joint_states: {values: {"position[0]": [-3.2, 3.2], "velocity[1]": [0, 1]}}
  /optional: {required: false, max_gap: 2}
  /present:
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Topics) != 5 || s.Topics[0].Topic != "/imu" || s.Topics[4].Topic != "/present" {
		t.Fatalf("topics %+v", s.Topics)
	}
	imu := s.Topics[0]
	if imu.Type != "sensor_msgs/Imu" || *imu.MinRateHz != 90 || *imu.MaxGap != 100*time.Millisecond || *imu.MinCount != 100 || !imu.Required {
		t.Errorf("/imu %+v", imu)
	}
	if ci := s.Topics[1]; *ci.MaxLatency != 50*time.Millisecond || *ci.MaxRateHz != 31 {
		t.Errorf("/camera/info %+v", ci)
	}
	if v := s.Topics[2].Values; len(v) != 2 || v[0] != (contract.ValueRule{Path: "position[0]", Lo: -3.2, Hi: 3.2}) || v[1].Path != "velocity[1]" {
		t.Errorf("values %+v", v)
	}
	if o := s.Topics[3]; o.Required || *o.MaxGap != 2*time.Second {
		t.Errorf("/optional %+v", o)
	}
	for _, bad := range []string{
		"", "topics: []", "topics:\n  imu: {}", "topics:\n  /a: {min_rate: 3}", "topics:\n  /a: {max_gap: soon}",
		"topics:\n  /a: {values: {x: [2, 1]}}", "topics:\n  /a: {values: {x: [1]}}", "topics:\n  /a: {min_count: -1}",
		"topics:\n  /a: {}\n  /a: {}", "other: 1\ntopics:\n  /a: {}",
	} {
		if _, err := contract.Parse([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// peerStats are topic statistics by numpy over Debian rosbag's reading
// (../topics/testdata/peer/topics_peer.py).
func peerStats(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	testenv.RequirePeer(t, "numpy", "rosbag")
	out, err := exec.Command("/usr/bin/python3", filepath.Join("..", "topics", "testdata", "peer", "topics_peer.py"), "bag", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func peerFloat(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return math.NaN()
}

// TestCheckAgainstNumpy: every rule's verdict over the generated study is
// the verdict of the same rule on numpy's statistics of Debian rosbag's
// reading, for thresholds on both sides of each value.
func TestCheckAgainstNumpy(t *testing.T) {
	dir := studytest.Dir(t, studygen.Options{Seed: 5, Sessions: 3})
	path := filepath.Join(dir, "study.bag")
	peer := peerStats(t, path)
	var b strings.Builder
	b.WriteString("topics:\n")
	type want struct{ topic, rule string }
	expect := map[want]bool{}
	for topic, st := range peer {
		rate, gap, lat := peerFloat(st["rate_hz"]), peerFloat(st["period_max_s"]), peerFloat(st["latency_max_s"])
		count := int64(peerFloat(st["count"]))
		b.WriteString("  " + topic + ": {")
		var rules []string
		add := func(rule, yaml string, pass bool) {
			rules = append(rules, yaml)
			expect[want{topic, rule}] = pass
		}
		if !math.IsNaN(rate) {
			add("min_rate_hz", "min_rate_hz: "+ftoa(rate*0.999), true)
			add("max_rate_hz", "max_rate_hz: "+ftoa(rate*0.999), false)
		}
		if !math.IsNaN(gap) {
			add("max_gap", "max_gap: "+ftoa(gap*0.999), false)
		}
		if !math.IsNaN(lat) {
			add("max_latency", "max_latency: "+ftoa(lat+0.001), true)
		}
		add("min_count", "min_count: "+ftoa(float64(count+1)), false)
		b.WriteString(strings.Join(rules, ", ") + "}\n")
	}
	s, err := contract.Parse([]byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	res, err := contract.Check(context.Background(), in, s, analysis.Options{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range res {
		if pass, ok := expect[want{r.Topic, r.Rule}]; ok {
			checked++
			if r.Pass != pass {
				t.Errorf("%s: pass %v (got %s, want %s), numpy says %v", r.Name(), r.Pass, r.Got, r.Want, pass)
			}
		}
	}
	if checked != len(expect) || checked < 40 {
		t.Errorf("%d of %d rules checked", checked, len(expect))
	}
}

func ftoa(x float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// TestReportJUnit: one test case per topic and rule, failures for broken
// rules, skipped for an absent optional topic; the suite counts add up.
func TestReportJUnit(t *testing.T) {
	rep := &contract.Report{Spec: "s.yaml", Units: []contract.Unit{{Name: "a.bag", Results: []contract.Result{
		{Topic: "/a", Rule: "present", Pass: true},
		{Topic: "/a", Rule: "min_rate_hz", Want: ">= 5 Hz", Got: "2 Hz"},
		{Topic: "/b", Rule: "present", Pass: true, Skipped: "optional"},
	}}}}
	var b bytes.Buffer
	if err := rep.WriteJUnit(&b, time.Unix(0, 0), "h"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
			Cases   []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Suites[0].Cases
	if doc.Tests != 3 || doc.Failures != 1 || doc.Suites[0].Skipped != 1 || c[1].Name != "/a min_rate_hz" || c[1].Failure == nil || c[2].Skipped == nil {
		t.Errorf("JUnit:\n%s", b.String())
	}
	if !rep.Broken() {
		t.Error("not broken")
	}
	b.Reset()
	_ = rep.WriteText(&b, 20)
	if want := "contract s.yaml: 1 of 3 rules broken in 1 of 1 recording\n  a.bag: /a min_rate_hz: 2 Hz, want >= 5 Hz\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}
}
