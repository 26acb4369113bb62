package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baglab/baglab/baseline"
)

// Factory makes an empty accumulator of one kind with the options.
type Factory func(o Options) Analyzer

// Kind is one analysis as the registry (package analysis/kinds) lists it:
// everything the framework and the CLI need of it, so that a new analysis
// is its own package and one row there.
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
	// Raw marks an analysis that reads messages as recorded — topic,
	// type, log time, Data and Decoder, never Value — so a run decodes
	// nothing for it. It is handed every message of a type it wants,
	// before any decoding, including those of channels no analysis could
	// decode.
	Raw bool
	// Flags are the analysis's own command-line options.
	Flags []Flag
}

// Flag is a command-line option of one analysis, declared in its Kind:
// the verbs that run analyses offer --Name, refuse it when the analysis
// does not run, and hand its value to the Factory in Options.Flags.
type Flag struct {
	// Name is the flag without its dashes ("gap").
	Name string
	// Type names the value in help ("duration").
	Type string
	// Usage is the help line; Default is the text of the value when the
	// flag is not given.
	Usage, Default string
	// Parse turns the text given into the value; its error says what is
	// wrong with the text.
	Parse func(text string) (any, error)
}

// DurationFlag is a flag holding a time.Duration that is not negative,
// 0 when not given.
func DurationFlag(name, usage string) Flag {
	return Flag{Name: name, Type: "duration", Usage: usage, Default: "0", Parse: func(s string) (any, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, err
		}
		if d < 0 {
			return nil, fmt.Errorf("must not be negative")
		}
		return d, nil
	}}
}

// Names are the names of kinds, in order.
func Names(kinds []Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name
	}
	return out
}

// Select expands an analysis kind among kinds: "all" names every one.
func Select(kinds []Kind, kind string) ([]Kind, error) {
	if kind == "all" {
		return kinds, nil
	}
	if i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == kind }); i >= 0 {
		return kinds[i : i+1], nil
	}
	return nil, fmt.Errorf("unknown analysis %q (want one of %s, or all)", kind, strings.Join(Names(kinds), ", "))
}

// TableKeys returns the documented keys of the tables of kinds' results,
// in order: what a baseline comparison matches rows by (see
// baseline.Keys).
func TableKeys(kinds []Kind) baseline.Keys {
	var out baseline.Keys
	for _, k := range kinds {
		out = append(out, k.Keys...)
	}
	return out
}

// helpWidth is the width KindsHelp wraps summaries to.
const helpWidth = 76

// KindsHelp lists kinds (the registered ones and then more, such as the
// CLI's "all", whose New is not used) as help text: one entry per kind,
// the name indented by two spaces, the summary beside it in a column wide
// enough for the longest name and wrapped at 76 columns; every line ends
// in a newline.
func KindsHelp(kinds ...Kind) string {
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
