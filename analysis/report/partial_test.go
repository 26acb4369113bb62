package report

import (
	"reflect"
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
