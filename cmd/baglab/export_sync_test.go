package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestExportSyncMatchesMessageFilters exports the matched sets of topics
// of a bag Debian's rosbag wrote (jittered stamps, late arrivals, drops,
// repeated stamps) and compares them, set by set, with the sets Debian's
// python3-message-filters synchronizers emit when fed the same bag in
// log-time order.
func TestExportSyncMatchesMessageFilters(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "msgfilters", "ros-msgs")
	dir := filepath.Join(testenv.Root(t), "analysis", "timesync", "testdata")
	bag := filepath.Join(t.TempDir(), "sync.bag")
	if out, err := exec.Command(testenv.Python, filepath.Join(dir, "syncbag.py"), bag).CombinedOutput(); err != nil {
		t.Fatalf("syncbag.py: %v\n%s", err, out)
	}
	for _, c := range []struct {
		policy string
		queue  int
		slop   string
		slopNs int64
		topics []string
	}{
		{"approximate", 10, "20ms", 20e6, []string{"/a", "/b", "/c"}},
		{"approximate", 3, "50ms", 50e6, []string{"/c", "/a"}},
		{"approximate", 10, "5ms", 5e6, []string{"/b", "/d", "/a"}},
		{"approximate", 1, "30ms", 30e6, []string{"/a", "/b"}},
		{"exact", 10, "", 0, []string{"/b", "/d"}},
		{"exact", 2, "", 0, []string{"/d", "/b"}},
	} {
		name := fmt.Sprintf("%s-q%d-%s-%s", c.policy, c.queue, c.slop, strings.Join(c.topics, ""))
		t.Run(name, func(t *testing.T) {
			args := []string{filepath.Join(dir, "syncpeer.py"), bag, c.policy, fmt.Sprint(c.queue), fmt.Sprint(c.slopNs)}
			out, err := exec.Command(testenv.Python, append(args, c.topics...)...).Output()
			if err != nil {
				t.Fatalf("syncpeer.py: %v", err)
			}
			var want [][]int64
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			for sc.Scan() {
				var set []int64
				if err := json.Unmarshal(sc.Bytes(), &set); err != nil {
					t.Fatal(err)
				}
				want = append(want, set)
			}
			if len(want) < 50 {
				t.Fatalf("message_filters matched only %d sets", len(want))
			}
			outDir := filepath.Join(t.TempDir(), "out")
			cli := []string{"export", bag, "--sync", strings.Join(c.topics, ","), "--sync-policy", c.policy,
				"--sync-queue", fmt.Sprint(c.queue), "--out", outDir, "--format", "csv", "--time-format", "ns"}
			if c.slop != "" {
				cli = append(cli, "--slop", c.slop)
			}
			if _, errs, code := run(t, cli...); code != 0 {
				t.Fatalf("export --sync: exit %d: %s", code, errs)
			}
			got := syncStamps(t, filepath.Join(outDir, "synced.csv"), c.topics)
			if len(got) != len(want) {
				t.Errorf("%d sets, message_filters %d", len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
					t.Fatalf("set %d: %v, message_filters %v", i, got[i], want[i])
				}
			}
		})
	}
}

// syncStamps reads the header stamps of each topic of the sets in a CSV
// export --sync wrote with --time-format ns.
func syncStamps(t *testing.T, path string, topics []string) [][]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var sets [][]int64
	for _, r := range recs[1:] {
		var set []int64
		for _, topic := range topics {
			i, ok := col[topic+".header.stamp"]
			if !ok {
				t.Fatalf("no column %s.header.stamp in %v", topic, recs[0])
			}
			var ns int64
			fmt.Sscan(r[i], &ns)
			set = append(set, ns)
		}
		sets = append(sets, set)
	}
	return sets
}

