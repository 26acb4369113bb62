// Package bag reads and writes ROS1 bag files (format 2.0).
//
// It is a container package: it moves message bytes and connection
// headers and knows nothing of their encoding (decode/ros1 does that).
// records.go mirrors the format specification; the code reads bags in the
// three layers of STYLE.md: a Lexer framing records, pure Parse functions
// per record type, and the Reader's iterators, which add the index, time
// ordering and filters.
//
// Reader reads indexed bags through their index (in log time order,
// decompressing chunks in parallel) and unindexed or damaged ones by
// scanning (in file order). Writer writes indexed bags the way rosbag does,
// Reindex rebuilds a bag whose index is missing or whose tail is cut, and
// Check lists the structural problems of a bag for `baglab doctor`.
package bag
