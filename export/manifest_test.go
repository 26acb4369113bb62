package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// datasetInputs gives the corpus inputs files of their own (distinct
// contents) for their digests, and summaries of their messages.
func datasetInputs(t *testing.T, c *corpus) []DatasetInput {
	dir := t.TempDir()
	out := make([]DatasetInput, len(c.inputs))
	for i, in := range c.inputs {
		in.Path = filepath.Join(dir, fmt.Sprintf("run%d.bag", i))
		if err := os.WriteFile(in.Path, []byte(fmt.Sprintf("recording %d", i)), 0o666); err != nil {
			t.Fatal(err)
		}
		out[i] = DatasetInput{Input: in, Summary: summaryOf(c.msgs[i])}
	}
	return out
}

// summaryOf is the summary of a recording of msgs, as a reader gives it.
func summaryOf(msgs []*record.Message) *record.Summary {
	s := &record.Summary{Format: "bag", Topics: []record.TopicSummary{}}
	for _, m := range msgs {
		if s.MessageCount == 0 || m.LogTime < s.StartNs {
			s.StartNs = m.LogTime
		}
		s.EndNs = max(s.EndNs, m.LogTime)
		s.MessageCount++
		k := slices.IndexFunc(s.Topics, func(t record.TopicSummary) bool { return t.Topic == m.Channel.Topic })
		if k < 0 {
			k = len(s.Topics)
			s.Topics = append(s.Topics, record.TopicSummary{Topic: m.Channel.Topic, Type: m.Channel.Schema.Name, StartNs: m.LogTime})
		}
		t := &s.Topics[k]
		t.MessageCount++
		t.StartNs, t.EndNs = min(t.StartNs, m.LogTime), max(t.EndNs, m.LogTime)
	}
	slices.SortFunc(s.Topics, func(a, b record.TopicSummary) int { return strings.Compare(a.Topic, b.Topic) })
	return s
}

// TestExportDatasetResume interrupts a fleet export after its first input
// and runs it again: the first input is skipped, the others exported, and
// the directory is byte for byte what one uninterrupted run writes.
func TestExportDatasetResume(t *testing.T) {
	c := newCorpus(t, 3, 40)
	inputs := datasetInputs(t, c)
	opts := []Option{WithPartitionBy(PartitionDate), WithVersion("test")}

	whole := t.TempDir()
	rep, err := ExportDataset(context.Background(), whole, inputs, DatasetOptions{Jobs: 2}, opts...)
	if err != nil || rep.Exported != 3 || rep.Skipped != 0 {
		t.Fatalf("uninterrupted: %+v, %v", rep, err)
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cut := append([]DatasetInput(nil), inputs...)
	cut[1].Open = func() (Messages, error) { cancel(); return nil, ctx.Err() }
	if _, err := ExportDataset(ctx, dir, cut, DatasetOptions{Jobs: 1}, opts...); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted export: %v", err)
	}
	rows, err := ReadManifest(dir)
	if err != nil || len(rows) != 1 || rows[0].Path != inputs[0].Path {
		t.Fatalf("after the interruption the manifest holds %v (%v), want %s only", rows, err, inputs[0].Path)
	}
	var notes []string
	note := func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }
	rep, err = ExportDataset(context.Background(), dir, inputs, DatasetOptions{Jobs: 2, Note: note}, opts...)
	if err != nil || rep.Exported != 2 || rep.Skipped != 1 {
		t.Fatalf("resumed: %+v, %v", rep, err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "run0.bag: already in") {
		t.Errorf("notes %q", notes)
	}
	got, want := tree(t, dir), tree(t, whole)
	if len(got) != len(want) {
		t.Errorf("%d files after resuming, %d from one run", len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs from the uninterrupted run's", name)
		}
	}

	// Again: nothing changes.
	rep, err = ExportDataset(context.Background(), dir, inputs, DatasetOptions{Jobs: 2}, opts...)
	if err != nil || rep.Exported != 0 || rep.Skipped != 3 {
		t.Fatalf("third run: %+v, %v", rep, err)
	}
	if !reflect.DeepEqual(tree(t, dir), want) {
		t.Error("a run with nothing to do changed the directory")
	}
}

// TestManifestRows: one row per input with its digest and its own parts
// named by content hash; rows read back as written.
func TestManifestRows(t *testing.T) {
	c := newCorpus(t, 2, 12)
	inputs := datasetInputs(t, c)
	dir := t.TempDir()
	if _, err := ExportDataset(context.Background(), dir, inputs, DatasetOptions{Jobs: 2},
		WithPartitionBy(PartitionSource), WithVersion("test")); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadManifest(dir)
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	for i, r := range rows {
		if r.Path != inputs[i].Path || r.Size != int64(len("recording 0")) || len(r.SHA256) != 64 || r.PartitionBy != "source" ||
			r.OutputFormat != "parquet" || r.BaglabVersion != "test" || r.Format != "bag" || len(r.Topics) != len(corpusTopics) ||
			r.MessageCount != 12 || r.Recording != nil {
			t.Errorf("row %d: %+v", i, r)
		}
		if len(r.Parts) != len(corpusTopics) {
			t.Errorf("row %d: %d parts, want one per topic: %v", i, len(r.Parts), r.Parts)
		}
		for _, p := range r.Parts {
			if !strings.HasSuffix(p, "/part-"+r.SHA256[:16]+".parquet") || !strings.Contains(p, "/source=run") {
				t.Errorf("row %d: part %s", i, p)
			}
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Errorf("row %d: %v", i, err)
			}
		}
		again, err := ReadManifestRow(dir, r.SHA256)
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Errorf("ReadManifestRow: %+v, %v", again, err)
		}
	}
	if _, err := ReadManifestRow(dir, strings.Repeat("0", 64)); !errors.Is(err, ErrNoManifestRow) {
		t.Errorf("missing row: %v", err)
	}

	res := duckdb(t, "SELECT path, size, sha256, format, epoch_ns(start_time) AS s, message_count, topics[1].topic AS topic, "+
		"topics[1].message_count AS n, len(parts) AS parts, partition_by, baglab_version, manifest_version FROM read_parquet("+
		sqlString(filepath.Join(dir, ManifestDir, "*"+ManifestExt))+") ORDER BY path")
	if res[0].Error != "" || len(res[0].Rows) != 2 {
		t.Fatalf("duckdb: %+v", res[0])
	}
	for i, r := range res[0].Rows {
		got := fmt.Sprintln(r["path"], r["size"], r["sha256"], r["format"], r["s"], r["message_count"], r["topic"], r["n"], r["parts"], r["partition_by"], r["baglab_version"], r["manifest_version"])
		s := inputs[i].Summary
		want := fmt.Sprintln(rows[i].Path, rows[i].Size, rows[i].SHA256, "bag", s.StartNs, 12, s.Topics[0].Topic, 2, len(corpusTopics), "source", "test", ManifestVersion)
		if got != want {
			t.Errorf("duckdb row %d: %s, want %s", i, got, want)
		}
	}
}

