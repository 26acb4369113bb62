package analysis

import (
	"fmt"
	"sync"
)

// Factory makes an empty accumulator of one kind with the options.
type Factory func(o Options) Analyzer

type registration struct {
	kind string
	make Factory
}

var (
	analysesMu sync.RWMutex
	// analyses holds the kinds in the order the CLI shows them: the
	// built-in analyses, then those added with Register. A new built-in
	// analysis is one file plus one line here.
	analyses = []registration{
		{"placements", func(o Options) Analyzer { return NewPlacements(o.Learn) }},
		{"grasps", func(o Options) Analyzer { return NewGrasps(o.WindowNs) }},
		{"facts", func(Options) Analyzer { return NewFacts() }},
		{"map", func(Options) Analyzer { return NewMap() }},
		{"queries", func(Options) Analyzer { return NewQueries() }},
	}
)

// Register adds an analysis kind after the built-in ones. The kind must be
// new and not "all" (which names every kind on the command line).
func Register(kind string, f Factory) error {
	analysesMu.Lock()
	defer analysesMu.Unlock()
	if kind == "" || kind == "all" || f == nil {
		return fmt.Errorf("%w: cannot register %q", ErrKind, kind)
	}
	for _, r := range analyses {
		if r.kind == kind {
			return fmt.Errorf("%w: %q is registered already", ErrKind, kind)
		}
	}
	analyses = append(analyses, registration{kind, f})
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
		if r.kind == kind {
			return r.make(o), nil
		}
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrKind, kind, kindsLocked())
}

func kindsLocked() []string {
	out := make([]string, len(analyses))
	for i, r := range analyses {
		out[i] = r.kind
	}
	return out
}
