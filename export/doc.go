// Package export turns decoded ROS messages into columnar datasets: an Arrow
// schema derived from a message definition, a compiled sink that appends a
// codec's events straight into Arrow builders, and Parquet and CSV writers
// that keep one dataset per topic (optionally Hive-partitioned by source
// file or by date) with bounded memory and atomic, deterministic output.
//
// # Type mapping
//
//	bool, int8..int64, uint8..uint64,    boolean, int8..int64, uint8..uint64,
//	float32, float64                      float32, float64
//	string, wstring                       utf8 (dictionary-encoded in Parquet)
//	uint8[], char[], byte[], uint8[N]     binary (fixed-size blobs too; see below)
//	T[N]                                  fixed_size_list<T>[N]
//	T[], T[<=N]                           list<T>
//	nested message                        struct
//	ROS1 time, builtin_interfaces/Time    timestamp[ns, UTC]
//	ROS1 duration,
//	builtin_interfaces/Duration           duration[ns]
//
// Fixed-size byte arrays become binary rather than fixed_size_binary so that
// every blob column has one physical type (a zero-length fixed array stays
// representable) and readers treat them alike. Parquet has no duration
// type: duration columns are stored as INT64 nanoseconds and the original
// Arrow schema is kept under the ARROW:schema key, so pyarrow and polars read
// them back as durations while DuckDB sees BIGINT.
//
// Every row also carries the meta columns log_time and publish_time
// (timestamp[ns, UTC]), sequence (uint64, position in its file) and
// source_file (utf8), before the message fields. When a message has a field
// of the same name, the meta column gets a leading underscore.
//
// A nested message without fields (an empty action goal, for instance) has no
// columns and is left out, as are arrays of such messages; a top-level message
// without fields still gives rows with the meta columns. All fields are
// non-nullable: ROS messages have no nulls.
package export
