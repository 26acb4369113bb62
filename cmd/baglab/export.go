//go:build !baglab_lean

package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/digest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/remote"
)

type exportOptions struct {
	g     *globalOptions
	files []string
	// notedJSON are the JSON topics said not to be exported
	notedJSON    map[string]bool
	read         readFlags
	out          string
	format       string
	compression  string
	partitionBy  string
	arrays       string
	timeFormat   string
	jobs         int
	rowGroupSize int
	force        bool
	opts         []export.Option // set by options
	sync         syncFlags
	tfFrame      string
}

func newExportCmd(g *globalOptions) *cobra.Command {
	o := &exportOptions{g: g}
	cmd := &cobra.Command{
		Use:   "export FILE... --out DIR",
		Short: "Export every topic to Parquet or CSV, one dataset per topic",
		Long: `Export the messages of one or more recordings to one dataset per topic:
DIR/<topic path>.parquet ("/a/b" -> DIR/a/b.parquet), or .csv with --format csv.
Several input files append to the same per-topic file, in the order given.

Columns are the message fields (nested messages as structs, arrays as lists,
time as timestamp[ns, UTC], duration as nanoseconds, uint8[] as binary) plus
log_time, publish_time, sequence (as cat --fields sequence gives it) and
source_file.
Parquet files are zstd-compressed by default, with bounded row groups,
statistics, dictionary-encoded strings and key-value metadata (message type,
definition, MD5, encodings, source files, baglab version). The same inputs
give byte-identical files, whatever --jobs.

--partition-by source|date writes Hive-style folders instead, readable with
DuckDB's hive_partitioning or Spark:
  DIR/topic=<topic>/date=YYYY-MM-DD/part-<hash>.parquet
  DIR/topic=<topic>/source=<file name>/part-<hash>.parquet
(the topic percent-escaped: /a/b -> topic=%2Fa%2Fb; <hash> the first 16 hex
digits of the input's SHA-256, so each input's part files are its own).

DIR is a dataset: its manifest, DIR/_baglab/files/<sha256>.pq, holds one
row per input exported (path, size, sha256, container format, the first and
last log time and row count per topic of what it exported, baglab version,
options, selection, the files written).
Running the export again skips inputs whose content is there already and says
so; an interrupted export resumes where it stopped; many processes or
machines may export into one partitioned DIR at once. --force exports such
inputs again, replacing their files. A DIR that holds other files is refused
unless --force. Without --partition-by the per-topic files hold the rows of
one run and no manifest is kept: a DIR that holds files is refused (use
--partition-by for a dataset that grows, a new DIR, or --force to write over
it).

CSV has a header from the message definition (dot paths: pose.position.x);
--arrays chooses how arrays appear: json (one JSON cell), explode:PATH (one
row per element of that array) or first:N (columns a.0.x ... a.N-1.x).

--tf-frame F adds to every message with a std_msgs/Header and a
geometry_msgs Pose, Point or Transform, or the Vector3 of a Vector3Stamped or
Wrench (rotated only), arrays included (PoseArray, nav_msgs/Path), a field
in_F with the same values expressed in frame F (in_map.pose.position.x), from
the recordings' /tf and /tf_static as tf2 looks them up (see baglab tf), each
from the frame and at the stamp of the innermost header around it (a Path's
PoseStamped: its own); null (an empty CSV cell) where no transform exists.
With --arrays explode:PATH the mirror in_F.PATH explodes in step with PATH.

--sync /a,/b[,/c] writes instead one dataset, DIR/synced.parquet (or .csv),
one row per matched set, each topic's fields under the topic's name
(/a.header.stamp): the sets ROS's python message_filters
ApproximateTimeSynchronizer (--slop, --sync-queue) or, with --sync-policy
exact, TimeSynchronizer emits when fed the recordings in log-time order.
Every topic needs a std_msgs/Header.

Files are written under temporary names and renamed when the export
succeeds; on error or interrupt none are left.`,
		Example: `  baglab export demo/data/study.bag --out tables
  baglab export demo/data/study.bag demo/data/queries.mcap --out by-date --partition-by date --jobs 4
  baglab export demo/data/study.mcap --out csv --format csv --topics /interactive_world/placement_sets --arrays explode:placements
  baglab export demo/data/tf.bag --topics /pose --tf-frame map --out pose-in-map --format csv
  baglab export demo/data/tf.bag --sync /imu,/pose --slop 5ms --out synced`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			o.files = args
			url := o.out
			done, err := g.stageOutputs(cmd.Context(), stagedOutput{path: &o.out, dir: true, pull: []string{export.ManifestDir}})
			if err != nil {
				return err
			}
			defer func() { err = done(err) }()
			if o.opts, err = o.options(cmd); err != nil {
				return err
			}
			if remote.IsURL(url) && !o.force {
				if err := o.checkPrefix(cmd.Context(), url); err != nil {
					return err
				}
			}
			return runExport(cmd.Context(), o)
		},
	}
	o.read.addFlags(cmd)
	o.sync.addFlags(cmd)
	addTFFrameFlag(cmd, &o.tfFrame)
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "", "output directory (created if missing)")
	fl.StringVar(&o.format, "format", "parquet", "parquet or csv")
	fl.StringVar(&o.compression, "compression", "zstd", "Parquet compression: zstd, snappy, lz4 or none")
	fl.StringVar(&o.partitionBy, "partition-by", "none", "none, source or date (Hive-style folders)")
	fl.StringVar(&o.arrays, "arrays", "json", "CSV arrays: json, explode:PATH or first:N")
	fl.StringVar(&o.timeFormat, "time-format", "rfc3339", "CSV timestamps: rfc3339 or ns")
	fl.IntVarP(&o.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "input files exported in parallel (output is the same for any value)")
	fl.BoolVarP(&o.force, "force", "f", false, "export inputs already in DIR's manifest again (replacing their files), or into a DIR that holds other files")
	fl.IntVar(&o.rowGroupSize, "row-group-size", 0, "rows per Parquet row group at most (default 131072; groups also end at 16 MiB)")
	completeValues(cmd, "format", "parquet", "csv")
	completeValues(cmd, "compression", "zstd", "snappy", "lz4", "none")
	completeValues(cmd, "partition-by", "none", "source", "date")
	completeValues(cmd, "time-format", "rfc3339", "ns")
	completeValues(cmd, "arrays", "json", "explode:", "first:")
	return cmd
}

