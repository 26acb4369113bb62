package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
)

func TestPartialInputs(t *testing.T) {
	in := []analysis.PartialInput{{Path: "a.bag", Format: "bag", Size: 12, SHA256: "ab", StartNs: 5, EndNs: 9, MessageCount: 3}, {Path: "b"}}
	got := PartialInputs(in)
	want := []Input{{Path: "a.bag", Format: "bag", Size: 12, SHA256: "ab", StartNs: 5, EndNs: 9, Messages: 3}, {Path: "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
}

// TestDefaultTitle: without a title the page is named after the base
// names of its inputs, in order.
func TestDefaultTitle(t *testing.T) {
	prov := ProvenanceOf("1.0", []string{"baglab", "report"}, nil, []Input{{Path: "runs/day1/study.bag"}, {Path: "queries_rosbag2"}})
	for title, want := range map[string]string{"": "<title>baglab report: study.bag, queries_rosbag2</title>", "Mine": "<title>Mine</title>"} {
		var b bytes.Buffer
		_ = Render(&b, Page{Title: title, Provenance: prov, Results: []analysis.Result{&analysis.QueriesResult{}}})
		if !strings.Contains(b.String(), want) {
			t.Errorf("title %q: no %s in\n%.300s", title, want, b.String())
		}
	}
}
