// Package play replays recordings onto a live ROS1 graph, as `rosbag play`
// does: every message goes out at its recorded time (scaled by a rate) on
// the monotonic clock, under the type, MD5 sum and definition it was
// recorded with, from any input the decode front door reads (ROS1 bags,
// indexed or not, MCAP, rosbag2; CDR messages re-encoded as ROS1).
//
// New prepares a Player from a Source (FromInputs wraps recording.Inputs) and
// Options (DefaultOptions has rosbag play's defaults); Run advertises and
// plays through an Advertiser — NodeAdvertiser for a live rosnode.Node, or
// a fake in tests, so that the scheduler runs without a ROS master. A
// goroutine reads, decompresses and converts messages ahead into a queue
// bounded in bytes; the player waits for each message's due time, serving
// /clock, the keys (TerminalKeys), SetPaused calls and a status line
// meanwhile. On a NodeAdvertiser, Run also serves rosbag play's
// ~pause_playback service (std_srvs/SetBool) and rosbag2's player's
// services under their names (~pause, ~resume, ~toggle_paused, ~is_paused,
// ~get_rate, ~play_next as std_srvs/Trigger; ~set_rate, ~seek, ~burst with
// rosbag2_interfaces' fields under baglab_msgs), through the control calls
// (SetPaused, Seek, SetRate, Burst ...) that any goroutine may make.
package play
