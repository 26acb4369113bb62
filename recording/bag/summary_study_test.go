package bag_test

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/recording/bag"
)

// TestSummaryStudy compares the Summary of every bag of a generated study
// (three compressions, every message type, an unindexed and a cut one) with
// what iterating all its messages gives: per topic the count, the first and
// last log times and the frequency from them.
func TestSummaryStudy(t *testing.T) {
	dir := t.TempDir()
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := studygen.WriteAll(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts []bag.Option
	}{
		{"study.bag", nil},
		{"study.bag", []bag.Option{record.WithoutIndex()}},
		{"study-lz4.bag", nil},
		{"study-bz2.bag", nil},
		{"study-bz2.bag", []bag.Option{record.WithoutIndex()}},
		{"all_types.bag", nil},
		{"broken/study.bag.active", nil},
		{"broken/study-truncated.bag", []bag.Option{record.WithSkipBad(nil)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := bag.Open(filepath.Join(dir, c.name), c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			recordtest.CheckSummary(t, r)
		})
	}
}
