// Package rostest runs Debian's real ROS1 as a test peer: a roscore on a
// free loopback port with its own ROS_HOME and ROS_LOG_DIR, and peer
// processes (rostopic, rosbag, rospy scripts) in their own process
// groups, each stopped by signalling only that group.
//
// When ROS is not installed a test skips with one line saying so, unless
// the CI environment variable is set: then it fails (internal/testenv).
package rostest
