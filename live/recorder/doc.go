// Package recorder records live ROS1 topics into a bag or an MCAP file, the
// engine behind `baglab record`. It follows rosbag record (options,
// defaults, file naming, splitting, .active files) and differs where
// rosbag loses data silently.
//
// Subscriptions take any type (md5sum "*") and every message is stored
// with its publisher's connection header verbatim, one bag connection (or
// MCAP channel) per distinct header and topic, as rosbag does. A message's
// log time is the wall-clock time its last byte was received, or, when the
// /use_sim_time parameter is set, the latest /clock (rosbag's
// ros::Time::now()); recording then waits for the first /clock.
//
// Messages go from the subscriber connections into one queue bounded by
// Options.BufSize bytes (rosbag's --buffsize; 0 is unbounded). When it is
// full the oldest queued message is dropped, as in rosbag, but every drop
// is counted per topic: the counts are logged (at most every 5 s while it
// happens), returned in Result and kept in the file. In a bag they are a
// std_msgs/String message on /baglab/record_stats written last, holding
// JSON (see Stats); in an MCAP file a metadata record named
// "baglab/record_stats" with one JSON value per topic.
//
// The file is NAME.active while it is written and renamed to NAME when it
// is closed with its index. Chunks are written as they fill (--chunksize),
// so after a crash `baglab reindex NAME.bag.active` (or `baglab recover`
// for MCAP) recovers every message up to the last chunk written. Cancelling
// the context (SIGINT, SIGTERM) stops the subscriptions, drains the queue
// and closes the file.
//
// Messages are read into memory only as they arrive and only when they can
// be kept: the queue is the subscribers' rosnode.Budget, so messages still
// arriving count against BufSize, and one larger than BufSize (or the
// node's MaxMessage) is dropped as it arrives and counted. Record sets a
// soft memory limit of MemoryLimit.
//
// With Options.Snapshot the messages go into a ring buffer in memory (the
// newest Duration, at most Size bytes) instead of a file; Snapshot writes
// them to a new file when triggered, as do the node's ~trigger_snapshot
// (std_srvs/Trigger, or rosbag_snapshot_msgs/TriggerSnapshot) and
// ~enable_snapshot (std_srvs/SetBool: pause and resume) services.
//
// Topics named explicitly are subscribed at once; with All, Regex or Node
// the master is polled every second and topics that appear are picked up.
package recorder
