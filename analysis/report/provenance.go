package report

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis"
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
	Inputs []analysis.Input
	// Created is when the report was made (shown to the second): the only
	// part of a page that differs between runs over the same inputs with
	// the same arguments.
	Created time.Time
}

// Option is one option in effect.
type Option struct {
	Name, Value string
	// Default tells the value was not given on the command line.
	Default bool
	// Results tells the option changes the numbers of the report.
	Results bool
}

// NewProvenance describes a report made by baglab version from the
// command line args with options opts (listed given first) over inputs,
// described by the run that read them (analysis.DescribePaths) or by the
// partial files it merged (analysis.MergePartialFiles).
func NewProvenance(version string, args []string, opts []Option, inputs []analysis.Input) *Provenance {
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
		if in.MessageCount > 0 && (start == 0 || in.StartNs < start) {
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