// TestExportDatasetRefusals: a directory with other files, another
// layout, or an unpartitioned export into a non-empty directory.
func TestExportDatasetRefusals(t *testing.T) {
	c := newCorpus(t, 1, 6)
	inputs := datasetInputs(t, c)
	ctx := context.Background()
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	date := WithPartitionBy(PartitionDate)
	if _, err := ExportDataset(ctx, other, inputs, DatasetOptions{}, date); !errors.Is(err, ErrNotDataset) {
		t.Errorf("foreign directory: %v", err)
	}
	if _, err := ExportDataset(ctx, other, inputs, DatasetOptions{}); !errors.Is(err, ErrAppend) {
		t.Errorf("unpartitioned into a foreign directory: %v", err)
	}
	if rep, err := ExportDataset(ctx, other, inputs, DatasetOptions{Force: true}, date); err != nil || rep.Exported != 1 {
		t.Errorf("--force: %+v, %v", rep, err)
	}
	if _, err := ExportDataset(ctx, other, inputs, DatasetOptions{}, WithPartitionBy(PartitionSource)); !errors.Is(err, ErrLayout) {
		t.Errorf("another partitioning: %v", err)
	}
	if _, err := ExportDataset(ctx, other, inputs, DatasetOptions{}); !errors.Is(err, ErrLayout) {
		t.Errorf("unpartitioned into a dataset: %v", err)
	}
	plain := t.TempDir()
	if _, err := ExportDataset(ctx, plain, inputs, DatasetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plain, "_baglab")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unpartitioned export wrote a manifest: %v", err)
	}
	if _, err := ExportDataset(ctx, plain, inputs, DatasetOptions{}); !errors.Is(err, ErrAppend) {
		t.Errorf("second unpartitioned run: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "new")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ExportDataset(cctx, empty, inputs, DatasetOptions{}, date); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "_baglab")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a canceled first run left its manifest folder: %v", err)
	}
}

// TestExportDatasetCommitFailure: an input whose part file cannot be put
// in place (a directory stands at its path) fails the export with that
// error, even though its commit runs beside the next inputs; it is not
// recorded, no input is recorded twice, and a rerun once the path is free
// exports exactly what is missing.
func TestExportDatasetCommitFailure(t *testing.T) {
	c := newCorpus(t, 4, 20)
	inputs := datasetInputs(t, c)
	opts := []Option{WithPartitionBy(PartitionDate), WithVersion("test")}
	whole := t.TempDir()
	if _, err := ExportDataset(context.Background(), whole, inputs, DatasetOptions{Jobs: 1}, opts...); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("recording 1")) // datasetInputs' content of input 1
	part := hex.EncodeToString(sum[:])[:16]
	dir := t.TempDir()
	var blockers []string
	for name := range tree(t, whole) {
		if strings.Contains(name, "part-"+part) {
			blockers = append(blockers, filepath.Join(dir, filepath.FromSlash(name)))
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(name), "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(blockers) == 0 {
		t.Fatalf("no part file of input 1 (%s) in %v", part, sortedKeys(tree(t, whole)))
	}
	_, err := ExportDataset(context.Background(), dir, inputs, DatasetOptions{Jobs: 1, Force: true}, opts...)
	if err == nil || !strings.Contains(err.Error(), part) {
		t.Fatalf("export with a blocked part file: %v, want an error naming %s", err, part)
	}
	rows, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Path == inputs[1].Path || seen[r.Path] {
			t.Errorf("recorded %s (twice: %v)", r.Path, seen[r.Path])
		}
		seen[r.Path] = true
	}
	if !seen[inputs[0].Path] {
		t.Errorf("input 0, committed before the failure, is not recorded: %v", rows)
	}
	for _, b := range blockers {
		if err := os.RemoveAll(b); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := ExportDataset(context.Background(), dir, inputs, DatasetOptions{Jobs: 2}, opts...)
	if err != nil || rep.Exported != 4-len(rows) || rep.Skipped != len(rows) {
		t.Fatalf("rerun: %+v, %v; want %d exported, %d skipped", rep, err, 4-len(rows), len(rows))
	}
	got, want := tree(t, dir), tree(t, whole)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs from the uninterrupted run's", name)
		}
	}
}
