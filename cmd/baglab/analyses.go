package main

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/spf13/cobra"
)

// analysisFlags are the flags analyze and report share: what to read, how
// to run, and the options of the analyses.
type analysisFlags struct {
	read           readFlags
	jobs           int
	prune          bool
	pruneThreshold float64
	theta          string
	seed           int32
	noLearn        bool
	window         time.Duration
	fromPartial    []string // --from-partial (partial.go)
}

func (f *analysisFlags) addFlags(cmd *cobra.Command) {
	f.read.addFlags(cmd)
	fl := cmd.Flags()
	fl.IntVarP(&f.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "files read in parallel (each into its own accumulators, merged exactly), and placement groups learned in parallel")
	fl.BoolVar(&f.prune, "prune", true, "placements: apply the 5% rule (--prune=false keeps every group)")
	fl.Float64Var(&f.pruneThreshold, "prune-threshold", 0.05, "placements: prune groups with fewer than this share of the placements")
	fl.StringVar(&f.theta, "theta", "linear", "placements: rotation handling in the learner, linear (as the original) or circular")
	fl.Int32Var(&f.seed, "seed", 100, "placements: random seed of the EM learner (Weka's -S)")
	fl.BoolVar(&f.noLearn, "no-learn", false, "placements: statistics only, learn no models")
	fl.DurationVar(&f.window, "window", 0, "grasps: width of a learning-curve window, e.g. 30s (0: a tenth of the attempts' span)")
}

// placementsFlags and graspsFlags apply to one analysis only.
var (
	placementsFlags = []string{"prune", "prune-threshold", "theta", "seed", "no-learn"}
	graspsFlags     = []string{"window"}
)

// options validates the flags for the kinds to run and returns the
// analysis options.
func (f *analysisFlags) options(cmd *cobra.Command, kinds []string) (analysis.Options, error) {
	var o analysis.Options
	for _, c := range []struct {
		kind  string
		flags []string
	}{{"placements", placementsFlags}, {"grasps", graspsFlags}} {
		if slices.Contains(kinds, c.kind) {
			continue
		}
		for _, name := range c.flags {
			if cmd.Flags().Changed(name) {
				return o, usageErrorf("--%s applies to the %s analysis (or all)", name, c.kind)
			}
		}
	}
	switch f.theta {
	case "linear":
		o.Learn.Theta = analysis.ThetaLinear
	case "circular":
		o.Learn.Theta = analysis.ThetaCircular
	default:
		return o, usageErrorf("--theta %q: want linear or circular", f.theta)
	}
	switch {
	case !f.prune:
		o.Learn.PruneFraction = -1
	case f.pruneThreshold <= 0 || f.pruneThreshold >= 1 || math.IsNaN(f.pruneThreshold):
		return o, usageErrorf("--prune-threshold %v: want a share between 0 and 1 (use --prune=false to keep every group)", f.pruneThreshold)
	default:
		o.Learn.PruneFraction = f.pruneThreshold
	}
	if f.seed == 0 {
		return o, usageErrorf("--seed 0: Weka's EM takes a non-zero seed")
	}
	o.Learn.Seed = f.seed
	o.Learn.Disable = f.noLearn
	o.Learn.Workers = f.jobs
	if f.window < 0 {
		return o, usageErrorf("--window must not be negative")
	}
	o.WindowNs = int64(f.window)
	if f.jobs < 1 {
		return o, usageErrorf("--jobs must be at least 1")
	}
	return o, nil
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
	acc, err = analysis.Accumulate(ctx, in.Inputs, kinds, opts, f.jobs)
	if err != nil {
		return nil, nil, 0, err
	}
	if acc.Messages == 0 {
		g.note("baglab: no message read is of a type the %s analysis uses (see --topics, --start, --end)", strings.Join(kinds, ", "))
	}
	return acc, nil, in.Summary().StartNs, nil
}
