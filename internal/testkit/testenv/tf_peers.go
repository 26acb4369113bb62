package testenv

// The peers of the TF tests beside the python ones in the table: tf2 from
// C++, compiled by the test against Debian's headers (the python binding
// passes stamps through a double), and nav_msgs for the Path of
// export --tf-frame.
func init() {
	peers["nav-msgs"] = peer{what: "Debian python3-nav-msgs (make deps-apt)", py: []string{"nav_msgs.msg"}}
	peers["tf2cpp"] = peer{what: "Debian libtf2-dev and g++ (make deps-apt)",
		files: []string{"/usr/include/tf2/buffer_core.h", "/usr/include/geometry_msgs/TransformStamped.h"}, progs: []string{"g++"}}
}
