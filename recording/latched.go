package recording

import (
	"strings"

	"github.com/baglab/baglab/record"
)

// Latched reports whether a channel was latched, so that a late subscriber
// should get its last message: a ROS1 connection header with latching=1
// (or "true", as MCAP's ros1 profile writes it), or a ROS2 publisher
// offering transient-local durability.
func Latched(ch *record.Channel) bool {
	if l := ch.Metadata["latching"]; l == "1" || l == "true" {
		return true
	}
	qos := ch.Metadata["offered_qos_profiles"]
	return strings.Contains(qos, "transient_local") || strings.Contains(qos, "durability: 1\n") || strings.HasSuffix(qos, "durability: 1")
}
