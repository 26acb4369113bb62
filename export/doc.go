// Package export turns decoded ROS messages into columnar datasets: an Arrow
// schema derived from a message definition, a compiled sink that appends a
// codec's events straight into Arrow builders (RowBuilder), and Parquet and
// CSV writers that keep one dataset per topic, optionally Hive-partitioned
// by source file or by date, with bounded memory and atomic, deterministic
// output (Exporter, Source, Run).
//
// # Type mapping
//
//	bool, int8..int64, uint8..uint64,    boolean, int8..int64, uint8..uint64,
//	float32, float64                      float32, float64
//	string, wstring                       utf8 (dictionary-encoded in Parquet)
//	uint8[], char[], byte[], uint8[N]     binary (fixed-size blobs too)
//	T[N]                                  fixed_size_list<T>[N]
//	T[], T[<=N]                           list<T>
//	nested message                        struct
//	ROS1 time, builtin_interfaces/Time    timestamp[ns, UTC]
//	ROS1 duration,
//	builtin_interfaces/Duration           duration[ns]
//
// Fixed-size byte arrays become binary rather than fixed_size_binary so that
// every blob column has one physical type and a zero-length fixed array
// stays representable. builtin_interfaces/Time and Duration arrive from the
// codec as a struct {int32 sec, uint32 nanosec} and are collapsed into one
// value.
//
// Every row also carries the meta columns log_time and publish_time
// (timestamp[ns, UTC]), sequence (uint64, the message's position in its
// file) and source_file (utf8), with WithUnverifiedColumn also unverified
// (bool), before the message fields. When the message has a field of the
// same name, the meta column gets a leading underscore.
//
// A nested message without fields (an empty action goal, for instance) has
// no columns and is left out, as are arrays of such messages; a top-level
// message without fields still gives rows with the meta columns. Fields are
// non-nullable: ROS messages have no nulls. The exception is a scalar
// field a program adds and marks msgdef.Field.Nullable (the in_<frame>
// values of --tf-frame): a nullable column, null where the decoder calls
// sink.Nuller's Null (an optional Parquet leaf, an empty CSV cell).
//
// # Parquet
//
// Files are zstd-compressed (level 1) by default (snappy, LZ4_RAW or none on
// request),
// with statistics (except on blob columns, whose min/max would be dropped
// for size anyway), dictionary-encoded strings, row groups bounded by rows
// and by bytes (large rows such as point clouds flush by bytes) and never
// spanning two input files, and key-value metadata: baglab.version, .topic,
// .message_type, .message_encoding, .schema_encoding, .md5, .definition and
// .source_files (a JSON array). created_by is "baglab version V"; nothing
// in a file depends on the time or on chance, so the same inputs give the
// same bytes.
//
// Parquet has no duration type: durations are stored as INT64 nanoseconds
// and the Arrow schema is kept under ARROW:schema, which Arrow C++ readers
// (pyarrow, pandas) use to give duration[ns] back; DuckDB and arrow-go
// v18.7 read the int64 (arrow-go v18.8's reader restores the duration type
// from ARROW:schema and then fails to read the column: use v18.7 or read
// the file with DuckDB, pyarrow or polars). Fixed-size lists are stored as Parquet lists (marked optional,
// never null); one whose elements hold a variable-length list is marked
// nullable in ARROW:schema too, since polars takes the nesting levels from
// there and misreads it otherwise. DuckDB reads the UTC nanosecond timestamps as TIMESTAMPTZ,
// which keeps microseconds.
//
// # Layout
//
// Without partitioning each topic is one file, DIR/<topic path>.parquet
// ("/a/b" → a/b.parquet; bytes outside [A-Za-z0-9_.~-] percent-escaped, "."
// and ".." segments rejected, nothing written outside DIR), fed by every
// input in order. A topic whose messages come in more than one layout (two
// definitions of one type) gets a file per layout: a/b.parquet,
// a/b.v2.parquet, ... in order of appearance. Partitioned output is
// Hive-style, one part file per input and partition:
//
//	DIR/topic=%2Fa%2Fb/date=2024-05-01/part-0.parquet
//	DIR/topic=%2Fa%2Fb/source=run1.bag/part-0.parquet
//
// with values escaped as Hive and Spark do (DuckDB's hive_partitioning
// undoes it). The part number is the input's number in the Exporter, or
// its Input.Part: ExportDataset names each input's parts by its content
// hash (part-<16 hex digits>) and keeps a manifest of the inputs in
// DIR/_baglab/files (ManifestRow), so that a dataset directory can grow
// run after run and take exports of several processes at once. A
// partition key that a message already has as a column gets
// a leading underscore (_source=...).
//
// Each file is written under a temporary name in its own directory and
// renamed by Exporter.Close; Exporter.Abort removes the temporary files and
// the directories the export created.
package export
