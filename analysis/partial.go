package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Partial is an Analyzer whose accumulator state can be saved and loaded
// again, so that inputs analysed apart (in other processes, on other
// machines) merge into the result of one pass over all of them. Every
// built-in analysis implements it, each in its analysis's partial_*.go.
//
// The state holds what Add gathered, never a result: learners and
// statistics run at the merge, with the options given there. It does not
// depend on Options, so partials made with any analysis flags merge.
type Partial interface {
	Analyzer
	// MarshalState returns the accumulator's state as JSON.
	MarshalState() ([]byte, error)
	// UnmarshalState replaces the state of an empty accumulator with one
	// MarshalState returned.
	UnmarshalState(data []byte) error
}

// PartialFormat and PartialVersion identify a partial file. A reader
// refuses another format and a version above its own; version 1 is the
// layout of PartialFile and of the states documented in the partial_*.go
// files.
const (
	PartialFormat  = "baglab.analysis.partial"
	PartialVersion = 1
)

// PartialFile is the document `analyze KIND FILE... --partial OUT` writes:
// JSON, one object, with the accumulator states of the kinds over the
// inputs, merged in input order. Merging partials in the order of their
// inputs gives the result of one `analyze` over all the inputs in that
// order, byte for byte.
//
//	{"format": "baglab.analysis.partial", "version": 1,
//	 "baglab_version": "...", "kinds": ["grasps"],
//	 "inputs": [{"path": "a.bag", "format": "bag", "size": 1234, "sha256": "...",
//	             "start_ns": ..., "end_ns": ..., "message_count": 456}],
//	 "messages": 1234,
//	 "start_ns": 1714564800000000000, "last_ns": 1714565000000000000,
//	 "states": {"grasps": {...}}}
//
// messages counts the messages the analyses took, start_ns is the earliest
// start of the inputs (for plots' time axes), last_ns the latest log time
// taken. Floating-point numbers in states are JSON numbers that round-trip
// exactly, or the strings "NaN", "+Inf" and "-Inf" (see Num).
type PartialFile struct {
	Format        string                     `json:"format"`
	Version       int                        `json:"version"`
	BaglabVersion string                     `json:"baglab_version"`
	Kinds         []string                   `json:"kinds"`
	Inputs        []Input                    `json:"inputs"`
	Messages      int64                      `json:"messages"`
	StartNs       int64                      `json:"start_ns"`
	LastNs        int64                      `json:"last_ns"`
	States        map[string]json.RawMessage `json:"states"`
}

// ErrPartial marks a partial file that cannot be read or merged.
var ErrPartial = errors.New("analysis: bad partial")

// Partial returns the partial file of the accumulators: baglab version,
// the inputs read and the earliest start among them.
func (a *Accumulated) Partial(version string, inputs []Input, startNs int64) (*PartialFile, error) {
	p := &PartialFile{Format: PartialFormat, Version: PartialVersion, BaglabVersion: version, Kinds: a.Kinds,
		Inputs: inputs, Messages: a.Messages, StartNs: startNs, LastNs: a.LastNs, States: map[string]json.RawMessage{}}
	for i, an := range a.Set {
		pa, ok := an.(Partial)
		if !ok {
			return nil, fmt.Errorf("%w: analysis %s cannot save its state", ErrKind, a.Kinds[i])
		}
		st, err := pa.MarshalState()
		if err != nil {
			return nil, fmt.Errorf("analysis %s: state: %w", a.Kinds[i], err)
		}
		p.States[a.Kinds[i]] = st
	}
	return p, nil
}

// Write writes p as indented JSON.
func (p *PartialFile) Write(w io.Writer) error {
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadPartial reads a partial file; name is used in errors.
func ReadPartial(r io.Reader, name string) (*PartialFile, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var p PartialFile
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPartial, name, err)
	}
	if p.Format != PartialFormat {
		return nil, fmt.Errorf("%w: %s: format %q, want %q (written by analyze --partial)", ErrPartial, name, p.Format, PartialFormat)
	}
	if p.Version < 1 || p.Version > PartialVersion {
		return nil, fmt.Errorf("%w: %s: version %d (this baglab reads up to %d)", ErrPartial, name, p.Version, PartialVersion)
	}
	return &p, nil
}

// MergePartials merges the states of kinds from partials, in the order
// given, into fresh accumulators with options o. Every partial must hold
// every kind; names are used in errors.
func MergePartials(partials []*PartialFile, names []string, kinds []Kind, o Options) (*Accumulated, error) {
	set := newSet(kinds, o)
	acc := &Accumulated{Kinds: Names(kinds), Set: set}
	for i, p := range partials {
		for k, row := range kinds {
			kind := row.Name
			st, ok := p.States[kind]
			if !ok || !slices.Contains(p.Kinds, kind) {
				return nil, fmt.Errorf("%w: %s holds %v, not %s (make it with analyze %s ... --partial)", ErrPartial, names[i], p.Kinds, kind, kind)
			}
			pa, ok := row.New(o).(Partial)
			if !ok {
				return nil, fmt.Errorf("%w: analysis %s cannot load a state", ErrKind, kind)
			}
			if err := pa.UnmarshalState(st); err != nil {
				return nil, fmt.Errorf("%w: %s: %s state: %v", ErrPartial, names[i], kind, err)
			}
			if err := set[k].Merge(pa); err != nil {
				return nil, err
			}
		}
		acc.Messages += p.Messages
		acc.LastNs = max(acc.LastNs, p.LastNs)
	}
	return acc, nil
}

// StartNs is the earliest start_ns of partials with one (0 when none).
func StartNs(partials []*PartialFile) int64 {
	var start int64
	for _, p := range partials {
		if p.StartNs != 0 && (start == 0 || p.StartNs < start) {
			start = p.StartNs
		}
	}
	return start
}

// DecodeState unmarshals a state strictly: unknown fields are errors.
func DecodeState(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(v)
}
