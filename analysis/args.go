package analysis

import (
	"fmt"
	"math"
	"runtime"
	"time"
)

// Args are the analysis options as `baglab analyze`, `report` and `check`
// take them on the command line; Options turns them into Options.
type Args struct {
	// Theta is "linear" (the original learner's) or "circular" (--theta).
	Theta string
	// Prune applies the 5% rule with PruneThreshold, a share between 0 and
	// 1 (--prune, --prune-threshold).
	Prune          bool
	PruneThreshold float64
	// Seed is the EM learner's random seed, not 0 (--seed); NoLearn
	// computes statistics only (--no-learn).
	Seed    int32
	NoLearn bool
	// Jobs is the inputs read at once and the groups learned at once, at
	// least 1 (--jobs).
	Jobs int
	// Window is the width of a grasps learning-curve window, >= 0; 0 picks
	// a tenth of the attempts' span (--window).
	Window time.Duration
	// Flags are the texts of the analyses' own flags given (Kind.Flags),
	// by name.
	Flags map[string]string
}

// DefaultArgs are the defaults: linear theta, the 5% rule, Weka's seed
// 100, learning on, one job per CPU.
func DefaultArgs() Args {
	return Args{Theta: ThetaLinear.String(), Prune: true, PruneThreshold: 0.05, Seed: 100, Jobs: runtime.GOMAXPROCS(0)}
}

// Options checks a and returns the options of the analyses kinds (their
// own flags parsed). Errors name the command-line flag.
func (a Args) Options(kinds []Kind) (Options, error) {
	var o Options
	switch a.Theta {
	case ThetaLinear.String():
		o.Learn.Theta = ThetaLinear
	case ThetaCircular.String():
		o.Learn.Theta = ThetaCircular
	default:
		return o, fmt.Errorf("--theta %q: want linear or circular", a.Theta)
	}
	switch {
	case !a.Prune:
		o.Learn.PruneFraction = -1
	case a.PruneThreshold <= 0 || a.PruneThreshold >= 1 || math.IsNaN(a.PruneThreshold):
		return o, fmt.Errorf("--prune-threshold %v: want a share between 0 and 1 (use --prune=false to keep every group)", a.PruneThreshold)
	default:
		o.Learn.PruneFraction = a.PruneThreshold
	}
	if a.Seed == 0 {
		return o, fmt.Errorf("--seed 0: Weka's EM takes a non-zero seed")
	}
	o.Learn.Seed = a.Seed
	o.Learn.Disable = a.NoLearn
	o.Learn.Workers = a.Jobs
	if a.Window < 0 {
		return o, fmt.Errorf("--window must not be negative")
	}
	o.WindowNs = int64(a.Window)
	for _, k := range kinds {
		for _, f := range k.Flags {
			text, ok := a.Flags[f.Name]
			if !ok {
				text = f.Default
			}
			v, err := f.Parse(text)
			if err != nil {
				return o, fmt.Errorf("--%s %v", f.Name, err)
			}
			if o.Flags == nil {
				o.Flags = map[string]any{}
			}
			o.Flags[f.Name] = v
		}
	}
	if a.Jobs < 1 {
		return o, fmt.Errorf("--jobs must be at least 1")
	}
	return o, nil
}
