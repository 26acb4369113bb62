// Package rostest forwards to internal/rostest, where the ROS1 test
// harness moved so that cmd/baglab's tests can use it too; new code
// imports github.com/baglab/baglab/internal/rostest.
package rostest
