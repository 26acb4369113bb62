package analysis

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// dwell stands for an analysis a Go user adds; the test never feeds it.
type dwell struct{ Analyzer }

// registerForTest registers k and removes it again when the test ends.
func registerForTest(t *testing.T, k Kind) {
	t.Helper()
	analysesMu.RLock()
	saved := slices.Clone(analyses)
	analysesMu.RUnlock()
	t.Cleanup(func() {
		analysesMu.Lock()
		analyses = saved
		analysesMu.Unlock()
	})
	if err := Register(k); err != nil {
		t.Fatal(err)
	}
}

func TestRegister(t *testing.T) {
	registerForTest(t, Kind{
		Name:    "dwell_times",
		Summary: "lama_msgs place visits: how long the robot stays in each room — entries, exits, dwell times per visit and per room, and the share of the recording spent there.",
		New:     func(Options) Analyzer { return dwell{} },
	})
	if got, err := KindsOf("all"); err != nil || !slices.Equal(got, []string{"placements", "grasps", "facts", "map", "queries", "dwell_times"}) {
		t.Errorf("KindsOf(all) = %v, %v", got, err)
	}
	if got, err := KindsOf("dwell_times"); err != nil || !slices.Equal(got, []string{"dwell_times"}) {
		t.Errorf("KindsOf(dwell_times) = %v, %v", got, err)
	}
	if a, err := New("dwell_times", Options{}); err != nil {
		t.Error(err)
	} else if _, ok := a.(dwell); !ok {
		t.Errorf("New(dwell_times) = %T", a)
	}
	// The column widens to the longest name; the wrap counts characters,
	// not bytes (line 2 starts with an em dash and is 76 wide). Wanted
	// text from Python's textwrap.fill(width=76).
	help := KindsHelp()
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
  all         every kind
`
	if got := KindsHelp(Kind{Name: "all", Summary: "every kind"}); got != want {
		t.Errorf("KindsHelp:\n%s\nwant:\n%s", got, want)
	}
}

func TestRegisterRejects(t *testing.T) {
	f := func(Options) Analyzer { return dwell{} }
	for _, k := range []Kind{
		{Name: "", New: f},
		{Name: "all", New: f},
		{Name: "dwell times", New: f},
		{Name: "facts", New: f},
		{Name: "dwell"},
	} {
		if err := Register(k); !errors.Is(err, ErrKind) {
			t.Errorf("Register(%q, New set: %v) = %v, want ErrKind", k.Name, k.New != nil, err)
		}
	}
	if got := Kinds(); !slices.Equal(got, []string{"placements", "grasps", "facts", "map", "queries"}) {
		t.Errorf("Kinds after rejected registrations = %v", got)
	}
}
