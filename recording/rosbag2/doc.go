// Package rosbag2 writes rosbag2 recordings as ros2 bag record and
// rosbags-convert write them: a folder holding numbered split files
// (NAME_0.mcap in the MCAP ros2 profile, or NAME_0.db3 in sqlite3 schema
// version 4) and a metadata.yaml of version 9, with splits by size or
// duration and rosbag2's compression (MCAP chunks; zstd per file or per
// message). Reading rosbag2 folders is the MCAP and db3 readers' work.
package rosbag2
