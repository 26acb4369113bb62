package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestHiveGlobQuery: the first query people write over a partitioned
// export, read_parquet('DIR/**/*.parquet', hive_partitioning = true),
// reads the data and only the data: DuckDB counts each topic of each
// input as info does, and polars' scanParquet of the same glob reads a
// one-topic dataset. Both stopped on the manifest rows before
// (DuckDB: "Hive partition mismatch"; polars: no column "topic").
func TestHiveGlobQuery(t *testing.T) {
	files := []string{studyFile("study.bag"), studyFile("study.mcap")}
	dir := filepath.Join(t.TempDir(), "ds")
	if _, stderr, code := run(t, append([]string{"export", "-q", "--out", dir, "--partition-by", "source"}, files...)...); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	want := map[string]float64{}
	for _, f := range files {
		stdout, stderr, code := run(t, "info", "--json", f)
		if code != 0 {
			t.Fatalf("info: exit %d: %s", code, stderr)
		}
		var d struct {
			Topics []struct {
				Topic        string  `json:"topic"`
				MessageCount float64 `json:"message_count"`
			} `json:"topics"`
		}
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatal(err)
		}
		for _, tp := range d.Topics {
			want[tp.Topic+" "+filepath.Base(f)] = tp.MessageCount
		}
	}
	rows := duckdbQuery(t, "SELECT topic, source, count(*) AS n FROM read_parquet("+
		"'"+filepath.Join(dir, "**", "*.parquet")+"', hive_partitioning = true, union_by_name = true) GROUP BY ALL")
	got := map[string]float64{}
	for _, r := range rows {
		n, _ := r["n"].(float64)
		if s, ok := r["n"].(string); ok {
			fmt.Sscan(s, &n)
		}
		got[fmt.Sprint(r["topic"], " ", r["source"])] = n
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("DuckDB counts per topic and source:\n got %v\nwant %v", got, want)
	}

	testenv.RequirePeer(t, "polars")
	one := filepath.Join(t.TempDir(), "one")
	if _, stderr, code := run(t, "export", "-q", "--out", one, "--partition-by", "source", "--topics", "/lama/objects", files[0]); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	out, err := exec.Command("node", "../../testdata/polars/scan.cjs", filepath.Join(one, "**", "*.parquet")).Output()
	if err != nil {
		t.Fatalf("polars: %v %s", err, out)
	}
	var pr struct {
		Rows []struct {
			Topic, Source string
			N             float64
		}
		Error string
	}
	if err := json.Unmarshal(out, &pr); err != nil || pr.Error != "" || len(pr.Rows) != 1 ||
		pr.Rows[0].Topic != "/lama/objects" || pr.Rows[0].Source != "study.bag" || pr.Rows[0].N != want["/lama/objects study.bag"] {
		t.Errorf("polars scanParquet: %s (%v), want %v rows of /lama/objects from study.bag", out, err, want["/lama/objects study.bag"])
	}
}
