package recording

import (
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/rosbag2"
)

// Latched reports whether a channel was latched, so that a late subscriber
// should get its last message: a ROS1 connection header with latching=1
// (or "true", as MCAP's ros1 profile writes it), or a ROS2 publisher
// offering transient-local durability.
func Latched(ch *record.Channel) bool {
	if l := ch.Metadata["latching"]; l == "1" || l == "true" {
		return true
	}
	return rosbag2.OffersTransientLocal(ch.Metadata["offered_qos_profiles"])
}
