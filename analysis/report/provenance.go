package report

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/internal/digest"
)

// Provenance says how a report was made, so a reader can make it again and
// check it was made from the same files.
type Provenance struct {
	// Version is the baglab version.
	Version string
	// GoVersion is the Go release baglab was built with.
	GoVersion string
	// Args is the command line, program name first.
	Args []string
	// Options are the options in effect, as name and value.
	Options []Option
	// Inputs are the recordings read, in the order given.
	Inputs []Input
	// Created is when the report was made.
	Created time.Time
}

// Option is one option in effect.
type Option struct {
	Name, Value string
	// Default tells the value was not given on the command line.
	Default bool
}

// Input describes one recording.
type Input struct {
	Path string
	// Format is the container format ("bag", "mcap", "db3").
	Format string
	// Size is the size in bytes (of every file for a folder).
	Size int64
	// SHA256 is the hex digest of the file; for a folder, of the listing
	// "<sha256>  <relative path>\n" of its files in path order, as
	// sha256sum prints it.
	SHA256 string
	// StartNs and EndNs are the first and last log times (ns since the
	// Unix epoch); Messages counts the messages.
	StartNs, EndNs int64
	Messages       uint64
	// Files lists the files of a folder with their digests.
	Files []File
}

// File is one file of a folder input.
type File struct {
	Path   string
	Size   int64
	SHA256 string
}

// NewProvenance describes a report made by baglab version from the
// command line args with options opts (listed given first) over inputs:
// each input is hashed and its summary read.
func NewProvenance(version string, args []string, opts []Option, inputs []string) (*Provenance, error) {
	var described []Input
	for _, path := range inputs {
		in, err := describeInput(path)
		if err != nil {
			return nil, err
		}
		described = append(described, in)
	}
	return ProvenanceOf(version, args, opts, described), nil
}

// ProvenanceOf describes a report made by baglab version from the command
// line args with options opts (listed given first) over inputs described
// already (a report of merged partials lists the inputs they were made
// from).
func ProvenanceOf(version string, args []string, opts []Option, inputs []Input) *Provenance {
	opts = slices.Clone(opts)
	slices.SortStableFunc(opts, func(a, b Option) int { return cmp.Compare(b2i(a.Default), b2i(b.Default)) }) // given first
	return &Provenance{Version: version, GoVersion: runtime.Version(), Args: args, Options: opts, Inputs: inputs, Created: time.Now().UTC()}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// StartNs is the earliest log time of the inputs (0 when none has one).
func (p *Provenance) StartNs() int64 {
	var start int64
	for _, in := range p.Inputs {
		if in.Messages > 0 && (start == 0 || in.StartNs < start) {
			start = in.StartNs
		}
	}
	return start
}

// CommandLine is Args quoted for a POSIX shell.
func (p *Provenance) CommandLine() string {
	q := make([]string, len(p.Args))
	for i, a := range p.Args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func describeInput(path string) (Input, error) {
	in := Input{Path: path}
	d, err := digest.Of(path)
	if err != nil {
		return in, err
	}
	in.Size, in.SHA256 = d.Size, d.SHA256
	for _, f := range d.Files {
		in.Files = append(in.Files, File(f))
	}
	paths, err := decode.Expand([]string{path}) // a plain folder: its recordings
	if err != nil {
		return in, err
	}
	var sums []*record.Summary
	for _, p := range paths {
		// Damage the analyses read past (--skip-bad) must not stop the
		// summary of what they read; without --skip-bad they stopped first.
		r, err := decode.OpenWith(p, decode.OpenOptions{OnSkip: func(error) {}})
		if err != nil {
			return in, err
		}
		s, err := r.Summary()
		r.Close()
		if err != nil {
			return in, err
		}
		sums = append(sums, s)
	}
	s := decode.CombineSummaries(sums)
	in.Format, in.StartNs, in.EndNs, in.Messages = s.Format, s.StartNs, s.EndNs, s.MessageCount
	return in, nil
}
