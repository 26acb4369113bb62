package main

import (
	"context"
	"slices"
	"strings"

	"github.com/baglab/baglab/analysis"
	"github.com/spf13/cobra"
)

// analysisFlags are the flags analyze and report share: what to read, how
// to run, and the options of the analyses (analysis.Args).
type analysisFlags struct {
	read        readFlags
	a           analysis.Args
	fromPartial []string // --from-partial (partial.go)
}

func (f *analysisFlags) addFlags(cmd *cobra.Command) {
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
}

// placementsFlags and graspsFlags apply to one analysis only.
var (
	placementsFlags = []string{"prune", "prune-threshold", "theta", "seed", "no-learn"}
	graspsFlags     = []string{"window"}
)

// options validates the flags for the kinds to run and returns the
// analysis options.
func (f *analysisFlags) options(cmd *cobra.Command, kinds []string) (analysis.Options, error) {
	for _, c := range []struct {
		kind  string
		flags []string
	}{{"placements", placementsFlags}, {"grasps", graspsFlags}} {
		if slices.Contains(kinds, c.kind) {
			continue
		}
		for _, name := range c.flags {
			if cmd.Flags().Changed(name) {
				return analysis.Options{}, usageErrorf("--%s applies to the %s analysis (or all)", name, c.kind)
			}
		}
	}
	o, err := f.a.Options()
	if err != nil {
		return o, usageErrorf("%v", err)
	}
	return o, nil
}

// kindsList names the analysis kinds for help text: "a, b<last>c".
func kindsList(last string) string {
	k := analysis.Kinds()
	return strings.Join(k[:len(k)-1], ", ") + last + k[len(k)-1]
}

// analysisRun is the outcome of reading the inputs.
type analysisRun struct {
	// results in the order of the kinds asked for
	results []analysis.Result
	// lastNs is the latest log time of the messages analysed
	lastNs int64
	// startNs is when the earliest input starts (its summary's start)
	startNs int64
}

// runAnalyses reads files into the analyses of kinds (analysis.Run), or
// merges the --from-partial files, with the options f.options returned.
func runAnalyses(ctx context.Context, g *globalOptions, files []string, kinds []string, f *analysisFlags, opts analysis.Options) (*analysisRun, error) {
	acc, _, startNs, err := accumulate(ctx, g, files, kinds, f, opts)
	if err != nil {
		return nil, err
	}
	out, err := acc.Outcome()
	if err != nil {
		return nil, err
	}
	return &analysisRun{results: out.Results, lastNs: out.LastNs, startNs: startNs}, nil
}

// accumulate reads files into the accumulators of kinds
// (analysis.Accumulate), or merges the --from-partial files (returning the
// inputs they name); startNs is when the earliest input starts.
func accumulate(ctx context.Context, g *globalOptions, files []string, kinds []string, f *analysisFlags, opts analysis.Options) (acc *analysis.Accumulated, inputs []analysis.PartialInput, startNs int64, err error) {
	if len(f.fromPartial) > 0 {
		return mergePartials(f, kinds, opts)
	}
	want, err := analysis.Wanted(kinds, opts)
	if err != nil {
		return nil, nil, 0, usageErrorf("%v", err)
	}
	in, err := g.open(files, &f.read, "analyze", want)
	if err != nil {
		return nil, nil, 0, err
	}
	defer in.close()
	acc, err = analysis.Accumulate(ctx, in.Inputs, kinds, opts, f.a.Jobs)
	if err != nil {
		return nil, nil, 0, err
	}
	if acc.Messages == 0 {
		g.note("baglab: no message read is of a type the %s analysis uses (see --topics, --start, --end)", strings.Join(kinds, ", "))
	}
	return acc, nil, in.Summary().StartNs, nil
}
