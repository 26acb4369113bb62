//go:build !baglab_lean

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

// analysisFlags are the flags analyze and report share: what to read, how
// to run, and the options of the analyses (analysis.Args).
type analysisFlags struct {
	read        readFlags
	a           analysis.Args
	fromPartial []string // --from-partial (partial.go)
}

// addFlags adds the flags to cmd, a verb that runs analyses (analyze,
// report, check), and makes its RunE (which must be set) run under the
// soft memory limit an analysis of --jobs inputs at once needs
// (analysis.MemoryLimit), its outputs included: the one place where these
// verbs get it.
func (f *analysisFlags) addFlags(cmd *cobra.Command) {
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		defer softMemoryLimit(analysis.MemoryLimit(f.a.Jobs) + remoteMemory(f.a.Jobs, args))()
		// --from-partial s3://bucket/parts/ reads every partial there.
		local, cleanup, err := localInputs(cmd.Context(), nil, f.fromPartial, ".json")
		if err != nil {
			return err
		}
		defer cleanup()
		f.fromPartial = local
		return run(cmd, args)
	}
	f.read.addFlags(cmd)
	f.a = analysis.DefaultArgs()
	fl := cmd.Flags()
	fl.IntVarP(&f.a.Jobs, "jobs", "j", f.a.Jobs, "files read in parallel (each into its own accumulators, merged exactly), and placement groups learned in parallel")
	fl.BoolVar(&f.a.Prune, "prune", f.a.Prune, "placements: apply the 5% rule (--prune=false keeps every group)")
	fl.Float64Var(&f.a.PruneThreshold, "prune-threshold", f.a.PruneThreshold, "placements: prune groups with fewer than this share of the placements")
	fl.StringVar(&f.a.Theta, "theta", f.a.Theta, "placements: rotation handling in the learner, linear (as the original) or circular")
	fl.Int32Var(&f.a.Seed, "seed", f.a.Seed, "placements: random seed of the EM learner (Weka's -S)")
	fl.BoolVar(&f.a.NoLearn, "no-learn", f.a.NoLearn, "placements: statistics only, learn no models")
	fl.DurationVar(&f.a.Window, "window", f.a.Window, "grasps: width of a learning-curve window, e.g. 30s (0: a tenth of the attempts' span)")
	f.a.Flags = map[string]string{}
	for _, k := range kinds.All() {
		for _, kf := range k.Flags {
			fl.Var(&kindFlag{f: kf, texts: f.a.Flags}, kf.Name, k.Name+": "+kf.Usage)
			fl.Lookup(kf.Name).DefValue = kf.Default // help leaves a zero default out, as for its own flags
		}
	}
}

// kindFlag is an analysis's own flag (analysis.Flag): the text given,
// checked with its Parse, goes to Args.Flags.
type kindFlag struct {
	f     analysis.Flag
	texts map[string]string
}

// String is the value as the report's options table shows it (a
// time.Duration as 1.5s).
func (k *kindFlag) String() string {
	t, ok := k.texts[k.f.Name]
	if !ok {
		t = k.f.Default
	}
	if v, err := k.f.Parse(t); err == nil {
		if s, ok := v.(fmt.Stringer); ok {
			return s.String()
		}
	}
	return t
}

func (k *kindFlag) Set(s string) error {
	if _, err := k.f.Parse(s); err != nil {
		return err
	}
	k.texts[k.f.Name] = s
	return nil
}

func (k *kindFlag) Type() string { return k.f.Type }

// placementsFlags and graspsFlags apply to one analysis only.
var (
	placementsFlags = []string{"prune", "prune-threshold", "theta", "seed", "no-learn"}
	graspsFlags     = []string{"window"}
)

// options validates the flags for the kinds to run and returns the
// analysis options.
func (f *analysisFlags) options(cmd *cobra.Command, run []analysis.Kind) (analysis.Options, error) {
	type only struct {
		kind  string
		flags []string
	}
	owned := []only{{"placements", placementsFlags}, {"grasps", graspsFlags}}
	for _, k := range kinds.All() {
		for _, kf := range k.Flags {
			owned = append(owned, only{k.Name, []string{kf.Name}})
		}
	}
	names := analysis.Names(run)
	for _, c := range owned {
		if slices.Contains(names, c.kind) {
			continue
		}
		for _, name := range c.flags {
			if cmd.Flags().Changed(name) {
				return analysis.Options{}, usageErrorf("--%s applies to the %s analysis (or all)", name, c.kind)
			}
		}
	}
	o, err := f.a.Options(run)
	if err != nil {
		return o, usageErrorf("%v", err)
	}
	return o, nil
}

// analysisRun is the outcome of reading the inputs.
type analysisRun struct {
	// acc holds what the analyses gathered
	acc *analysis.Accumulated
	// results in the order of the kinds asked for (none with stateOnly)
	results []analysis.Result
	// lastNs is the latest log time of the messages analysed
	lastNs int64
	// startNs is when the earliest input starts (its summary's start)
	startNs int64
	// inputs are the inputs read, as runWith.describe described them, or
	// those the merged --from-partial files were made from
	inputs []analysis.Input
}

// runWith is what a verb needs of runAnalyses besides the results.
type runWith struct {
	// stateOnly stops at the accumulators' state (analyze --partial): no
	// results, the learner does not run.
	stateOnly bool
	// describe, when set, describes the inputs read (analysis.DescribeInputs
	// or DescribePaths) from what the run read of them.
	describe func(*recording.Inputs) ([]analysis.Input, error)
}

// runAnalyses reads files into the analyses of kinds (analysis.Accumulate
// and Outcome), or merges the --from-partial files, with the options
// f.options returned.
func runAnalyses(ctx context.Context, g *globalOptions, files []string, kinds []analysis.Kind, f *analysisFlags, opts analysis.Options, w runWith) (*analysisRun, error) {
	run, err := accumulate(ctx, g, files, kinds, f, opts, w.describe)
	if err != nil || w.stateOnly {
		return run, err
	}
	out, err := run.acc.Outcome()
	if err != nil {
		return nil, err
	}
	run.results, run.lastNs = out.Results, out.LastNs
	return run, nil
}

// accumulate reads files into the accumulators of kinds
// (analysis.Accumulate) and describes them with describe, if set, or
// merges the --from-partial files.
func accumulate(ctx context.Context, g *globalOptions, files []string, kinds []analysis.Kind, f *analysisFlags, opts analysis.Options, describe func(*recording.Inputs) ([]analysis.Input, error)) (*analysisRun, error) {
	if len(f.fromPartial) > 0 {
		return mergePartials(f, kinds, opts)
	}
	in, err := g.open(files, &f.read, "analyze", analysis.Wanted(kinds, opts))
	if err != nil {
		return nil, err
	}
	run := &analysisRun{startNs: in.Summary().StartNs}
	run.acc, err = analysis.Accumulate(ctx, in.Inputs, kinds, opts, f.a.Jobs)
	if err == nil && run.acc.Messages == 0 {
		g.note("baglab: no message read is of a type the %s analysis uses (see --topics, --start, --end)", strings.Join(analysis.Names(kinds), ", "))
	}
	in.close()
	if err != nil {
		return nil, err
	}
	if describe != nil { // from the summaries the inputs keep once closed; the digests read the files
		if run.inputs, err = describe(in.Inputs); err != nil {
			return nil, err
		}
	}
	return run, nil
}
