package main

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/export"
	"github.com/spf13/cobra"
)

func init() {
	extraCommands = append(extraCommands, newExportCmd)
}

type exportOptions struct {
	g            *globalOptions
	files        []string
	sel          selectionOptions
	out          string
	format       string
	compression  string
	partitionBy  string
	arrays       string
	timeFormat   string
	jobs         int
	rowGroupSize int
	skipBad      bool
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
log_time, publish_time, sequence (position in its file) and source_file.
Parquet files are zstd-compressed by default, with bounded row groups,
statistics, dictionary-encoded strings and key-value metadata (message type,
definition, MD5, encodings, source files, baglab version). The same inputs
give byte-identical files, whatever --jobs.

--partition-by source|date writes Hive-style folders instead, readable with
DuckDB's hive_partitioning or Spark:
  DIR/topic=<topic>/date=YYYY-MM-DD/part-<input index>.parquet
  DIR/topic=<topic>/source=<file name>/part-<input index>.parquet
(the topic percent-escaped: /a/b -> topic=%2Fa%2Fb).

CSV has a header from the message definition (dot paths: pose.position.x);
--arrays chooses how arrays appear: json (one JSON cell), explode:PATH (one
row per element of that array) or first:N (columns a.0.x ... a.N-1.x).

Files are written under temporary names and renamed when the export
succeeds; on error or interrupt none are left.`,
		Example: `  baglab export study.bag --out tables
  baglab export day1.bag day2.bag --out tables --partition-by date --jobs 4
  baglab export run.mcap --out csv --format csv --topics /placements --arrays explode:placements`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			return runExport(o)
		},
	}
	o.sel.addFlags(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "", "output directory (created if missing)")
	fl.StringVar(&o.format, "format", "parquet", "parquet or csv")
	fl.StringVar(&o.compression, "compression", "zstd", "Parquet compression: zstd, snappy, lz4 or none")
	fl.StringVar(&o.partitionBy, "partition-by", "none", "none, source or date (Hive-style folders)")
	fl.StringVar(&o.arrays, "arrays", "json", "CSV arrays: json, explode:PATH or first:N")
	fl.StringVar(&o.timeFormat, "time-format", "rfc3339", "CSV timestamps: rfc3339 or ns")
	fl.IntVarP(&o.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "input files exported in parallel (output is the same for any value)")
	fl.IntVar(&o.rowGroupSize, "row-group-size", 0, "rows per Parquet row group at most (default 131072; groups also end at 16 MiB)")
	fl.BoolVar(&o.skipBad, "skip-bad", false, "skip messages that fail to decode, reporting each on stderr, instead of stopping")
	completeValues(cmd, "format", "parquet", "csv")
	completeValues(cmd, "compression", "zstd", "snappy", "lz4", "none")
	completeValues(cmd, "partition-by", "none", "source", "date")
	completeValues(cmd, "time-format", "rfc3339", "ns")
	completeValues(cmd, "arrays", "json", "explode:", "first:")
	return cmd
}

// options validates the flags and returns the exporter options.
func (o *exportOptions) options() ([]export.Option, error) {
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
	tf, err := export.ParseTimeFormat(o.timeFormat)
	if err != nil {
		return nil, usageErrorf("--time-format: %v", err)
	}
	if format != export.CSV && (o.arrays != "json" || o.timeFormat != "rfc3339") {
		return nil, usageErrorf("--arrays and --time-format apply to --format csv")
	}
	if o.jobs < 1 {
		return nil, usageErrorf("--jobs must be >= 1")
	}
	if o.rowGroupSize < 0 {
		return nil, usageErrorf("--row-group-size must be >= 0")
	}
	return []export.Option{
		export.WithFormat(format), export.WithCompression(comp), export.WithPartitionBy(part),
		export.WithArrays(arrays), export.WithTimeFormat(tf), export.WithRowGroupSize(o.rowGroupSize),
		export.WithVersion(version),
	}, nil
}

func runExport(o *exportOptions) error {
	g := o.g
	opts, err := o.options()
	if err != nil {
		return err
	}
	reg, err := g.registry()
	if err != nil {
		return err
	}
	var onSkip func(error)
	if o.skipBad {
		onSkip = func(err error) { g.note("baglab: skipped: %v", err) }
	}
	var readers []record.Reader
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	var sums []*record.Summary
	for _, p := range o.files {
		if _, err := os.Stat(p); err != nil {
			return err
		}
		r, err := decode.OpenWith(p, decode.OpenOptions{OnSkip: onSkip})
		if err != nil {
			return err
		}
		readers = append(readers, r)
		s, err := r.Summary()
		if err != nil {
			return err
		}
		sums = append(sums, s)
	}
	filter, err := o.sel.filter(summaryOnly{sum: decode.CombineSummaries(sums)})
	if err != nil {
		return err
	}
	var total int64
	for _, s := range sums {
		for _, t := range s.Topics {
			if filter.Topic == nil || filter.Topic(t.Topic) {
				total += int64(t.MessageCount)
			}
		}
	}
	inputs := make([]export.Input, len(readers))
	for i, r := range readers {
		inputs[i] = export.Input{Path: o.files[i], Open: func() (record.Iterator, error) { return r.Messages(filter) }}
	}

	bar := newProgress(g, total, "export")
	defer bar.done()
	if bar.bar != nil {
		opts = append(opts, export.WithProgress(func(int) { bar.add(1) }))
	}
	if o.skipBad {
		opts = append(opts, export.WithSkipBad(func(err error) { g.note("baglab: skipped: %v", err) }))
	}
	res := decode.NewResolver(reg)
	if !o.skipBad {
		for i, r := range readers {
			if err := requireDefinitions(r, filter, res, o.files[i]); err != nil {
				return err
			}
		}
	}
	if path, ok := strings.CutPrefix(o.arrays, "explode:"); ok {
		if err := requireArrayPath(readers, filter, res, path); err != nil {
			return err
		}
	}
	var noted sync.Map
	resolve := func(ch *record.Channel) (export.TypedDecoder, error) {
		d, err := res.For(ch)
		if err == nil {
			return d, nil
		}
		if errors.Is(err, record.ErrUnsupported) || o.skipBad {
			if _, dup := noted.LoadOrStore(ch.Topic, true); !dup {
				g.note("baglab: topic %s not exported: %v", ch.Topic, err)
			}
			return nil, export.ErrSkipChannel
		}
		return nil, err
	}

	jobs := min(o.jobs, len(inputs))
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft limit keeps the heap near what the export holds (row
		// groups of at most 16 MiB, 64 MiB of buffered rows per input)
		// instead of letting garbage double it.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(128+96*jobs) << 20))
	}
	exp, err := export.New(o.out, opts...)
	if err != nil {
		return err
	}
	if err := exp.Run(g.ctx, inputs, resolve, jobs); err != nil {
		exp.Abort()
		return err
	}
	if err := exp.Close(); err != nil {
		return err
	}
	bar.done()
	g.note("baglab: exported %d file(s) into %d dataset file(s) under %s", len(inputs), len(exp.Files()), o.out)
	return nil
}

// requireArrayPath fails unless some selected topic's type has an array at
// path (dot separated, as in the CSV header), so that a typo in
// --arrays explode:PATH is not silently exported as JSON cells.
func requireArrayPath(readers []record.Reader, f record.Filter, res *decode.Resolver, path string) error {
	var types []string
	for _, r := range readers {
		chans, err := r.Channels()
		if err != nil {
			return err
		}
		for _, ch := range chans {
			if f.Topic != nil && !f.Topic(ch.Topic) {
				continue
			}
			dec, err := res.For(ch)
			if err != nil {
				continue
			}
			if fieldAt(dec.Type(), path) {
				return nil
			}
			types = append(types, dec.Type().Name)
		}
	}
	return usageErrorf("--arrays explode:%s: no selected topic has an array field %q (types: %s)", path, path, strings.Join(types, ", "))
}

// fieldAt reports whether t has an array field at the dotted path.
func fieldAt(t *msgdef.Type, path string) bool {
	parts := strings.Split(path, ".")
	for i, name := range parts {
		f := t.Field(name)
		if f == nil {
			return false
		}
		if i == len(parts)-1 {
			return f.Array != msgdef.Scalar
		}
		if f.Kind != msgdef.Struct || f.Array != msgdef.Scalar {
			return false
		}
		t = f.Msg
	}
	return false
}
