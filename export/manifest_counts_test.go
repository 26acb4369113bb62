package export

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

var update = flag.Bool("update", false, "rewrite the golden manifest rows in testdata/manifest")

// sampleInputs are the sample recordings exported whole in
// TestManifestWholeGolden, relative to the package directory so that the
// rows' paths are the same on every machine.
var sampleInputs = []string{
	"../testdata/sample/study.bag",
	"../testdata/sample/study.mcap",
	"../testdata/sample/broken/study.bag.active",
	"../testdata/sample/queries.db3",
	"../testdata/sample/queries_rosbag2",
	"../testdata/sample/all_types.bag",
	"../testdata/sample/all_types.mcap",
	"../testdata/sample/all_types_ros2.mcap",
	"../testdata/sample/all_types_ros2.db3",
}

// exportSamples opens paths with io and exports them into a new
// date-partitioned dataset, which it returns.
func exportSamples(t *testing.T, paths []string, io recording.InputOptions, opts ...Option) string {
	t.Helper()
	in, err := recording.OpenInputs(paths, io)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dir := t.TempDir()
	opts = append([]Option{WithPartitionBy(PartitionDate), WithVersion("test")}, opts...)
	rep, err := ExportDataset(context.Background(), dir, inputsDataset(context.Background(), in),
		DatasetOptions{Jobs: 2}, opts...)
	if err != nil || rep.Exported != len(paths) {
		t.Fatalf("export: %+v, %v", rep, err)
	}
	return dir
}

