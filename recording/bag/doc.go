// Package bag reads and writes ROS1 bag files (format 2.0).
//
// It is a container package: it moves message bytes and connection
// headers and knows nothing of their encoding (decode/ros1 does that).
// records.go mirrors the format specification; the code reads bags in the
// three layers of STYLE.md: a Lexer framing records, pure Parse functions
// per record type, and the Reader's iterators, which add the index, time
// ordering and filters.
//
// Reader reads indexed bags through their index (in log time order, equal
// times in file order, decompressing chunks in parallel through the shared
// merge of decode/internal/chunked) and unindexed or damaged ones by
// scanning (in file order). A bag whose index lies past the end of the file
// was cut after it was closed: Open fails unless record.WithSkipBad. A bag that was
// never closed (index_pos 0) ends in a torn chunk as a matter of course: its
// complete messages are read and the torn end is reported once
// (record.WithWarning). A bag that rosbag encrypted (EncryptorAESCBC) is
// refused with record.ErrUnsupported: its records are ciphertext. Scans
// pick up at the next chunk after a damaged length, and inside a chunk at
// the next record that parses. Writer writes indexed
// bags the way rosbag does,
// Reindex rebuilds a bag whose index is missing or whose tail is cut, and
// Check lists the structural problems of a bag for `baglab doctor`.
package bag
