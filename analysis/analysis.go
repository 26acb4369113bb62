package analysis

import (
	"errors"
	"fmt"
	"sort"

	"github.com/baglab/baglab/decode/value"
)

// Message is one decoded message handed to an analysis.
type Message struct {
	// Topic is the topic the message was recorded on.
	Topic string
	// Type is the message type name as stored ("pkg/Type" or
	// "pkg/msg/Type"); when empty the type of Value is used.
	Type string
	// LogTime is the log time in ns since the Unix epoch.
	LogTime int64
	// Source names the file the message came from (used in warnings only).
	Source string
	// Value is the decoded message.
	Value *value.Struct
}

// Analyzer is a mergeable accumulator for one kind of analysis.
type Analyzer interface {
	// Kind is the analysis name ("placements", "grasps", ...).
	Kind() string
	// Wants reports whether messages of the given type can contribute, so a
	// caller can skip decoding the rest. typ is a "pkg/Type" or
	// "pkg/msg/Type" name.
	Wants(typ string) bool
	// Add feeds one message. Messages of types the analysis does not use are
	// ignored.
	Add(m *Message) error
	// Merge folds the state of other, an Analyzer of the same kind and
	// options, into the receiver. other must not be used afterwards.
	Merge(other Analyzer) error
	// Result computes the statistics of everything added and merged so far.
	Result() (Result, error)
}

// Result is the outcome of an analysis. It marshals to the JSON that
// `analyze --json` prints and `--baseline` reads.
type Result interface {
	// Kind is the analysis name.
	Kind() string
	// Tables returns the tidy tables of the result. Tables marked Detail
	// hold one row per observation and are left out of terminal output.
	Tables() []*Table
}

// ErrKind is returned for an unknown analysis kind or a Merge across kinds.
var ErrKind = errors.New("analysis: unknown or mismatched kind")

// Options configures the analyses. The zero value gives the defaults.
type Options struct {
	// Learn configures the placement model learner (analysis "placements").
	Learn LearnOptions
	// WindowNs is the width of a learning-curve window for "grasps"; 0 picks
	// a tenth of the attempts' time span rounded up to a whole second.
	WindowNs int64
}

// Kinds lists the analysis kinds in the order the CLI shows them.
func Kinds() []string {
	return []string{"placements", "grasps", "facts", "map", "queries"}
}

// New returns an empty accumulator of the given kind.
func New(kind string, o Options) (Analyzer, error) {
	switch kind {
	case "placements":
		return NewPlacements(o.Learn), nil
	case "grasps":
		return NewGrasps(o.WindowNs), nil
	case "facts":
		return NewFacts(), nil
	case "map":
		return NewMap(), nil
	case "queries":
		return NewQueries(), nil
	}
	return nil, fmt.Errorf("%w: %q (want one of %v)", ErrKind, kind, Kinds())
}

func mergeKindError(want string, got Analyzer) error {
	return fmt.Errorf("%w: cannot merge %s into %s", ErrKind, got.Kind(), want)
}

// messageType returns the canonical type name of m.
func messageType(m *Message) string {
	if m.Type != "" {
		return canonicalType(m.Type)
	}
	return baseType(m.Value)
}

// sortedKeys returns the keys of a string-keyed map in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// HasData reports whether r found anything to analyse in its input: a
// placement or recorded model, a grasp or grasp attempt, a fact interval, a
// map object or descriptor, a query call.
func HasData(r Result) bool {
	switch x := r.(type) {
	case *PlacementsResult:
		return x.Placements > 0 || len(x.Recorded) > 0
	case *GraspsResult:
		return len(x.Grasps) > 0 || len(x.Attempts) > 0 || x.Pending > 0
	case *FactsResult:
		return len(x.Intervals) > 0
	case *MapResult:
		return x.Vertices+x.Edges+x.OtherObjects+len(x.Crossings)+len(x.PlaceProfiles) > 0
	case *QueriesResult:
		return x.All.Calls > 0
	}
	return false
}
