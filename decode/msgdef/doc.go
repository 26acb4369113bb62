// Package msgdef parses ROS message definitions (ROS1 genmsg and ROS2 rosidl
// .msg dialects, .srv and .action files, and the concatenated MSG: bundles
// that recordings store) into resolved Type trees, computes ROS1 MD5 sums and
// genmsg full texts, and keeps a registry of known definitions.
package msgdef