// options validates the flags and the output directory and returns the
// exporter options.
func (o *exportOptions) options(cmd *cobra.Command) ([]export.Option, error) {
	if o.out == "" {
		return nil, usageErrorf("--out DIR is required")
	}
	format, err := export.ParseFormat(o.format)
	if err != nil {
		return nil, usageErrorf("--format: %v", err)
	}
	comp, err := export.ParseCompression(o.compression)
	if err != nil {
		return nil, usageErrorf("--compression: %v", err)
	}
	part, err := export.ParsePartition(o.partitionBy)
	if err != nil {
		return nil, usageErrorf("--partition-by: %v", err)
	}
	arrays, err := export.ParseArrays(o.arrays)
	if err != nil {
		return nil, usageErrorf("--arrays: %v", err)
	}
	arrays = explodeTFAlong(arrays, o.tfFrame)
	tf, err := export.ParseTimeFormat(o.timeFormat)
	if err != nil {
		return nil, usageErrorf("--time-format: %v", err)
	}
	if format != export.CSV && (o.arrays != "json" || o.timeFormat != "rfc3339") {
		return nil, usageErrorf("--arrays and --time-format apply to --format csv")
	}
	if format == export.CSV && cmd != nil && (cmd.Flags().Changed("compression") || cmd.Flags().Changed("row-group-size")) {
		return nil, usageErrorf("--compression and --row-group-size apply to --format parquet")
	}
	if o.jobs < 1 {
		return nil, usageErrorf("--jobs must be >= 1")
	}
	if o.rowGroupSize < 0 {
		return nil, usageErrorf("--row-group-size must be >= 0")
	}
	if err := checkOutDir(o.out, "--out"); err != nil {
		return nil, err
	}
	return []export.Option{
		export.WithFormat(format), export.WithCompression(comp), export.WithPartitionBy(part),
		export.WithArrays(arrays), export.WithTimeFormat(tf), export.WithRowGroupSize(o.rowGroupSize),
		export.WithVersion(version),
	}, nil
}

// exportGCPercent is export's GC target under its memory limit: a fleet
// export of many small recordings spends 15-20% less CPU than at GOGC=100
// (most of what it allocates is the Parquet writers' per-file garbage),
// and the limit keeps the peak where it was on large inputs.
const exportGCPercent = 400

func runExport(ctx context.Context, o *exportOptions) error {
	g := o.g
	opts := o.opts
	if opts == nil {
		var err error
		if opts, err = o.options(nil); err != nil {
			return err
		}
	}
	if len(o.sync.topics) > 0 {
		return runExportSync(ctx, o, opts)
	}
	in, err := g.open(o.files, &o.read, "export", nil)
	if err != nil {
		return err
	}
	defer in.close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	if path, ok := strings.CutPrefix(o.arrays, "explode:"); ok {
		// A typo in --arrays explode:PATH must not export JSON cells silently.
		if found, types := export.HasArrayField(in.Inputs, path); !found {
			return usageErrorf("--arrays explode:%s: no selected topic has an array field %q (types: %s)", path, path, strings.Join(types, ", "))
		}
	}
	if o.read.skipBad {
		opts = append(opts, export.WithSkipBad(func(err error) { _ = in.Skip(err) }))
	}
	if o.read.keepUnverified {
		opts = append(opts, export.WithUnverifiedColumn()) // marks the rows no CRC vouches for
	}
	wrap := func(m export.Messages) export.Messages { return m }
	if o.tfFrame != "" {
		if wrap, err = tfFramed(ctx, g, o.files, o.read, o.tfFrame); err != nil {
			return err
		}
	}
	inputs := make([]export.DatasetInput, in.Len())
	for i := range inputs {
		f := in.File(i)
		open := func() (export.Messages, error) {
			m, err := f.Decoded(ctx)
			if err != nil {
				return nil, err
			}
			return wrap(m), nil
		}
		inputs[i] = export.DatasetInput{Input: export.Input{Path: f.Path(), Open: open}, Summary: f.Summary(), Selection: o.read.describe()}
		if o.partitionBy != "none" && remote.IsURL(f.Path()) {
			// The manifest's digest from the bytes the export fetches.
			var sum func() (digest.Digest, error)
			inputs[i].Open = func() (export.Messages, error) {
				sum = recording.DigestWhileReading(g.remote, f.Path())
				return open()
			}
			inputs[i].Digest = func() (digest.Digest, error) {
				if sum == nil {
					return recording.Digest(f.Path())
				}
				return sum()
			}
		}
		if o.tfFrame != "" { // the rows carry one more field: say so in the manifest
			inputs[i].Selection = strings.TrimSpace(inputs[i].Selection + " --tf-frame " + o.tfFrame)
		}
		o.noteJSON(in, f)
	}
	jobs := min(o.jobs, len(inputs))
	defer softMemoryLimit(export.MemoryLimit(jobs, opts...) + remoteMemory(jobs, o.files))()
	defer gcPercentUnderLimit(exportGCPercent)()
	return o.exportDataset(ctx, in, inputs, opts, jobs)
}

