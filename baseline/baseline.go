package baseline

import (
	"fmt"
	"math"
)

// A baseline is a saved result document — `analyze --json` (an analysis
// result) or `info --json` (a dataset: message counts per topic, time
// spans, types, MD5s) — optionally carrying a "baseline" member with the
// tolerances and comments of its owner:
//
//	{
//	  "baseline": {
//	    "comment": "the 2024 study; EM decision values vary with the CPU",
//	    "tolerances": {
//	      "placements.models[*].decision_value": {"rel": 1e-3},
//	      "grasps.attempts.rows": {"abs": 5, "comment": "two flaky recordings"},
//	      "files[*].topics[*].frequency_hz": {"ignore": true}
//	    }
//	  },
//	  "kind": "all", ...
//	}
//
// The file may hold // line comments; those in the "baseline" member and
// before the document are kept by Update (the rest of the file is
// regenerated). A dataset baseline with a "baseline" member is written
// {"baseline": {...}, "kind": "dataset", "files": [...]}.

// Tolerance says how far one statistic may move: by Abs, or by Rel of the
// larger magnitude of old and new. Ignore leaves it out of the comparison.
type Tolerance struct {
	Rel     float64 `json:"rel,omitempty"`
	Abs     float64 `json:"abs,omitempty"`
	Ignore  bool    `json:"ignore,omitempty"`
	Comment string  `json:"comment,omitempty"`
	// floor lets any difference up to 1e-12 pass (the default tolerance).
	floor bool
}

func (t Tolerance) String() string {
	switch {
	case t.Ignore:
		return "ignored"
	case t.Rel > 0 && t.Abs > 0:
		return fmt.Sprintf("rel %g or abs %g", t.Rel, t.Abs)
	case t.Abs > 0:
		return fmt.Sprintf("abs %g", t.Abs)
	case t.Rel > 0:
		return fmt.Sprintf("rel %g", t.Rel)
	}
	return "exact"
}

// allows reports whether a and b are within t.
func (t Tolerance) allows(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return a == b
	}
	d := math.Abs(a - b)
	return (t.floor && d <= 1e-12) || d <= t.Abs || d <= t.Rel*math.Max(math.Abs(a), math.Abs(b))
}

// PathTolerance is the tolerance of the statistics whose paths match
// Pattern.
type PathTolerance struct {
	Pattern string
	Tolerance
	pat pathPattern
}

// Baseline is a parsed baseline document.
type Baseline struct {
	// Kind is the analysis kind ("all", "placements", …) or "dataset".
	Kind string
	// Comment is the "comment" of the baseline member.
	Comment string
	// Tolerances in file order; the first whose pattern matches a
	// statistic's path applies.
	Tolerances []PathTolerance

	sections []section
	keys     Keys   // the documented table keys
	raw      []byte // the file as read
	header   []byte // the text before the document
	meta     []byte // the "baseline" member's value as written
}

// section is one top-level part of a normalised document: an analysis
// kind ("placements") or "files" for a dataset.
type section struct {
	name string
	v    any
}
