// Package decode is baglab's front door: Open recognises a recording by its
// magic bytes (ROS1 bag 2.0, MCAP, rosbag2 sqlite3 or a rosbag2 folder),
// Merge iterates several recordings in log time order, and a Resolver turns
// a channel's schema into a compiled codec (ROS1 or CDR), cached by schema.
package decode
