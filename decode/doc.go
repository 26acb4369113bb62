// Package decode turns a channel's stored definition into a compiled codec.
//
// A Resolver maps a channel's schema (ros1msg, ros2msg or a rosbag2 type
// name the registry knows) to a Decoder for its message encoding (ros1 or
// cdr), compiled once per schema and cached. ROS2Bundle and ROS1Equivalent
// transcode definitions between the ROS 1 and ROS 2 forms, and
// Resolver.ToROS1 gives the payload converter a copy to a bag uses.
//
// The wire codecs are the subpackages ros1 and cdr, the definitions
// msgdef, and the value tree and push interface value and sink. Opening,
// reading and writing recordings is package recording's job.
package decode
