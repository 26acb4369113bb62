package db3_test

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/recording/db3"
)

// TestSummaryStudy compares the Summary of the .db3 recordings of a
// generated study (a bare file and a rosbag2 folder) with what iterating
// all their messages gives: per topic the count, the first and last
// timestamps and the frequency from them.
func TestSummaryStudy(t *testing.T) {
	dir := studytest.Dir(t, studygen.Options{Seed: 1, Sessions: 2})
	for _, name := range []string{"queries.db3", "all_types_ros2.db3", "queries_rosbag2"} {
		t.Run(name, func(t *testing.T) {
			r, err := db3.Open(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			recordtest.CheckSummary(t, r)
		})
	}
}