// TestManifestWholeGolden: the manifest rows of whole recordings (no
// selection, nothing skipped) are byte for byte those written before the
// rows counted the exported messages (testdata/manifest/whole, written by
// baglab at 661ff73 with -update), when the recording's summary was the
// only source of the counts and times. The rows of the three sample .db3
// recordings were written again when internal/sqlitefile came to write
// them: their sha256 and the part names made from it changed, nothing
// else.
func TestManifestWholeGolden(t *testing.T) {
	dir := exportSamples(t, sampleInputs, recording.InputOptions{})
	golden := filepath.Join("testdata", "manifest", "whole")
	got, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(ManifestDir), "*"+ManifestExt))
	if err != nil || len(got) != len(sampleInputs) {
		t.Fatalf("%d manifest rows (%v), want %d", len(got), err, len(sampleInputs))
	}
	if *update {
		os.RemoveAll(golden)
		if err := os.MkdirAll(golden, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			b, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(golden, filepath.Base(g)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, err := filepath.Glob(filepath.Join(golden, "*"+ManifestExt))
	if err != nil || len(want) != len(sampleInputs) {
		t.Fatalf("%d golden rows (%v), want %d; run with -update", len(want), err, len(sampleInputs))
	}
	names := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = filepath.Base(p)
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(names(got), names(want)) {
		t.Fatalf("rows %v, golden %v", names(got), names(want))
	}
	for _, g := range got {
		b, _ := os.ReadFile(g)
		w, _ := os.ReadFile(filepath.Join(golden, filepath.Base(g)))
		if bytes.Equal(b, w) {
			continue
		}
		gr, err1 := readManifestFile(g)
		wr, err2 := readManifestFile(filepath.Join(golden, filepath.Base(g)))
		gj, _ := json.Marshal(gr)
		wj, _ := json.Marshal(wr)
		t.Errorf("row %s differs from the golden row (%v, %v):\n got %s\nwant %s", filepath.Base(g), err1, err2, gj, wj)
	}
}

// manifestVsDataset has DuckDB count the rows of the partitioned dataset
// dir per input and topic (first and last log time too, in microseconds
// as DuckDB reads them) and read the same from dir's manifest, and fails
// the test where they differ. It returns the manifest's rows per input
// and topic ("path topic n start end") and DuckDB's view of the footers'
// JSON (path, selection, recording.message_count).
func manifestVsDataset(t *testing.T, dir string) (perTopic, footers []string) {
	t.Helper()
	data := "read_parquet(" + sqlString(filepath.Join(dir, "topic=*", "*", "*.parquet")) + ", hive_partitioning = true, union_by_name = true)"
	manifest := sqlString(filepath.Join(dir, filepath.FromSlash(ManifestDir), "*"+ManifestExt))
	res := duckdb(t,
		"SELECT source_file AS path, topic, count(*) AS n, epoch_us(min(log_time)) AS s, epoch_us(max(log_time)) AS e FROM "+data+
			" GROUP BY ALL ORDER BY path, topic",
		"SELECT m.path AS path, t.topic AS topic, t.message_count AS n, epoch_us(t.start_time) AS s, epoch_us(t.end_time) AS e FROM read_parquet("+manifest+
			") m, unnest(m.topics) AS u(t) ORDER BY path, topic",
		"SELECT source_file AS path, count(*) AS n, epoch_us(min(log_time)) AS s, epoch_us(max(log_time)) AS e FROM "+data+
			" GROUP BY ALL ORDER BY path",
		"SELECT path, message_count AS n, epoch_us(start_time) AS s, epoch_us(end_time) AS e FROM read_parquet("+manifest+") ORDER BY path",
		"SELECT json_extract_string(decode(value), '$.path') AS path, json_extract_string(decode(value), '$.selection') AS sel, "+
			"json_extract(decode(value), '$.recording.message_count')::BIGINT AS rec FROM parquet_kv_metadata("+manifest+
			") WHERE decode(key) = 'baglab.manifest_row' ORDER BY path")
	for _, r := range res {
		if r.Error != "" {
			t.Fatalf("duckdb: %s", r.Error)
		}
	}
	lines := func(rows []map[string]any, cols ...string) []string {
		var out []string
		for _, r := range rows {
			var f []string
			for _, c := range cols {
				f = append(f, fmt.Sprint(r[c]))
			}
			out = append(out, strings.Join(f, " "))
		}
		return out
	}
	for k, what := range []string{"per topic", "per input"} {
		cols := []string{"path", "topic", "n", "s", "e"}
		if k == 1 {
			cols = []string{"path", "n", "s", "e"}
		}
		got, want := lines(res[2*k+1].Rows, cols...), lines(res[2*k].Rows, cols...)
		if !slices.Equal(got, want) {
			t.Errorf("manifest %s (%s):\n%s\nthe dataset's rows:\n%s", what, strings.Join(cols, " "), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	return lines(res[1].Rows, "path", "topic", "n", "s", "e"), lines(res[4].Rows, "path", "sel", "rec")
}

// TestManifestSelectionCounts exports three recordings with --topics and
// --start into a date-partitioned dataset and has DuckDB check that the
// manifest's counts and times per input and topic are those of the
// dataset's rows, not the recordings' totals (343, 343 and 40 messages),
// which the footers keep under "recording".
func TestManifestSelectionCounts(t *testing.T) {
	paths := []string{"../testdata/sample/study.bag", "../testdata/sample/study.mcap", "../testdata/sample/queries.db3"}
	sel := recording.Selection{Topics: []string{"/agent_monitor/factList", "/interactive_world/placement_sets", "/remap/query/_service_event"}, Start: "+10s"}
	in, err := recording.OpenInputs(paths, recording.InputOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	inputs := inputsDataset(context.Background(), in)
	for i := range inputs {
		inputs[i].Selection = "--topics " + strings.Join(sel.Topics, ",") + " --start " + sel.Start
	}
	dir := t.TempDir()
	if _, err := ExportDataset(context.Background(), dir, inputs, DatasetOptions{Jobs: 2},
		WithPartitionBy(PartitionDate), WithVersion("test")); err != nil {
		t.Fatal(err)
	}
	perTopic, footers := manifestVsDataset(t, dir)
	t.Logf("manifest rows per input and topic:\n%s\nfooters:\n%s", strings.Join(perTopic, "\n"), strings.Join(footers, "\n"))
	if len(perTopic) != 5 { // two study topics in the bag and the MCAP, the queries' topic
		t.Errorf("%d manifest topics, want 5", len(perTopic))
	}
	want := []string{paths[2] + " " + inputs[0].Selection + " 40", paths[0] + " " + inputs[0].Selection + " 343", paths[1] + " " + inputs[0].Selection + " 343"}
	if !slices.Equal(footers, want) {
		t.Errorf("footers (path selection recording.message_count):\n%s\nwant\n%s", strings.Join(footers, "\n"), strings.Join(want, "\n"))
	}
	rows, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		s := in.File(slices.Index(paths, r.Path)).Summary()
		if r.Recording == nil || r.Recording.MessageCount != int64(s.MessageCount) || r.Recording.StartNs != s.StartNs ||
			r.Recording.EndNs != s.EndNs || len(r.Recording.Topics) != len(s.Topics) {
			t.Errorf("row %d (%s): recording %+v, want the summary's %d messages, %d..%d, %d topics", i, r.Path, r.Recording,
				s.MessageCount, s.StartNs, s.EndNs, len(s.Topics))
		}
		if r.MessageCount == 0 || r.MessageCount >= int64(s.MessageCount) || r.StartNs <= s.StartNs {
			t.Errorf("row %d (%s): %d messages from %d; the selection takes fewer than the recording's %d, from after %d",
				i, r.Path, r.MessageCount, r.StartNs, s.MessageCount, s.StartNs)
		}
	}
}

// TestManifestSkipBadCounts exports an MCAP file with a damaged chunk with
// --skip-bad: the manifest counts the rows exported, not the 343 messages
// of the file's summary.
func TestManifestSkipBadCounts(t *testing.T) {
	var skipped int
	dir := exportSamples(t, []string{"../testdata/sample/broken/study-crc.mcap"},
		recording.InputOptions{SkipBad: true, OnSkip: func(error) { skipped++ }}, WithSkipBad(func(error) { skipped++ }))
	perTopic, footers := manifestVsDataset(t, dir)
	rows, err := ReadManifest(dir)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	r := rows[0]
	t.Logf("%d skipped; %d messages exported; manifest per topic:\n%s\nfooters: %s", skipped, r.MessageCount, strings.Join(perTopic, "\n"), footers)
	if skipped == 0 || r.MessageCount == 0 || r.MessageCount >= 343 || r.Recording == nil || r.Recording.MessageCount != 343 || r.Selection != "" {
		t.Errorf("%d skipped; row: %d messages, recording %+v, selection %q; want fewer than 343, the recording's 343, no selection",
			skipped, r.MessageCount, r.Recording, r.Selection)
	}
}

// TestManifestRowExported: a message that does not decode, skipped, is
// not counted; the row's topics are those with rows, whatever the
// summary lists (a topic of the summary without messages, one the
// summary does not know: /markers); the recording's totals are kept as
// the summary gives them.
func TestManifestRowExported(t *testing.T) {
	c := newCorpus(t, 1, 24) // 4 messages on each of 6 topics
	inputs := datasetInputs(t, c)
	for _, m := range c.msgs[0] {
		m.Source = inputs[0].Path // the source_file column, as a recording's reader sets it
	}
	bad := c.msgs[0][2] // the first /chatter message
	bad.Data = bad.Data[:2]
	summary := inputs[0].Summary
	summary.Topics = append(summary.Topics, record.TopicSummary{Topic: "/empty", Type: "std_msgs/Empty"})
	summary.Topics = slices.DeleteFunc(summary.Topics, func(t record.TopicSummary) bool { return t.Topic == "/markers" })
	summary.MessageCount -= 4
	dir := t.TempDir()
	var skipped []error
	if _, err := ExportDataset(context.Background(), dir, inputs, DatasetOptions{},
		WithPartitionBy(PartitionDate), WithVersion("test"), WithSkipBad(func(err error) { skipped = append(skipped, err) })); err != nil {
		t.Fatal(err)
	}
	perTopic, _ := manifestVsDataset(t, dir)
	rows, err := ReadManifest(dir)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	r := rows[0]
	if len(skipped) != 1 || r.MessageCount != 23 || r.StartNs != c.msgs[0][0].LogTime || r.EndNs != c.msgs[0][23].LogTime || len(r.Topics) != len(corpusTopics) {
		t.Errorf("skipped %v; row %d messages %d..%d, %d topics; want 23 messages %d..%d, %d topics\n%s", skipped, r.MessageCount, r.StartNs, r.EndNs,
			len(r.Topics), c.msgs[0][0].LogTime, c.msgs[0][23].LogTime, len(corpusTopics), strings.Join(perTopic, "\n"))
	}
	for _, tp := range r.Topics {
		want := int64(4)
		if tp.Topic == "/chatter" {
			want = 3
		}
		k := slices.IndexFunc(corpusTopics, func(x struct{ topic, typ string }) bool { return x.topic == tp.Topic })
		if k < 0 || tp.MessageCount != want || tp.Type != corpusTopics[k].typ {
			t.Errorf("topic %+v, want one of the corpus with %d messages", tp, want)
		}
	}
	rec := &ManifestRecording{StartNs: summary.StartNs, EndNs: summary.EndNs, MessageCount: int64(summary.MessageCount), Topics: []ManifestTopic{}}
	for _, st := range summary.Topics {
		rec.Topics = append(rec.Topics, ManifestTopic{Topic: st.Topic, Type: st.Type, MessageCount: int64(st.MessageCount), StartNs: st.StartNs, EndNs: st.EndNs})
	}
	got, _ := json.Marshal(r.Recording)
	if want, _ := json.Marshal(rec); string(got) != string(want) {
		t.Errorf("recording %s, want %s", got, want)
	}
}

// inputsDataset are the recordings of in as ExportDataset's inputs, as
// baglab export makes them: each opened (its selected messages with their
// decoders, recording.File.Decoded) only when the export reaches it.
func inputsDataset(ctx context.Context, in *recording.Inputs) []DatasetInput {
	ds := make([]DatasetInput, in.Len())
	for i := range ds {
		f := in.File(i)
		open := func() (Messages, error) { return f.Decoded(ctx) }
		ds[i] = DatasetInput{Input: Input{Path: f.Path(), Open: open}, Summary: f.Summary()}
	}
	return ds
}
