// Package tf answers "where was frame B in frame A at time t" from the
// transforms a recording holds on /tf and /tf_static (tf2_msgs/TFMessage,
// tf2_msgs/msg/TFMessage, tf/tfMessage), with the semantics of tf2's
// BufferCore::lookupTransform (ROS geometry2 0.7, the version Debian ships):
// linear interpolation of translation and slerp of rotation between the two
// nearest stamps, chains through the common parent, static transforms valid
// at all times, time 0 meaning the latest common time, and the same errors
// (LookupError, ConnectivityError, ExtrapolationError) with tf2's text.
//
// One difference is deliberate: tf2 keeps 10 s of each frame's history by
// default (BufferCore's cache_time); an offline tool keeps the whole
// recording, so a Buffer behaves as a BufferCore whose cache time is longer
// than the recording.
//
// Buffer is the frame store (SetTransform, Lookup, LatestCommonTime); Read
// fills one from a recording; Tree describes the frames for `baglab tf
// --tree`; Framer adds the value of a pose, point or transform expressed
// in another frame to every message that has a Header.
package tf
