//go:build !baglab_lean

package main

import (
	"fmt"

	"github.com/baglab/baglab/analysis"
	"github.com/schollz/progressbar/v3"
)

// learnProgress returns the placement learner's progress hook: a bar on
// stderr counting the groups learned, its description the EM fits done so
// far; nil when no bar belongs on stderr (see barFile).
func learnProgress(g *globalOptions) func(analysis.LearnProgress) {
	f, ok := barFile(g)
	if !ok {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(p analysis.LearnProgress) {
		if bar == nil {
			bar = newBar(f, int64(p.Groups), "learning placement models")
		}
		bar.Describe(fmt.Sprintf("learning placement models (%d EM fits)", p.Fits))
		_ = bar.Set(p.GroupsDone)
		if p.GroupsDone == p.Groups {
			_ = bar.Finish()
		}
	}
}
