package testenv

// The C++ peers of the TF and sync tests, compiled by the test against
// Debian's ROS headers: tf2's python binding passes stamps through a
// double, and message_filters' ApproximateTime policy exists only in C++.
func init() {
	peers["tf2cpp"] = peer{what: "Debian libtf2-dev and g++ (make deps-apt)",
		files: []string{"/usr/include/tf2/buffer_core.h", "/usr/include/geometry_msgs/TransformStamped.h"}, progs: []string{"g++"}}
}
