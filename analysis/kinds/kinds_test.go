package kinds

import (
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/plot"
	"github.com/baglab/baglab/analysis/topics"
)

func TestOf(t *testing.T) {
	if got, err := Of("all"); err != nil || !slices.Equal(analysis.Names(got), []string{"placements", "grasps", "facts", "map", "queries", "topics"}) {
		t.Errorf("all: %v, %v", analysis.Names(got), err)
	}
	if got, err := Of("facts"); err != nil || !slices.Equal(analysis.Names(got), []string{"facts"}) {
		t.Errorf("facts: %v, %v", analysis.Names(got), err)
	}
	_, err := Of("placement")
	if err == nil || err.Error() != `unknown analysis "placement" (want one of placements, grasps, facts, map, queries, topics, or all)` {
		t.Errorf("placement: %v", err)
	}
}

// TestEmptyResultsHaveNoData: no kind finds data in nothing.
func TestEmptyResultsHaveNoData(t *testing.T) {
	for _, k := range All() {
		r, err := k.New(analysis.Options{}).Result()
		if err != nil {
			t.Fatal(err)
		}
		if analysis.HasData(r) {
			t.Errorf("%s: empty result has data", k.Name)
		}
	}
}

// TestHelpWraps: the column widens to the longest name; the wrap counts
// characters, not bytes (line 2 starts with an em dash and is 76 wide).
// Wanted text from Python's textwrap.fill(width=76).
func TestHelpWraps(t *testing.T) {
	help := Help(analysis.Kind{
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
			t.Errorf("Help lacks\n%s\nin\n%s", want, help)
		}
	}
	if !strings.HasPrefix(help, "  placements   interactive_world_msgs") || !strings.HasSuffix(help, "spent there.\n") {
		t.Errorf("Help is not in registration order:\n%s", help)
	}
}

func TestHelp(t *testing.T) {
	// The registered kinds with the CLI's "all" entry: the text of
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
	if got := Help(analysis.Kind{Name: "all", Summary: "every kind"}); got != want {
		t.Errorf("Help:\n%s\nwant:\n%s", got, want)
	}
}

// TestFigures: each row draws its kind's figures (the topic timeline for
// topics), none for results without data.
func TestFigures(t *testing.T) {
	var empty []analysis.Result
	for _, k := range All() {
		r, err := k.New(analysis.Options{}).Result()
		if err != nil {
			t.Fatal(err)
		}
		empty = append(empty, r)
	}
	if figs := Figures(empty, plot.Options{}); len(figs) != 0 {
		t.Errorf("%d figures of results without data", len(figs))
	}
	r := &topics.Result{KindName: "topics", Topics: []topics.Stat{{Topic: "/a", Count: 2, FirstNs: 1e9, LastNs: 2e9}}}
	if figs := Figures([]analysis.Result{r}, plot.Options{}); len(figs) != 1 || figs[0].Name != "topic_timeline" {
		t.Errorf("topics: %d figures", len(figs))
	}
}
