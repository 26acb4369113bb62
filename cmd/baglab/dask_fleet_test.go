package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// fleetStudies writes n generated studies and returns a recording list
// over them (ROS1 bags, MCAP files, ROS2 db3) with absolute paths.
func fleetStudies(t *testing.T, n int) []string {
	t.Helper()
	root := t.TempDir()
	var files []string
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("robot%d", i))
		s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: uint64(100 + i), Sessions: 4})
		if err == nil {
			_, err = studygen.WriteAll(dir, s)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"study-lz4.mcap", "queries.db3"} {
			files = append(files, filepath.Join(dir, name))
		}
	}
	return files
}

// baglabOnPath links the test binary as "baglab" in a new directory; with
// exampleMainEnv set it runs as the CLI.
func baglabOnPath(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "baglab")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestDaskFleet runs examples/dask_fleet.py on a Dask LocalCluster of two
// worker processes (Debian python3-distributed) over two generated
// studies (four recordings, two tasks of each kind): the dataset the workers export into one directory equals a
// single-process export (the same files byte for byte, and per topic the
// same row count and rows as DuckDB reads them), and the merged partials
// equal one analyze over every file.
func TestDaskFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a Dask cluster")
	}
	testenv.RequirePeer(t, "dask", "duckdb")
	files := fleetStudies(t, 2)
	bin := baglabOnPath(t)
	work := t.TempDir()
	ds, result := filepath.Join(work, "dataset"), filepath.Join(work, "result.json")

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	args := []string{"../../examples/dask_fleet.py", "--baglab", bin, "--out", ds, "--partials", filepath.Join(work, "partials"),
		"--result", result, "--workers", "2", "--batch", "2", "--local-dir", filepath.Join(work, "scratch")}
	cmd := exec.CommandContext(ctx, testenv.Python, append(args, files...)...)
	cmd.Env = append(os.Environ(), exampleMainEnv+"=1", "HOME="+work, "DASK_TEMPORARY_DIRECTORY="+filepath.Join(work, "scratch"))
	// The cluster's processes are in a process group of their own; the
	// test stops that group, and only it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dask_fleet.py: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("%d recordings in %d tasks", len(files), (len(files)+1)/2)) {
		t.Errorf("dask_fleet.py said: %s", out)
	}

	// One process, every file.
	ref := filepath.Join(work, "reference")
	if _, stderr, code := run(t, append([]string{"export", "--out", ref, "--partition-by", "date", "--jobs", "2"}, files...)...); code != 0 {
		t.Fatalf("single-process export: exit %d: %s", code, stderr)
	}
	want, stderr, code := run(t, append([]string{"analyze", "all", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("single-process analyze: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("merged analysis differs from one analyze over all files:\n%.300s\nwant\n%.300s", got, want)
	}
	assertSameTree(t, fileTree(t, ref), fileTree(t, ds))

	// DuckDB: per topic, the row count and a digest of every row in order.
	rows := duckdbQuery(t, "SELECT DISTINCT t.topic FROM read_parquet('"+filepath.Join(ref, "_baglab", "files", "*.pq")+"') m, unnest(m.topics) u(t) ORDER BY 1")
	var topics []string
	for _, r := range rows {
		topics = append(topics, fmt.Sprint(r["topic"]))
	}
	if len(topics) < 5 {
		t.Fatalf("manifest topics %v", topics)
	}
	checked := 0
	for _, topic := range topics {
		glob := "topic=" + hiveEscape(topic)
		if _, err := os.Stat(filepath.Join(ref, glob)); err != nil {
			continue // a topic without rows in the selection
		}
		var digests []string
		for _, dir := range []string{ref, ds} {
			r := duckdbQuery(t, "SELECT count(*) AS n, md5(string_agg(CAST(t AS VARCHAR), '|' ORDER BY source_file, sequence)) AS h FROM read_parquet('"+
				filepath.Join(dir, glob, "*", "*.parquet")+"', hive_partitioning = true, union_by_name = true) t")
			digests = append(digests, fmt.Sprint(r[0]["n"], " ", r[0]["h"]))
		}
		if digests[0] != digests[1] || strings.HasPrefix(digests[0], "0 ") {
			t.Errorf("%s: single process %s, Dask %s", topic, digests[0], digests[1])
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d topics compared", checked)
	}

	// Again: every input is in the dataset, nothing is rewritten.
	before := fileTree(t, ds)
	if _, stderr, code := run(t, append([]string{"export", "--out", ds, "--partition-by", "date"}, files...)...); code != 0 || !strings.Contains(stderr, "nothing to export") {
		t.Errorf("export again: exit %d: %s", code, stderr)
	}
	assertSameTree(t, before, fileTree(t, ds))
}

// hiveEscape escapes a topic as export's partition folders do.
func hiveEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-~.", c) >= 0 && (c != '.' || i > 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
