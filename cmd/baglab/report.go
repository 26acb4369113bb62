//go:build !baglab_lean

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/analysis/report"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type reportOptions struct {
	g      *globalOptions
	files  []string
	flags  analysisFlags
	output string
	force  bool
	title  string
	// options are the flags in effect, for the provenance block
	options []report.Option
	opts    analysis.Options
	made    time.Time // SOURCE_DATE_EPOCH; zero: now
	// maxMediaBytes bounds the pictures' PNG bytes (report_media.go)
	maxMediaBytes int64
}

func newReportCmd(g *globalOptions) *cobra.Command {
	o := &reportOptions{g: g}
	cmd := &cobra.Command{
		Use:   "report FILE... -o report.html | report --from-partial FILE... -o report.html",
		Short: "Write one self-contained HTML page with every analysis that finds data",
		Long: `Run every analysis (` + strings.Join(kinds.Names(), ", ") + `) over the
recordings and write one self-contained HTML page: for each analysis that
finds data, its summary tables and its figures as inline SVG. The page needs
no network and no other file; send it as it is. It starts with where it came
from: the baglab version, the command line, the options in effect, each
input's size, SHA-256, format, time range and message count, and when the
page was made (UTC, to the second). That time is the only part that changes
between two runs of one command line over the same inputs; with
SOURCE_DATE_EPOCH set (seconds since 1970, the reproducible-builds
convention) the page shows that time instead, so that a CI job gets the
same bytes on every run.

When no analysis finds data the page says so and the exit code is 1.

The page is written to a temporary file next to the output and renamed into
place when complete; an existing page is replaced. The analysis flags are
those of 'baglab analyze'.

--from-partial FILE... reports on merged partial files (analyze --partial)
instead of recordings: the same page as a report over the recordings they
were made from, which the page lists.`,
		Example: `  baglab report demo/data/study.bag -o report.html
  baglab report demo/data/study.bag demo/data/queries.db3 -o study.html --title "Breakfast study"
  baglab report demo/data/study.mcap -o first-minute.html --end +60s --theta circular`,
		Args: argsUsage(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			o.files = args
			done, err := g.stageOutputs(cmd.Context(), stagedOutput{path: &o.output, force: o.force})
			if err != nil {
				return err
			}
			defer func() { err = done(err) }()
			if err := o.flags.checkSources(&o.files); err != nil {
				return err
			}
			cmd.Flags().VisitAll(func(f *pflag.Flag) {
				results := slices.Contains(resultFlags(), f.Name)
				unset := !f.Changed && (f.Value.String() == "" || f.Value.String() == "[]") // no selection, no path
				if (results && !unset) || (f.Changed && !slices.Contains(runFlags, f.Name)) {
					o.options = append(o.options, report.Option{Name: f.Name, Value: f.Value.String(), Default: !f.Changed, Results: results})
				}
			})
			if o.output == "" {
				return usageErrorf("report needs an output page: -o FILE.html\nSee '%s --help'", cmd.CommandPath())
			}
			if err := checkOutFile(o.output, "-o", o.force, append(slices.Clone(o.files), o.flags.fromPartial...)); err != nil {
				return err
			}
			if o.opts, err = o.flags.options(cmd, kinds.All()); err != nil {
				return err
			}
			if o.made, err = sourceDateEpoch(); err != nil {
				return err
			}
			return runReport(cmd.Context(), o)
		},
	}
	o.flags.addFlags(cmd)
	o.flags.addPartialFlag(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "the HTML page to write")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite an existing page")
	cmd.Flags().StringVar(&o.title, "title", "", "page title (default: baglab report of the input names)")
	cmd.Flags().Int64Var(&o.maxMediaBytes, "max-media-bytes", 1<<20, "the grasp demonstrations' images and the grasp models' clouds shown as pictures take at most this many bytes (scaled down, then left out, to fit); 0 shows none")
	return cmd
}

func runReport(ctx context.Context, o *reportOptions) error {
	// the pictures are read first: the provenance describes the recordings
	// as the analyses' pass read them, which opens them last
	var pg report.Page
	if err := o.pictures(ctx, &pg); err != nil {
		return err
	}
	run, err := runAnalyses(ctx, o.g, o.files, kinds.All(), &o.flags, o.opts, runWith{describe: analysis.DescribePaths})
	if err != nil {
		return err
	}
	if missing := analysis.KindsWithout(run.results); len(missing) > 0 {
		o.g.note("baglab: no data for %s", strings.Join(missing, ", "))
	}
	prov := report.NewProvenance(version, os.Args, o.options, run.inputs)
	if !o.made.IsZero() {
		prov.Created = o.made
	}
	pg.Title, pg.Provenance, pg.Results = o.title, prov, run.results
	var page bytes.Buffer
	nothing := false
	if err := report.Render(&page, pg); errors.Is(err, report.ErrNothing) {
		nothing = true
	} else if err != nil {
		return err
	}
	if err := atomicfile.Write(o.output, func(w io.Writer) error {
		_, err := w.Write(page.Bytes())
		return err
	}); err != nil {
		return outputError(o.output, err)
	}
	if nothing {
		o.g.note("baglab: nothing to report: no analysis found data; %s says so", o.output)
		return errProblemsFound
	}
	o.g.note("baglab: wrote %s (%d analyses, %d bytes)", o.output, len(analysis.WithData(run.results)), page.Len())
	return nil
}

// sourceDateEpoch is the time SOURCE_DATE_EPOCH gives (the zero time when
// it is unset or empty); a value that is not a whole number of seconds
// since 1970 is a usage error, as the reproducible-builds specification
// asks.
func sourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil || s < 0 || s > 253402300799 { // up to 9999-12-31T23:59:59Z
		return time.Time{}, usageErrorf("SOURCE_DATE_EPOCH=%q: want whole seconds since 1970-01-01 UTC", v)
	}
	return time.Unix(s, 0).UTC(), nil
}

// resultFlags are the flags that change a report's numbers: its
// provenance block lists them at their defaults too (but for empty ones:
// no --topics, no --msg-path).
func resultFlags() []string {
	flags := []string{"topics", "start", "end", "skip-bad", "keep-unverified", "msg-path", "distro", "from-partial"}
	flags = slices.Concat(flags, placementsFlags, graspsFlags)
	for _, k := range kinds.All() {
		for _, f := range k.Flags {
			flags = append(flags, f.Name)
		}
	}
	return flags
}

// runFlags change how a report is made, never what it says: the
// provenance block leaves them out even when given.
var runFlags = []string{"help", "cpuprofile", "quiet", "output", "force", "jobs"}
