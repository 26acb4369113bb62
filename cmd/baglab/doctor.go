package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	g        *globalOptions
	files    []string
	json     bool
	noDecode bool
	strict   bool
}

func newDoctorCmd(g *globalOptions) *cobra.Command {
	o := &doctorOptions{g: g}
	cmd := &cobra.Command{
		Use:   "doctor FILE...",
		Short: "Check recordings: structure, CRCs, index, definitions and MD5s",
		Long: `Check each recording thoroughly: record structure, CRCs (MCAP), chunk
decompression, index and summary consistency with the content, each
channel's definition (parses, and for ROS1 its MD5 agrees with the stored
md5sum), and — unless --no-decode — that every message decodes with its
definition. Prints each problem with its byte offset; damage that a repair
can undo names the command (reindex for bags, recover for MCAP).

Errors are damage or inconsistencies; warnings are things the formats allow
but that cost something (an MCAP without a summary section, a bag whose
index was never written).

Exit 0 when no errors were found (warnings alone, unless --strict), 1 when
problems were found, 3 when a file cannot be read at all. --json prints one
array of {"file","offset","severity","message"} for all the files.`,
		Example: "  baglab doctor demo/data/study.bag\n  baglab doctor --json demo/data/study.mcap demo/data/study-*.bag\n  baglab doctor --strict --no-decode demo/data/*.mcap\n  baglab doctor demo/data/broken/study-crc.mcap    # exit 1",
		Args:    argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			return runDoctor(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the problems as one JSON array")
	cmd.Flags().BoolVar(&o.noDecode, "no-decode", false, "skip decoding every message")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1 on warnings too")
	return cmd
}

func runDoctor(ctx context.Context, o *doctorOptions) error {
	all := []recording.FileProblem{}
	failed, unreadable := false, false
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	var bar *progress // while a file decodes
	endBar := func() {
		if bar != nil {
			bar.done()
			bar = nil
		}
	}
	defer endBar()
	co := recording.CheckOptions{Registry: reg, Distro: o.g.distro, NoDecode: o.noDecode, Remote: o.g.remote, Progress: func(total int64) func(int) {
		bar = newProgress(o.g, total, "decode")
		return bar.add
	}}
	err = recording.CheckEach(ctx, o.files, co, func(file string, probs []recording.FileProblem, err error) error {
		endBar()
		if err != nil {
			// The file cannot be read at all: report it like a problem so
			// that --json consumers see it, and exit 3 at the end.
			if len(o.files) == 1 && !o.json {
				return err
			}
			probs = []recording.FileProblem{recording.UnreadableProblem(file, err)}
			unreadable = true
		}
		for _, p := range probs {
			failed = failed || p.IsError() || o.strict
		}
		all = append(all, probs...)
		if !o.json {
			for _, p := range probs {
				fmt.Fprintln(o.g.stdout, p)
			}
			if len(probs) == 0 {
				fmt.Fprintf(o.g.stdout, "%s: ok\n", file)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(o.g.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return err
		}
	}
	switch {
	case unreadable:
		return &exitError{code: exitBadInput}
	case failed:
		return errProblemsFound
	}
	return nil
}
