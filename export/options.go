package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Format is the output file format.
type Format uint8

// The formats.
const (
	Parquet Format = iota
	CSV
)

func (f Format) String() string {
	if f == CSV {
		return "csv"
	}
	return "parquet"
}

// ext is the file extension of the format.
func (f Format) ext() string { return "." + f.String() }

// ParseFormat parses "parquet" or "csv".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "parquet":
		return Parquet, nil
	case "csv":
		return CSV, nil
	}
	return 0, fmt.Errorf("export: unknown format %q (want parquet or csv)", s)
}

// Compression is the Parquet compression codec.
type Compression uint8

// The codecs. LZ4 is Parquet's LZ4_RAW.
const (
	Zstd Compression = iota
	Snappy
	LZ4
	Uncompressed
)

func (c Compression) String() string {
	switch c {
	case Snappy:
		return "snappy"
	case LZ4:
		return "lz4"
	case Uncompressed:
		return "none"
	}
	return "zstd"
}

// ParseCompression parses "zstd", "snappy", "lz4" or "none".
func ParseCompression(s string) (Compression, error) {
	for _, c := range []Compression{Zstd, Snappy, LZ4, Uncompressed} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("export: unknown compression %q (want zstd, snappy, lz4 or none)", s)
}

// Partition selects Hive-style partitioning of the datasets.
type Partition uint8

// The partitionings. PartitionNone writes one file per topic
// (DIR/<topic path>.parquet); the others write
// DIR/topic=<topic>/source=<file name>/part-<input>.parquet or
// DIR/topic=<topic>/date=YYYY-MM-DD/part-<input>.parquet (<input> the input
// index or its Input.Part; the UTC date
// of the log time).
const (
	PartitionNone Partition = iota
	PartitionSource
	PartitionDate
)

func (p Partition) String() string {
	switch p {
	case PartitionSource:
		return "source"
	case PartitionDate:
		return "date"
	}
	return "none"
}

// ParsePartition parses "none" (or ""), "source" or "date".
func ParsePartition(s string) (Partition, error) {
	switch s {
	case "", "none":
		return PartitionNone, nil
	case "source":
		return PartitionSource, nil
	case "date":
		return PartitionDate, nil
	}
	return 0, fmt.Errorf("export: unknown partitioning %q (want none, source or date)", s)
}

// TimeFormat is how CSV renders timestamps.
type TimeFormat uint8

// The time formats: RFC 3339 with nanoseconds in UTC
// ("2024-05-01T12:00:00.123456789Z"), or integer nanoseconds since the
// epoch. Durations are always integer nanoseconds.
const (
	TimeRFC3339 TimeFormat = iota
	TimeNs
)

func (t TimeFormat) String() string {
	if t == TimeNs {
		return "ns"
	}
	return "rfc3339"
}

// ParseTimeFormat parses "rfc3339" or "ns".
func ParseTimeFormat(s string) (TimeFormat, error) {
	switch s {
	case "rfc3339":
		return TimeRFC3339, nil
	case "ns":
		return TimeNs, nil
	}
	return 0, fmt.Errorf("export: unknown time format %q (want rfc3339 or ns)", s)
}

// Arrays is how CSV renders array fields (blobs are always one base64
// cell).
type Arrays struct {
	// Mode is ArraysJSON, ArraysExplode or ArraysFirst.
	Mode ArraysMode
	// Path is the array to explode ("placements", "objects.grasps"): a
	// path of struct fields ending at an array.
	Path string
	// Along are arrays exploded in step with Path's (the in_<frame>
	// mirror of Path that --tf-frame adds, in_map.poses beside poses):
	// element k of each on the row of Path's element k, empty where one is
	// shorter. They explode only where Path does.
	Along []string
	// N is the number of elements ArraysFirst writes per array.
	N int
}

// ArraysMode is the kind of Arrays.
type ArraysMode uint8

// The array modes. ArraysJSON writes each array as one JSON cell.
// ArraysExplode writes one row per element of the array at Path (other
// arrays as JSON; one row with empty element cells when it is empty; a
// <path>._index column numbers the elements); topics without that array are
// written as with ArraysJSON. ArraysFirst writes the first N elements of
// every array in N groups of columns (a.0.x, a.1.x, ...), empty where the
// array is shorter.
const (
	ArraysJSON ArraysMode = iota
	ArraysExplode
	ArraysFirst
)

func (a Arrays) String() string {
	switch a.Mode {
	case ArraysExplode:
		return "explode:" + a.Path
	case ArraysFirst:
		return "first:" + strconv.Itoa(a.N)
	}
	return "json"
}

