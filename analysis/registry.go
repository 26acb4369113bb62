package analysis

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/baglab/baglab/baseline"
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
	// Keys documents the identity of the rows of each table of the
	// kind's result, as `check --baseline` matches them; a new table is
	// one entry here (TestEveryTableHasAKey fails until it has one).
	Keys baseline.Keys
}

// analyses holds the kinds in the order the CLI shows them. A new
// analysis declares its Kind, with its tables' keys, in its own file and
// adds one row here.
var analyses = []Kind{placementsKind, graspsKind, factsKind, mapKind, queriesKind, topicsKind}

// Kinds lists the analysis kinds in the order the CLI shows them.
func Kinds() []string {
	out := make([]string, len(analyses))
	for i, r := range analyses {
		out[i] = r.Name
	}
	return out
}

// New returns an empty accumulator of the given kind.
func New(kind string, o Options) (Analyzer, error) {
	for _, r := range analyses {
		if r.Name == kind {
			return r.New(o), nil
		}
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrKind, kind, Kinds())
}

// TableKeys returns the documented keys of the tables of every kind's
// result, in the order of the kinds: what a baseline comparison matches
// rows by (see baseline.Keys).
func TableKeys() baseline.Keys {
	var out baseline.Keys
	for _, k := range analyses {
		out = append(out, k.Keys...)
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
	kinds := append(append([]Kind(nil), analyses...), more...)
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
