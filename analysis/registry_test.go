package analysis

import (
	"strings"
	"testing"
)

// TestKindsHelpWraps: the column widens to the longest name; the wrap
// counts characters, not bytes (line 2 starts with an em dash and is 76
// wide). Wanted text from Python's textwrap.fill(width=76).
func TestKindsHelpWraps(t *testing.T) {
	help := KindsHelp(Kind{
		Name:    "dwell_times",
		Summary: "lama_msgs place visits: how long the robot stays in each room — entries, exits, dwell times per visit and per room, and the share of the recording spent there.",
	})
	for _, want := range []string{
		"  dwell_times  lama_msgs place visits: how long the robot stays in each room\n" +
			"               — entries, exits, dwell times per visit and per room, and the\n" +
			"               share of the recording spent there.\n",
		"  facts        toaster_msgs fact lists: the intervals each fact holds, their\n" +
			"               durations and confidence-weighted durations.\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("KindsHelp lacks\n%s\nin\n%s", want, help)
		}
	}
	if !strings.HasPrefix(help, "  placements   interactive_world_msgs") || !strings.HasSuffix(help, "spent there.\n") {
		t.Errorf("KindsHelp is not in registration order:\n%s", help)
	}
}

func TestKindsHelp(t *testing.T) {
	// The built-in kinds with the CLI's "all" entry: the text of
	// `baglab analyze --help`.
	want := `  placements  interactive_world_msgs placements: per (item, room, surface,
              reference frame) counts, means, spreads and circular rotation
              statistics; a ranking of reference frames per item; the
              placement models of the jinteractiveworld EM learner (5% rule,
              rank_m decision value, sigmas); recorded Model/TaskModels
              compared with the learned ones.
  grasps      rail_pick_and_place grasp models: successes/attempts, success
              rates with Wilson 95% intervals per grasp, model and object
              (untried grasps counted apart); GraspAndStore and
              GetYesNoFeedback attempts and a learning curve over time.
  facts       toaster_msgs fact lists: the intervals each fact holds, their
              durations and confidence-weighted durations.
  map         lama_msgs topological maps: vertices, edges, dangling edges,
              components, degrees; crossings; place profile areas.
  queries     remap_msgs Query service events (ROS2 service introspection):
              calls, success rates, latencies per query id and pattern.
  topics      topic health of any recording: per topic the count, rate,
              period median/p99/std, gaps (longer than --gap or 3x the
              median period), header-stamp latency, stamps going backwards,
              duplicate payloads, message sizes and bandwidth.
  all         every kind
`
	if got := KindsHelp(Kind{Name: "all", Summary: "every kind"}); got != want {
		t.Errorf("KindsHelp:\n%s\nwant:\n%s", got, want)
	}
}
