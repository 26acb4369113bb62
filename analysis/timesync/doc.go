// Package timesync matches the messages of several topics into sets by
// their header stamps, as ROS's message_filters synchronizers do when fed
// a recording in log-time order: Approximate is the python
// ApproximateTimeSynchronizer (message_filters 1.15, Debian's), Exact the
// TimeSynchronizer. Sync matches values by stamp; Run feeds it a
// recording's messages by their header stamps, and a Joined type turns
// each matched Set into one row of a dataset, each topic's fields under
// the topic's name.
//
// The python ApproximateTimeSynchronizer is not the C++ ApproximateTime
// policy: it keeps up to queue-size messages per topic keyed by stamp
// (a second message with the same stamp replaces the first), and on every
// arrival looks, among the other topics' queued messages within slop of
// the new one (nearest first), for the first combination whose stamps
// span less than slop; it emits at most that one set. The C++ policy
// instead waits until it can prove a set optimal (the smallest span
// among all candidates, with an age penalty and inter-message bounds) and
// has no slop. The two emit different sets on the same input.
package timesync
