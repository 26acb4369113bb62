// Package header reads the std_msgs/Header of a message — its stamp and
// frame_id — through a sink, without building the rest of the message:
// the stamps that offline TF lookups, synchronisers and latency figures
// need. ROS1 headers (time stamp) and ROS2 headers (builtin_interfaces/Time
// stamp) alike.
package header
