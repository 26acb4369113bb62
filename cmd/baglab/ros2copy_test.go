package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestFilterAndMergeToROS2: filter and merge write rosbag2 folders with
// --to ros2 as convert does, so that a ROS 2 recording filtered or merged
// stays one. rosbag.js's example.bag is filtered to /tf and /rosout before
// and from 5 s past its start (MCAP, sqlite3), and the two are merged
// again (MCAP): the npm peer reads, per topic, the counts Debian's rosbag
// reads in the input, the first part all before the second.
func TestFilterAndMergeToROS2(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers", "rosbag")
	in := testenv.Fixtures(t, "rosbag-js", "example.bag")
	all := rosbagTopicCounts(t, in)
	want := map[string]int{"/tf": all["/tf"], "/rosout": all["/rosout"]}
	if want["/tf"] == 0 || want["/rosout"] == 0 {
		t.Fatalf("rosbag reads %v", all)
	}
	dir := t.TempDir()
	// read returns the peer's per-topic counts and the first and last log times.
	read := func(path string) (map[string]int, int64, int64) {
		t.Helper()
		counts, first, last := map[string]int{}, int64(-1), int64(-1)
		for _, m := range ros2Peer(t, path)["messages"].([]any) {
			m := m.(map[string]any)
			counts[m["topic"].(string)]++
			ts, err := strconv.ParseInt(fmt.Sprint(m["log_time_ns"]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if first < 0 || ts < first {
				first = ts
			}
			last = max(last, ts)
		}
		return counts, first, last
	}
	before, from, merged := filepath.Join(dir, "before"), filepath.Join(dir, "from"), filepath.Join(dir, "merged")
	for _, args := range [][]string{
		{"filter", in, before, "--to", "ros2", "--topics", "/tf,/rosout", "--end", "+5s"},
		{"filter", in, from, "--to", "ros2", "--storage", "sqlite3", "--topics", "/tf,/rosout", "--start", "+5s"},
		{"merge", merged, before, from, "--to", "ros2"},
	} {
		if _, stderr, code := run(t, append(args, "-q")...); code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
	}
	a, _, lastA := read(before)
	b, firstB, _ := read(from)
	if lastA >= firstB || a["/tf"] == 0 || b["/tf"] == 0 {
		t.Errorf("before 5 s: %v up to %d; from 5 s: %v from %d", a, lastA, b, firstB)
	}
	if got, _, _ := read(merged); !reflect.DeepEqual(got, want) {
		t.Errorf("merged: the peer reads %v, rosbag reads %v in the input", got, want)
	}
}
