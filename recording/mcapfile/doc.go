// Package mcapfile reads and writes MCAP recordings (https://mcap.dev) as
// baglab records, on top of github.com/foxglove/mcap/go/mcap.
//
// Reading frames records itself from an io.ReaderAt so that every length is
// checked against the bytes that remain, and uses the library's record
// parsers for the record bodies. A file whose summary section carries a
// complete index (chunk indexes, channels, schemas) is read through the index
// in log time order, with chunks decompressed ahead by a small worker pool;
// any other file is read linearly in file order, on past a data end or
// footer record out of place (one that records of the data section
// follow, before the summary section), as @mcap/core's McapStreamReader
// reads on past a data end record. With record.WithSkipBad both go on
// past damage (a chunk whose CRC fails, a chunk that stops decompressing, a
// damaged record length, a cut file), yielding what still parses and
// reporting each damaged stretch; without it they stop at the first error.
// Going on past damage leaves out what no CRC vouches for (a chunk whose
// CRC fails or whose compressed data is corrupt) unless record.WithKeepUnverified,
// which keeps it with record.Message.Unverified set. Equal log times come
// out in file order, through the merge of decode/internal/chunked shared
// with the bag reader.
//
// Channels keep the MCAP encodings as stored: profile ros1 gives schema
// encoding "ros1msg" and message encoding "ros1" (the MD5 comes from the
// channel metadata "md5sum"), profile ros2 gives "ros2msg" (or "ros2idl") and
// "cdr", and JSON channels give "jsonschema" and "json". Message.Sequence is
// the MCAP message's own sequence field as the writer set it (rosbag2 often
// writes 0); the order of a message in the file is the order the iterator
// yields it. Times are int64 nanoseconds, as record.Message has them: a
// message whose MCAP (uint64) log or publish time is 2^63 ns or later
// (after 2262-04-11, which no recorder writes) is bad data, an error that
// record.WithSkipBad reads past, never a negative time; a chunk index time that
// late keeps the file from being read through its index.
//
// Writing goes through the library's writer (chunked, zstd, lz4 or none, with
// message indexes, chunk indexes, statistics and summary offsets). Recover
// rebuilds a damaged file from the intact records it still holds, and Check
// lists what is wrong with a file for `baglab doctor`.
package mcapfile
