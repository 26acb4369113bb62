package rosbag2

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// LatchedQoS is the offered QoS profile list rosbags-convert writes for a
// latched ROS1 connection, in metadata.yaml version 9's form: reliable,
// transient-local (what a late subscriber needs, as tf_static does),
// history unknown with depth 0, durations at their "infinite" values.
const LatchedQoS = `- history: unknown
  depth: 0
  reliability: reliable
  durability: transient_local
  deadline:
    sec: 2147483647
    nsec: 4294967295
  lifespan:
    sec: 2147483647
    nsec: 4294967295
  liveliness: automatic
  liveliness_lease_duration:
    sec: 2147483647
    nsec: 4294967295
  avoid_ros_namespace_conventions: false`

// The names of each QoS policy's values, by rmw's enum value (rmw/types.h:
// rmw_qos_history_policy_e and the others), as metadata.yaml version 9
// writes them.
var (
	historyNames     = []string{"system_default", "keep_last", "keep_all", "unknown"}
	reliabilityNames = []string{"system_default", "reliable", "best_effort", "unknown", "best_available"}
	durabilityNames  = []string{"system_default", "transient_local", "volatile", "unknown", "best_available"}
	livelinessNames  = []string{"system_default", "automatic", "manual_by_node", "manual_by_topic", "unknown", "best_available"}
)

// qosProfile is one offered QoS profile as rosbag2 writes it, its policies
// as enum values or names.
type qosProfile struct {
	History                      yaml.Node `yaml:"history"`
	Depth                        *uint64   `yaml:"depth"`
	Reliability                  yaml.Node `yaml:"reliability"`
	Durability                   yaml.Node `yaml:"durability"`
	Deadline                     *qosTime  `yaml:"deadline"`
	Lifespan                     *qosTime  `yaml:"lifespan"`
	Liveliness                   yaml.Node `yaml:"liveliness"`
	LivelinessLeaseDuration      *qosTime  `yaml:"liveliness_lease_duration"`
	AvoidROSNamespaceConventions bool      `yaml:"avoid_ros_namespace_conventions"`
}

type qosTime struct {
	Sec  *int64 `yaml:"sec"`
	Nsec *int64 `yaml:"nsec"`
}

// OfferedQoS returns the offered QoS profiles qos lists in metadata.yaml
// version 9's form, the form Writer takes. qos is the YAML text of a list
// of profiles as rosbag2 writes it into metadata.yaml (a string before
// version 9, a list since), an MCAP channel's metadata or a .db3's topics
// table: each policy as rmw's enum value (reliability: 1) or its
// lowercase name (reliability: reliable). A value neither names becomes
// unknown, as rosbags reads it; depths and durations are kept as they are.
// An empty list is "", as is qos empty. A profile that lacks its depth or
// a duration is an error naming it.
func OfferedQoS(qos string) (string, error) {
	var profiles []qosProfile
	if err := yaml.Unmarshal([]byte(qos), &profiles); err != nil {
		return "", fmt.Errorf("offered_qos_profiles: %w", err)
	}
	var b strings.Builder
	for i, p := range profiles {
		for _, f := range []struct {
			name string
			t    *qosTime
		}{{"deadline", p.Deadline}, {"lifespan", p.Lifespan}, {"liveliness_lease_duration", p.LivelinessLeaseDuration}} {
			if f.t == nil || f.t.Sec == nil || f.t.Nsec == nil {
				return "", fmt.Errorf("offered_qos_profiles[%d].%s: missing, or without sec and nsec", i, f.name)
			}
		}
		if p.Depth == nil {
			return "", fmt.Errorf("offered_qos_profiles[%d].depth: missing", i)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "- history: %s\n  depth: %d\n  reliability: %s\n  durability: %s\n",
			policyName(&p.History, historyNames), *p.Depth, policyName(&p.Reliability, reliabilityNames), policyName(&p.Durability, durabilityNames))
		fmt.Fprintf(&b, "  deadline:\n    sec: %d\n    nsec: %d\n  lifespan:\n    sec: %d\n    nsec: %d\n",
			*p.Deadline.Sec, *p.Deadline.Nsec, *p.Lifespan.Sec, *p.Lifespan.Nsec)
		fmt.Fprintf(&b, "  liveliness: %s\n  liveliness_lease_duration:\n    sec: %d\n    nsec: %d\n  avoid_ros_namespace_conventions: %t",
			policyName(&p.Liveliness, livelinessNames), *p.LivelinessLeaseDuration.Sec, *p.LivelinessLeaseDuration.Nsec, p.AvoidROSNamespaceConventions)
	}
	return b.String(), nil
}

// OffersTransientLocal reports whether one of the offered QoS profiles qos
// lists (in any of the forms OfferedQoS reads, other policies left out or
// not) has transient-local durability: the publisher keeps its last
// messages for a late subscriber, as a latched ROS1 one does.
func OffersTransientLocal(qos string) bool {
	if qos == "" {
		return false // a ROS1 connection's: no profiles to parse
	}
	var profiles []struct {
		Durability yaml.Node `yaml:"durability"`
	}
	if yaml.Unmarshal([]byte(qos), &profiles) != nil {
		return false
	}
	for _, p := range profiles {
		if policyName(&p.Durability, durabilityNames) == "transient_local" {
			return true
		}
	}
	return false
}

// policyName is the name of a policy's value given as its enum value or
// its name (in any case), or "unknown".
func policyName(n *yaml.Node, names []string) string {
	if n.Kind != yaml.ScalarNode {
		return "unknown"
	}
	if v, err := strconv.ParseUint(n.Value, 10, 8); err == nil {
		if int(v) < len(names) {
			return names[v]
		}
		return "unknown"
	}
	for _, name := range names {
		if strings.EqualFold(n.Value, name) {
			return name
		}
	}
	return "unknown"
}
