package analysis

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Factory makes an empty accumulator of one kind with the options.
type Factory func(o Options) Analyzer

// Kind is one registered analysis.
type Kind struct {
	// Name is the kind on the command line ("placements"); not "all",
	// which names every kind.
	Name string
	// Summary says in one paragraph what the analysis reads and computes;
	// KindsHelp wraps it into the help text of `baglab analyze`.
	Summary string
	// New makes an empty accumulator.
	New Factory
}

var (
	analysesMu sync.RWMutex
	// analyses holds the kinds in the order the CLI shows them: the
	// built-in analyses, then those added with Register. A new built-in
	// analysis is one file plus one entry here.
	analyses = []Kind{
		{Name: "placements", New: func(o Options) Analyzer { return NewPlacements(o.Learn) },
			Summary: "interactive_world_msgs placements: per (item, room, surface, " +
				"reference frame) counts, means, spreads and circular rotation " +
				"statistics; a ranking of reference frames per item; the " +
				"placement models of the jinteractiveworld EM learner (5% rule, " +
				"rank_m decision value, sigmas); recorded Model/TaskModels " +
				"compared with the learned ones."},
		{Name: "grasps", New: func(o Options) Analyzer { return NewGrasps(o.WindowNs) },
			Summary: "rail_pick_and_place grasp models: successes/attempts, success " +
				"rates with Wilson 95% intervals per grasp, model and object " +
				"(untried grasps counted apart); GraspAndStore and " +
				"GetYesNoFeedback attempts and a learning curve over time."},
		{Name: "facts", New: func(Options) Analyzer { return NewFacts() },
			Summary: "toaster_msgs fact lists: the intervals each fact holds, their " +
				"durations and confidence-weighted durations."},
		{Name: "map", New: func(Options) Analyzer { return NewMap() },
			Summary: "lama_msgs topological maps: vertices, edges, dangling edges, " +
				"components, degrees; crossings; place profile areas."},
		{Name: "queries", New: func(Options) Analyzer { return NewQueries() },
			Summary: "remap_msgs Query service events (ROS2 service introspection): " +
				"calls, success rates, latencies per query id and pattern."},
	}
)

// Register adds an analysis kind after the built-in ones. The name must be
// new and not "all", and New must be set.
func Register(k Kind) error {
	analysesMu.Lock()
	defer analysesMu.Unlock()
	if k.Name == "" || k.Name == "all" || strings.ContainsAny(k.Name, " \t\n") || k.New == nil {
		return fmt.Errorf("%w: cannot register %q", ErrKind, k.Name)
	}
	for _, r := range analyses {
		if r.Name == k.Name {
			return fmt.Errorf("%w: %q is registered already", ErrKind, k.Name)
		}
	}
	analyses = append(analyses, k)
	return nil
}

// Kinds lists the analysis kinds in the order the CLI shows them.
func Kinds() []string {
	analysesMu.RLock()
	defer analysesMu.RUnlock()
	return kindsLocked()
}

// New returns an empty accumulator of the given kind.
func New(kind string, o Options) (Analyzer, error) {
	analysesMu.RLock()
	defer analysesMu.RUnlock()
	for _, r := range analyses {
		if r.Name == kind {
			return r.New(o), nil
		}
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrKind, kind, kindsLocked())
}

func kindsLocked() []string {
	out := make([]string, len(analyses))
	for i, r := range analyses {
		out[i] = r.Name
	}
	return out
}

// helpWidth is the width KindsHelp wraps summaries to.
const helpWidth = 76

// KindsHelp lists the registered kinds and then more (the CLI adds "all";
// their New is not used) as help text: one entry per kind, the name
// indented by two spaces, the summary beside it in a column wide enough
// for the longest name and wrapped at 76 columns; every line ends in a
// newline.
func KindsHelp(more ...Kind) string {
	analysesMu.RLock()
	kinds := append(append([]Kind(nil), analyses...), more...)
	analysesMu.RUnlock()
	col := 0
	for _, k := range kinds {
		col = max(col, utf8.RuneCountInString(k.Name))
	}
	indent := strings.Repeat(" ", 2+col+2)
	var b strings.Builder
	for _, k := range kinds {
		line := "  " + k.Name + strings.Repeat(" ", col-utf8.RuneCountInString(k.Name)) + "  "
		width, words := len(indent), 0
		for _, w := range strings.Fields(k.Summary) {
			n := utf8.RuneCountInString(w)
			if words > 0 && width+1+n > helpWidth {
				b.WriteString(line + "\n")
				line, width, words = indent, len(indent), 0
			}
			if words > 0 {
				line += " "
				width++
			}
			line += w
			width += n
			words++
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}
