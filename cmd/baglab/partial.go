package main

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/report"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/digest"
	"github.com/spf13/cobra"
)

const partialHelp = `--partial FILE writes the accumulator state of the inputs instead of the
results: a versioned JSON document (format baglab.analysis.partial, see
analysis.PartialFile) holding what the analyses gathered, not what they
computed. Any number of partials, made on any machines from any split of
the recordings, merge with --from-partial FILE... into the result of one
analyze over all of them (byte for byte the same --json when the partials
are given in the order of their inputs); the placement learner runs once,
at the merge, with the analysis flags given there. --from-partial with
--partial merges partials into one.`

// addPartialFlag adds --from-partial to a verb that takes the analysis
// flags.
func (f *analysisFlags) addPartialFlag(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.fromPartial, "from-partial", nil, "merge these partial files (analyze --partial) instead of reading recordings; comma-separated or repeated")
}

// checkSources fails unless exactly one of recordings and --from-partial
// is given.
func (f *analysisFlags) checkSources(files []string) error {
	switch {
	case len(files) > 0 && len(f.fromPartial) > 0:
		return usageErrorf("give recordings or --from-partial, not both")
	case len(files) == 0 && len(f.fromPartial) == 0:
		return usageErrorf("no input: give recordings, or --from-partial FILE")
	}
	return nil
}

// mergePartials reads the --from-partial files and merges them into the
// accumulators of kinds; it also returns the inputs the partials were made
// from, in order, and the earliest start.
func mergePartials(f *analysisFlags, kinds []string, opts analysis.Options) (*analysis.Accumulated, []analysis.PartialInput, int64, error) {
	var ps []*analysis.PartialFile
	var inputs []analysis.PartialInput
	for _, name := range f.fromPartial {
		r, err := os.Open(name)
		if err != nil {
			return nil, nil, 0, err
		}
		p, err := analysis.ReadPartial(r, name)
		r.Close()
		if err != nil {
			return nil, nil, 0, &exitError{code: exitBadInput, err: err}
		}
		ps = append(ps, p)
		inputs = append(inputs, p.Inputs...)
	}
	acc, err := analysis.MergePartials(ps, f.fromPartial, kinds, opts)
	if errors.Is(err, analysis.ErrPartial) {
		return nil, nil, 0, &exitError{code: exitBadInput, err: err}
	}
	if err != nil {
		return nil, nil, 0, err
	}
	return acc, inputs, analysis.StartNs(ps), nil
}

// writePartial writes the accumulator state of o's inputs (or merged
// partials) to o.partial.
func writePartial(o *analyzeOptions) error {
	acc, inputs, startNs, err := accumulate(o.g, o.files, o.kinds, &o.flags, o.opts)
	if err != nil {
		return err
	}
	if len(o.flags.fromPartial) == 0 {
		if inputs, err = describeInputs(o.g, o.files, &o.flags.read); err != nil {
			return err
		}
	}
	p, err := acc.Partial(version, inputs, startNs)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(o.partial, func(w io.Writer) error { return p.Write(w) }); err != nil {
		return outputError(o.partial, err)
	}
	o.g.note("baglab: wrote the %s state of %d input(s) (%d messages) to %s", strings.Join(o.kinds, ", "), len(inputs), acc.Messages, o.partial)
	return nil
}

// describeInputs returns the digests and summaries of files.
func describeInputs(g *globalOptions, files []string, rf *readFlags) ([]analysis.PartialInput, error) {
	in, err := g.open(files, rf, "", nil)
	if err != nil {
		return nil, err
	}
	defer in.close()
	out := make([]analysis.PartialInput, len(files))
	for i, p := range in.Paths() {
		d, err := digest.Of(p)
		if err != nil {
			return nil, err
		}
		out[i] = analysis.PartialInput{Path: p, Size: d.Size, SHA256: d.SHA256}
		if s := in.FileSummary(i); s != nil {
			out[i].Format, out[i].StartNs, out[i].EndNs, out[i].MessageCount = s.Format, s.StartNs, s.EndNs, s.MessageCount
		}
	}
	return out, nil
}

// provenanceInputs are the inputs of partials as the report lists them.
func provenanceInputs(in []analysis.PartialInput) []report.Input {
	out := make([]report.Input, len(in))
	for i, p := range in {
		out[i] = report.Input{Path: p.Path, Format: p.Format, Size: p.Size, SHA256: p.SHA256, StartNs: p.StartNs, EndNs: p.EndNs, Messages: p.MessageCount}
	}
	return out
}
