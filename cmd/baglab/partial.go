//go:build !baglab_lean

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/recording/remote"
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
	cmd.Flags().StringSliceVar(&f.fromPartial, "from-partial", nil, "merge these partial files (analyze --partial) instead of reading recordings: files or folders (their *.json files); comma-separated, repeated, or a shell glob (--from-partial parts/*.json)")
}

// checkSources fails unless exactly one of recordings and --from-partial
// is given. With --from-partial, the arguments that are JSON files join it
// (a shell glob after it, --from-partial parts/*.json, expands into them;
// analysis.IsPartialFile), and its folders are expanded
// (analysis.ExpandPartials); files is what is left, and must be empty.
func (f *analysisFlags) checkSources(files *[]string) error {
	if len(f.fromPartial) > 0 {
		var rest []string
		for _, p := range *files {
			if analysis.IsPartialFile(p) {
				f.fromPartial = append(f.fromPartial, p)
			} else {
				rest = append(rest, p)
			}
		}
		*files = rest
		expanded, err := analysis.ExpandPartials(f.fromPartial)
		if err != nil {
			return usageErrorf("--from-partial: %v", err)
		}
		f.fromPartial = expanded
	}
	switch {
	case len(*files) > 0 && len(f.fromPartial) > 0:
		return usageErrorf("give recordings or --from-partial, not both")
	case len(*files) == 0 && len(f.fromPartial) == 0:
		return usageErrorf("no input: give recordings, or --from-partial FILE")
	}
	return nil
}

// mergePartials merges the --from-partial files into the accumulators of
// kinds (analysis.MergePartialFiles), with the inputs they were made from;
// a file that is not such a partial is bad input.
func mergePartials(f *analysisFlags, kinds []analysis.Kind, opts analysis.Options) (*analysisRun, error) {
	acc, inputs, startNs, err := analysis.MergePartialFiles(f.fromPartial, kinds, opts)
	if errors.Is(err, analysis.ErrPartial) {
		err = &exitError{code: exitBadInput, err: err}
	}
	if err != nil {
		return nil, err
	}
	return &analysisRun{acc: acc, inputs: inputs, startNs: startNs}, nil
}

// writePartial writes the accumulator state of o's inputs (or merged
// partials) to o.partial, with each recording read described
// (analysis.DescribeInputs).
func writePartial(ctx context.Context, o *analyzeOptions) error {
	run, err := runAnalyses(ctx, o.g, o.files, o.kinds, &o.flags, o.opts, runWith{stateOnly: true, describe: analysis.DescribeInputs})
	if err != nil {
		return err
	}
	p, err := run.acc.Partial(version, run.inputs, run.startNs)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(o.partial, func(w io.Writer) error { return p.Write(w) }); err != nil {
		return outputError(o.partial, err)
	}
	o.g.note("baglab: wrote the %s state of %d input(s) (%d messages) to %s", strings.Join(analysis.Names(o.kinds), ", "), len(run.inputs), run.acc.Messages, o.partial)
	return nil
}

// localInputs replaces the URLs among paths (files, or prefixes standing
// for their files ending in one of exts) by private local copies, read
// through s (nil: a session of their own), which the returned function
// removes.
func localInputs(ctx context.Context, s *remote.Session, paths []string, exts ...string) ([]string, func(), error) {
	var tmps []string
	cleanup := func() {
		for _, t := range tmps {
			os.RemoveAll(t)
		}
	}
	var out []string
	for _, p := range paths {
		if !remote.IsURL(p) {
			out = append(out, p)
			continue
		}
		local, tmp, err := remote.Download(ctx, s, p, exts...)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		tmps = append(tmps, tmp)
		out = append(out, local...)
	}
	return out, cleanup, nil
}