// ParseArrays parses "json", "explode:PATH" or "first:N".
func ParseArrays(s string) (Arrays, error) {
	switch {
	case s == "json":
		return Arrays{}, nil
	case strings.HasPrefix(s, "explode:"):
		p := strings.TrimPrefix(s, "explode:")
		if p == "" {
			return Arrays{}, fmt.Errorf("export: %q: explode needs an array path", s)
		}
		return Arrays{Mode: ArraysExplode, Path: p}, nil
	case strings.HasPrefix(s, "first:"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "first:"))
		if err != nil || n < 1 || n > 1024 {
			return Arrays{}, fmt.Errorf("export: %q: first:N needs 1 <= N <= 1024", s)
		}
		return Arrays{Mode: ArraysFirst, N: n}, nil
	}
	return Arrays{}, fmt.Errorf("export: unknown array mode %q (want json, explode:PATH or first:N)", s)
}

// config is the Exporter's settings; defaults in defaultConfig.
type config struct {
	format        Format
	compression   Compression
	rowGroupRows  int
	rowGroupBytes int64
	budget        int64
	partition     Partition
	arrays        Arrays
	timeFormat    TimeFormat
	csvComma      rune
	version       string
	mem           memory.Allocator
	skipBad       func(error)
	unverified    bool
	layouts       *layoutCache // Parquet layouts by schema (parquet.go)
	plans         *planCache   // compiled message types (schema.go)
}

func defaultConfig() config {
	return config{
		format:        Parquet,
		compression:   Zstd,
		rowGroupRows:  128 << 10,
		rowGroupBytes: 16 << 20,
		budget:        64 << 20,
		csvComma:      ',',
		version:       "dev",
		mem:           newPoolAllocator(64 << 20),
		layouts:       newLayoutCache(),
		plans:         newPlanCache(),
	}
}

// Option configures an Exporter.
type Option func(*config)

// WithUnverifiedColumn adds the boolean meta column unverified after
// source_file: true for a row whose message no CRC vouches for
// (record.Message.Unverified, kept by a reader with KeepUnverified). Without
// it the tables have no such column.
func WithUnverifiedColumn() Option { return func(c *config) { c.unverified = true } }

// WithFormat selects Parquet (the default) or CSV files.
func WithFormat(f Format) Option { return func(c *config) { c.format = f } }

// WithCompression selects the Parquet codec (default Zstd).
func WithCompression(x Compression) Option { return func(c *config) { c.compression = x } }

// WithRowGroupSize bounds the rows of a Parquet row group (default 131072).
// Row groups also end at WithRowGroupBytes and at the end of each input
// file.
func WithRowGroupSize(rows int) Option {
	return func(c *config) {
		if rows > 0 {
			c.rowGroupRows = rows
		}
	}
}

// WithRowGroupBytes bounds the buffered size of a row group (default 16
// MiB): large messages such as point clouds flush by bytes long before the
// row limit.
func WithRowGroupBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.rowGroupBytes = n
		}
	}
}

// WithMemoryBudget bounds the rows buffered by one input file across all its
// topics (default 64 MiB); when exceeded the largest buffer is flushed. Run
// with jobs > 1 holds up to jobs such buffers.
func WithMemoryBudget(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.budget = n
		}
	}
}

// MemoryLimit is the Go heap an export of jobs inputs at once with opts
// needs, for a soft limit (runtime/debug.SetMemoryLimit) that keeps the heap
// near it instead of letting garbage double it on large inputs: per job its
// buffered rows (WithMemoryBudget) and the row group being encoded and
// written (twice WithRowGroupBytes), plus 128 MiB for the rest. With the
// defaults that is 128 MiB + 96 MiB per job.
func MemoryLimit(jobs int, opts ...Option) int64 {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	return 128<<20 + int64(max(jobs, 1))*(c.budget+2*c.rowGroupBytes)
}

// WithPartitionBy selects Hive-style partitioning (default none).
func WithPartitionBy(p Partition) Option { return func(c *config) { c.partition = p } }

// WithArrays selects how CSV renders arrays (default one JSON cell).
func WithArrays(a Arrays) Option { return func(c *config) { c.arrays = a } }

// WithTimeFormat selects how CSV renders timestamps (default RFC 3339).
func WithTimeFormat(t TimeFormat) Option { return func(c *config) { c.timeFormat = t } }

// WithCSVDelimiter sets the CSV field delimiter (default ',').
func WithCSVDelimiter(r rune) Option { return func(c *config) { c.csvComma = r } }

// WithVersion sets the baglab version recorded in the files' metadata and
// Parquet created_by (default "dev").
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithAllocator sets the Arrow memory allocator (tests pass a checked one).
// The default keeps up to 64 MiB of large freed buffers for reuse.
func WithAllocator(mem memory.Allocator) Option { return func(c *config) { c.mem = mem } }

// WithSkipBad makes Run leave out messages that fail to decode, passing
// each error to report (from several goroutines when jobs > 1), instead of
// stopping.
func WithSkipBad(report func(err error)) Option { return func(c *config) { c.skipBad = report } }