func TestExportSyncUsage(t *testing.T) {
	out := t.TempDir()
	for _, args := range [][]string{
		{"export", "x.bag", "--out", out, "--sync", "/a"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/b"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/b", "--slop", "1ms", "--sync-policy", "exact"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/b", "--slop", "1ms", "--sync-policy", "nearest"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/a", "--slop", "1ms"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/b", "--slop", "1ms", "--topics", "/c"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/b", "--slop", "1ms", "--sync-queue", "0"},
		{"export", "x.bag", "--out", out, "--sync", "/a,/b", "--slop", "1ms", "--tf-frame", "map"}, // was ignored
	} {
		if _, errs, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errs)
		}
	}
}

// TestExportTFFrameDataset: the manifest of a dataset exported with
// --tf-frame says so, and a run without it (whose rows would lack the
// in_<frame> field) is refused like a run with another selection.
func TestExportTFFrameDataset(t *testing.T) {
	bag := filepath.Join(t.TempDir(), "tf.bag")
	if err := studygen.WriteTF(bag, studygen.TFOptions{Seconds: 3, CloudBytes: 1200}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ds")
	if _, stderr, code := run(t, "export", bag, "--out", out, "--partition-by", "date", "--topics", "/pose", "--tf-frame", "map"); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	rows, err := export.ReadManifest(out)
	if err != nil || len(rows) != 1 || rows[0].Selection != "--topics /pose --tf-frame map" {
		t.Fatalf("manifest: %+v, %v", rows, err)
	}
	if _, stderr, code := run(t, "export", bag, "--out", out, "--partition-by", "date", "--topics", "/pose"); code != exitOutput || !strings.Contains(stderr, "--tf-frame map") {
		t.Errorf("rerun without --tf-frame: exit %d: %s", code, stderr)
	}
}

// TestExportSyncParquet reads the Parquet --sync writes with arrow-go:
// one struct column per topic (named by the topic) beside the meta
// columns, one row per set, and the stamps of the sets the CSV holds.
func TestExportSyncParquet(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	dir := filepath.Join(testenv.Root(t), "analysis", "timesync", "testdata")
	bag := filepath.Join(t.TempDir(), "sync.bag")
	if out, err := exec.Command(testenv.Python, filepath.Join(dir, "syncbag.py"), bag).CombinedOutput(); err != nil {
		t.Fatalf("syncbag.py: %v\n%s", err, out)
	}
	topics := []string{"/a", "/b", "/c"}
	csvDir, pqDir := filepath.Join(t.TempDir(), "csv"), filepath.Join(t.TempDir(), "pq")
	if _, errs, code := run(t, "export", bag, "--sync", "/a,/b,/c", "--slop", "20ms", "--out", csvDir, "--format", "csv", "--time-format", "ns"); code != 0 {
		t.Fatalf("export --sync csv: exit %d: %s", code, errs)
	}
	if _, errs, code := run(t, "export", bag, "--sync", "/a,/b,/c", "--slop", "20ms", "--out", pqDir); code != 0 {
		t.Fatalf("export --sync parquet: exit %d: %s", code, errs)
	}
	want := syncStamps(t, filepath.Join(csvDir, "synced.csv"), topics)
	f, err := os.Open(filepath.Join(pqDir, "synced.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(t.Context(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if int(tbl.NumRows()) != len(want) {
		t.Fatalf("%d rows, the CSV %d", tbl.NumRows(), len(want))
	}
	for k, topic := range topics {
		idx := tbl.Schema().FieldIndices(topic)
		if len(idx) != 1 {
			t.Fatalf("no column %s: %v", topic, tbl.Schema())
		}
		row := 0
		for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
			st := chunk.(*array.Struct)
			hi, _ := st.DataType().(*arrow.StructType).FieldIdx("header")
			hdr := st.Field(hi).(*array.Struct)
			si, _ := hdr.DataType().(*arrow.StructType).FieldIdx("stamp")
			stamps := hdr.Field(si).(*array.Timestamp)
			for i := 0; i < stamps.Len(); i++ {
				if got := int64(stamps.Value(i)); got != want[row][k] {
					t.Fatalf("row %d %s.header.stamp %d, CSV %d", row, topic, got, want[row][k])
				}
				row++
			}
		}
	}
}
