//go:build !baglab_lean

package main

import "github.com/spf13/cobra"

// fullVerbs are the verbs that link Arrow, the plotting library or the
// analyses; the lean build (tag baglab_lean) leaves them out and hands
// them to baglab-full (see lean.go).
func fullVerbs() []verb {
	return []verb{
		{"export", newExportCmd},
		{"tf", newTFCmd},
		{"media", newMediaCmd},
		{"analyze", newAnalyzeCmd},
		{"report", newReportCmd},
		{"check", newCheckCmd},
	}
}

// handOff runs every command in this, the full build.
func handOff(*cobra.Command, []string) error { return nil }