// noteJSON says once per topic that the JSON-encoded selected channels of
// f are not exported (their messages are no typed rows).
func (o *exportOptions) noteJSON(in *reading, f recording.File) {
	chans, _ := f.Channels()
	for _, ch := range chans {
		sel := in.Filter().Topic
		if ch.MessageEncoding != "json" || (sel != nil && !sel(ch.Topic)) || o.notedJSON[ch.Topic] {
			continue
		}
		if _, err := in.Resolver().For(ch); err != nil {
			if o.notedJSON == nil {
				o.notedJSON = map[string]bool{}
			}
			o.notedJSON[ch.Topic] = true
			o.g.note("baglab: topic %s not exported: %v", ch.Topic, record.WithFile(err, f.Path(), -1, ch.Topic))
		}
	}
}

// checkPrefix refuses an output prefix in object storage that holds
// objects as ExportDataset refuses a local folder that holds files (the
// staged local copy holds only the manifest): without --partition-by,
// any object (export.ErrAppend); partitioned, objects but no manifest
// (export.ErrNotDataset). Both exit 5.
func (o *exportOptions) checkPrefix(ctx context.Context, url string) error {
	entries, err := remote.List(ctx, strings.TrimSuffix(url, "/")+"/")
	if errors.Is(err, remote.ErrNotFound) {
		return nil // nothing there yet
	}
	if err != nil {
		return outputError(url, err)
	}
	top, _, _ := strings.Cut(export.ManifestDir, "/") // the manifest's folder
	manifest, other := false, ""
	for _, e := range entries {
		if strings.TrimSuffix(e.Name, "/") == top {
			manifest = true
		} else if other == "" {
			other = e.URL
		}
	}
	switch {
	case other != "" && o.partitionBy == "none":
		return outputError(url, fmt.Errorf("%w: %s holds %s: per-topic files are written by one run and never added to; "+
			"use an empty prefix, --partition-by for a dataset that grows, or --force to overwrite", export.ErrAppend, url, other))
	case other != "" && !manifest:
		return outputError(url, fmt.Errorf("%w: %s is not from a baglab export; use an empty prefix or --force", export.ErrNotDataset, other))
	}
	return nil
}

// exportDataset exports inputs into o.out through its manifest
// (export.ExportDataset): inputs already there are skipped unless --force.
func (o *exportOptions) exportDataset(ctx context.Context, in *reading, inputs []export.DatasetInput, opts []export.Option, jobs int) error {
	g := o.g
	rep, err := export.ExportDataset(ctx, o.out, inputs, export.DatasetOptions{Force: o.force, Jobs: jobs, Note: g.note}, opts...)
	if err != nil { // export.ErrDataset included: the folder is an existing output (exit 5)
		return outputError(o.out, err)
	}
	in.bar.done()
	if rep.Exported == 0 {
		g.note("baglab: nothing to export: all %d file(s) are in %s already (--force exports them again)", len(inputs), o.out)
		return nil
	}
	g.note("baglab: exported %d file(s) into %d dataset file(s) under %s", rep.Exported, len(rep.Files), o.out)
	if rep.Skipped > 0 {
		g.note("baglab: %d file(s) skipped: in %s already", rep.Skipped, o.out)
	}
	return nil
}

// describe is the selection flags set (--topics, --start, --end), as
// given ("" when none is), for an export's manifest.
func (s *readFlags) describe() string {
	var d []string
	if len(s.topics) > 0 {
		d = append(d, "--topics "+strings.Join(s.topics, ","))
	}
	for _, f := range []struct{ name, v string }{{"--start", s.start}, {"--end", s.end}} {
		if f.v != "" {
			d = append(d, f.name+" "+f.v)
		}
	}
	return strings.Join(d, " ")
}
