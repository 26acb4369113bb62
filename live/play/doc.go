// Package play replays recordings onto a live ROS1 graph, as `rosbag play`
// does: every message goes out at its recorded time (scaled by a rate) on
// the monotonic clock, under the type, MD5 sum and definition it was
// recorded with, from any input the decode front door reads (ROS1 bags,
// indexed or not, MCAP, rosbag2; CDR messages re-encoded as ROS1).
//
// The transport is behind the Advertiser interface, so the scheduler runs
// and is tested without a ROS master; package live's node provides the real
// one.
package play
