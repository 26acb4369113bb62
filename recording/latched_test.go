package recording

import (
	"testing"

	"github.com/baglab/baglab/record"
)

// TestLatched: latching as a bag's connection header spells it, as MCAP's
// ros1 profile spells it, and a ROS2 publisher's transient-local QoS.
func TestLatched(t *testing.T) {
	for _, c := range []struct {
		md   map[string]string
		want bool
	}{
		{map[string]string{"latching": "1"}, true},
		{map[string]string{"latching": "true"}, true},
		{map[string]string{"latching": "0"}, false},
		{map[string]string{"latching": "false"}, false},
		{nil, false},
		{map[string]string{"offered_qos_profiles": "- history: 1\n  durability: 1"}, true},
		{map[string]string{"offered_qos_profiles": "- history: 1\n  durability: transient_local"}, true},
		{map[string]string{"offered_qos_profiles": "- history: 1\n  durability: 2"}, false},
		// the second of two profiles; a name in capitals (as rmw's enum)
		{map[string]string{"offered_qos_profiles": "- durability: 2\n- durability: 1"}, true},
		{map[string]string{"offered_qos_profiles": "- durability: TRANSIENT_LOCAL"}, true},
		// a word in a profile that is not its durability; not YAML
		{map[string]string{"offered_qos_profiles": "- durability: volatile\n  note: transient_local"}, false},
		{map[string]string{"offered_qos_profiles": "- durability: [1"}, false},
	} {
		if got := Latched(&record.Channel{Metadata: c.md}); got != c.want {
			t.Errorf("Latched(%v) = %v", c.md, got)
		}
	}
}
