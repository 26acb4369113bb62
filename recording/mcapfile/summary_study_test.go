package mcapfile_test

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/recording/mcapfile"
)

// TestSummaryStudy compares the Summary of every MCAP of a generated study
// (three compressions, ROS 1 and ROS 2 profiles, every message type), read
// through the index and by a scan, with what iterating all its messages
// gives: per topic the count, the first and last log times and the
// frequency from them.
func TestSummaryStudy(t *testing.T) {
	dir := study(t)
	for _, name := range []string{"study.mcap", "study-lz4.mcap", "study-none.mcap", "queries.mcap", "all_types.mcap", "all_types_ros2.mcap"} {
		for _, opts := range [][]mcapfile.Option{nil, {record.WithoutIndex()}} {
			t.Run(name, func(t *testing.T) {
				r, err := mcapfile.Open(filepath.Join(dir, name), opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if ok, why := r.Indexed(); ok != (opts == nil) {
					t.Fatalf("Indexed() = %v (%s)", ok, why)
				}
				recordtest.CheckSummary(t, r)
			})
		}
	}
}
