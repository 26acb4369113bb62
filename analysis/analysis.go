package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
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
	// Value is the decoded message; nil for a Raw kind unless another
	// analysis of the run decoded it.
	Value *value.Struct
	// Data is the message as recorded (serialized), valid during Add only.
	Data []byte
	// Encoding is the channel's message encoding ("ros1", "cdr", "json").
	Encoding string
	// Decoder decodes Data (nil for an encoding no analysis decodes, such
	// as JSON).
	Decoder decode.Decoder
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
	// Summary is the result in one line for people (the headline of
	// `analyze` and of a report section).
	Summary() string
	// HasData reports whether the input held anything this analysis
	// uses; `analyze all` and `report` leave out results without.
	HasData() bool
	// Warnings are notes about the data a reader should see (none: nil).
	Warnings() []string
}

// ModelWriter is a Result that can write what it learned as a recording a
// robot loads (placements: one latched interactive_world_msgs/TaskModels
// message), for `analyze --models-out`.
type ModelWriter interface {
	// WriteModels writes the models into w on topic at log time at, with
	// the message definitions of reg, and returns how many it wrote.
	WriteModels(w record.Writer, reg *msgdef.Registry, topic string, at int64) (int, error)
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
	// Flags are the values of the kinds' own flags (Kind.Flags) by name,
	// as their Parse returned them; a flag not given has its Default's.
	Flags map[string]any
}

// MergeKindError is the error of Merge for other, an Analyzer of another
// kind than want.
func MergeKindError(want string, got Analyzer) error {
	return fmt.Errorf("%w: cannot merge %s into %s", ErrKind, got.Kind(), want)
}

// messageType returns the canonical type name of m.
func messageType(m *Message) string {
	if m.Type != "" {
		return canonicalType(m.Type)
	}
	return baseType(m.Value)
}

// SortedKeys returns the keys of a string-keyed map in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// HasData reports whether r is a result that found data (false for nil).
func HasData(r Result) bool { return r != nil && r.HasData() }

// RoundSig rounds x to 4 significant digits for people.
func RoundSig(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
