//go:build !baglab_lean

package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/recording/remote"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// baselineFlags are the flags of a baseline comparison, shared by check
// and analyze --baseline.
type baselineFlags struct {
	path        string
	url         string // the URL --baseline named, when path is its local copy
	tolerance   float64
	reports     []string          // --report as given
	parsed      []baseline.Report // reports, parsed by validate
	maxLines    int
	update      bool
	contentHash bool
}

// baselineOnly are the flags that apply with --baseline only.
var baselineOnly = []string{"tolerance", "report", "max-lines", "update-baseline", "content-hash"}

func (f *baselineFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.path, "baseline", "", "compare with a saved result `FILE` (analyze --json or info --json); exit 1 on drift")
	fl.Float64Var(&f.tolerance, "tolerance", 1e-9, "default relative tolerance of --baseline (counts are exact; the baseline's own tolerances win)")
	fl.StringArrayVar(&f.reports, "report", nil, "also write the comparison as junit:`FILE` or markdown:FILE (repeatable; FILE - is stdout)")
	fl.IntVar(&f.maxLines, "max-lines", 20, "print at most `N` lines of the drift report in all (the headline and a closing line saying how many more, at least)")
	fl.BoolVar(&f.update, "update-baseline", false, "rewrite --baseline from this run, keeping its tolerances and comments; print what changed; exit 0")
	fl.BoolVar(&f.contentHash, "content-hash", false, "also compare a hash of the rows of per-observation tables, not only their number")
	_ = cmd.RegisterFlagCompletionFunc("report", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"junit:", "markdown:"}, cobra.ShellCompDirectiveNoSpace
	})
}

// validate checks the flags; without --baseline none of the others may be
// set.
func (f *baselineFlags) validate(cmd *cobra.Command) error {
	if f.path == "" {
		var set []string
		cmd.Flags().Visit(func(fl *pflag.Flag) {
			if slices.Contains(baselineOnly, fl.Name) {
				set = append(set, "--"+fl.Name)
			}
		})
		if len(set) > 0 {
			return usageErrorf("%s needs --baseline", strings.Join(set, ", "))
		}
		return nil
	}
	if f.tolerance < 0 || math.IsNaN(f.tolerance) || math.IsInf(f.tolerance, 0) {
		return usageErrorf("--tolerance must be a finite number >= 0")
	}
	if f.maxLines < 0 {
		return usageErrorf("--max-lines must be >= 0")
	}
	f.parsed = nil
	for _, r := range f.reports {
		rep, err := baseline.ParseReport(r)
		if err != nil {
			return usageErrorf("--report %v", err)
		}
		f.parsed = append(f.parsed, rep)
		if rep.Path == "-" {
			continue
		}
		if err := checkOutFile(rep.Path, "--report", true, []string{f.path}); err != nil {
			return err
		}
	}
	return nil
}

// baselineKeys are the keys of the tables a baseline compares: every
// analysis's and the dataset document's.
func baselineKeys() baseline.Keys { return append(kinds.TableKeys(), baseline.DatasetKeys...) }

// name is the baseline as the command line named it.
func (f *baselineFlags) name() string { return cmp.Or(f.url, f.path) }

// stage makes a --baseline URL a private local copy (remote.StageFile),
// which --update-baseline rewrites and done then uploads.
func (f *baselineFlags) stage() stagedOutput {
	if remote.IsURL(f.path) {
		f.url = f.path
	}
	return stagedOutput{path: &f.path, read: true}
}

// load reads and parses the baseline file.
func (f *baselineFlags) load() (*baseline.Baseline, error) {
	b, err := baseline.Read(f.path, baselineKeys())
	var be *baseline.Error
	if errors.As(err, &be) && f.url != "" {
		be.Path = f.url
	}
	return b, baselineError(err)
}

// baselineError gives a baseline that cannot be parsed, compared or
// updated exit code 3.
func baselineError(err error) error {
	var be *baseline.Error
	if errors.As(err, &be) {
		return &exitError{code: exitBadInput, err: fmt.Errorf("--baseline %s: %w", be.Path, be.Err)}
	}
	return err
}

// compare compares current with the baseline, writes the text report to
// w and the --report files, rewrites the baseline with --update-baseline,
// and returns errProblemsFound on drift (nil after an update).
func (f *baselineFlags) compare(g *globalOptions, b *baseline.Baseline, current []byte, w io.Writer) error {
	o := baseline.CheckOptions{Path: f.path, Name: f.url, MaxLines: f.maxLines, Reports: f.parsed, Update: f.update, Stdout: g.stdout,
		CompareOptions: baseline.CompareOptions{Tolerance: f.tolerance, ContentHash: f.contentHash}}
	res, err := b.Check(current, o, w)
	switch {
	case err != nil:
		return baselineError(err)
	case res.Updated:
		kept := ""
		if n := len(b.Tolerances); n > 0 {
			kept = fmt.Sprintf(", keeping its %d tolerances", n)
		}
		g.note("baglab: rewrote baseline %s from this run%s", f.name(), kept)
	case res.Unchanged:
		g.note("baglab: baseline %s already holds this run: left untouched", f.name())
	case res.Drift:
		return errProblemsFound
	}
	return nil
}

type checkOptions struct {
	g     *globalOptions
	files []string
	flags analysisFlags
	base  baselineFlags
	spec  string // --spec (contract.go)
}

const checkLong = `Check recordings against a baseline: the step of a CI job that keeps a
regression dataset and fails when a result drifts.

--spec SPEC.yaml checks them against a recording contract instead: per
topic type, min_count, min_rate_hz, max_rate_hz, max_gap, max_latency,
required: false and value ranges ({values: {"position[0]": [-3.2, 3.2]}}),
each recording apart (or each --from-partial file of analyze topics
--partial); exit 1 on a broken rule; --report and --max-lines as below.

The baseline is a saved result, and says itself what to compute:
  baglab analyze KIND FILE... --json > baseline.json   an analysis result: check
      runs the same analysis (with the analysis flags given here) and compares
  baglab info FILE... --json > dataset.json            a dataset: check reads the
      files' summaries and compares message counts per topic, time spans,
      types and MD5s, so a recording that lost a topic or changed a type fails
      before any analysis runs

Comparison by identity. Every table row has a documented key (below); rows
of the baseline and of this run with the same key are compared statistic by
statistic, rows with a key on one side only are reported once, as new or
removed ("3 new placement groups: ..."), and a row that merely moved is not
a difference. Per-observation tables (attempts, intervals, calls, vertices,
edges) are compared by their number of rows (--content-hash: and a hash of
their rows). A statistic's path is its table, its row's key and its field:
  placements.groups[item=cup,room=kitchen,surface=kitchen_table,reference_frame_id=plate].mean_x

Tolerances. Integers (counts, times in ns) must be equal; other numbers may
move by --tolerance, relative (|new-old| <= tol*max(|old|,|new|)); text,
booleans, NaN and infinities must be equal. The baseline may carry its own
tolerances, by path glob, first match wins:
  {"baseline": {"comment": "why", "tolerances": {
     "placements.models[*].decision_value": {"rel": 1e-3},
     "grasps.attempts.rows": {"abs": 5, "comment": "flaky recordings"},
     "files[*].topics[*].frequency_hz": {"ignore": true}}},
   "kind": "all", ...}
In a glob * is any run of characters, ? one, ** any number of path segments,
and a segment without [...] matches every row. A dataset baseline with
tolerances is {"baseline": {...}, "kind": "dataset", "files": [info objects]}.
// line comments are allowed in a baseline file.

Reports. stdout: a headline, a summary line per statistic group that
drifted, then the details; --max-lines lines in all at most. --report junit:FILE
writes JUnit XML (one test case per statistic group, failures with old, new
and tolerance); --report markdown:FILE a Markdown table for a pull-request
comment or $GITHUB_STEP_SUMMARY. Exit 0 within tolerance, 1 on drift.

--update-baseline rewrites the baseline from this run when a change is
intended: the "baseline" member (tolerances, comments) and the text before
the document are kept as written, the rest is this run's result; the report
printed is what changed. Exit 0.

Row keys:
`

const checkExample = `  baglab check --spec examples/contract.yaml demo/data/study.bag demo/data/study-lz4.mcap --report junit:contract.xml
  baglab analyze all demo/data/study.bag demo/data/queries.mcap --json > baseline.json
  baglab check --baseline baseline.json demo/data/study.bag demo/data/queries.mcap
  baglab check --baseline baseline.json demo/data/study-lz4.mcap demo/data/queries.db3 --report junit:baseline.xml --report markdown:summary.md
  baglab info demo/data/study.bag demo/data/queries.mcap --json > dataset.json
  baglab check --baseline dataset.json demo/data/study.bag demo/data/queries.mcap
  baglab check --baseline baseline.json demo/data/study.bag demo/data/queries.mcap --update-baseline`

func newCheckCmd(g *globalOptions) *cobra.Command {
	o := &checkOptions{g: g}
	cmd := &cobra.Command{
		Use:     "check --baseline FILE RECORDING... | --spec SPEC.yaml RECORDING...",
		Short:   "Compare recordings with a baseline or a contract (--spec); exit 1 on drift or a broken rule",
		Long:    checkLong + baselineKeys().Text(),
		Example: checkExample,
		Args:    argsUsage(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			o.files = args
			if o.spec != "" {
				s, err := o.validateSpec(cmd)
				if err != nil {
					return err
				}
				return runSpec(cmd, o, s)
			}
			if o.base.path == "" {
				return usageErrorf("check needs --baseline FILE or --spec SPEC.yaml")
			}
			if len(o.flags.fromPartial) > 0 {
				return usageErrorf("--from-partial applies to --spec")
			}
			if len(o.files) == 0 {
				return usageErrorf("check needs recordings")
			}
			if err := o.base.validate(cmd); err != nil {
				return err
			}
			if atomicfile.IsInput(o.base.path, o.files) || slices.Contains(o.files, o.base.path) {
				return usageErrorf("--baseline %s is one of the recordings", o.base.path)
			}
			done, err := o.g.stageOutputs(cmd.Context(), o.base.stage())
			if err != nil {
				return err
			}
			defer func() { err = done(err) }()
			return runCheck(cmd, o)
		},
	}
	o.flags.addFlags(cmd)
	o.flags.addPartialFlag(cmd)
	o.base.addFlags(cmd)
	cmd.Flags().StringVar(&o.spec, "spec", "", "check the recordings against a contract `SPEC.yaml` (topics: rates, gaps, counts, latency, types, value ranges); exit 1 on a broken rule")
	return cmd
}

func runCheck(cmd *cobra.Command, o *checkOptions) error {
	b, err := o.base.load()
	if err != nil {
		return err
	}
	var doc []byte
	if b.Kind == "dataset" {
		var set []string
		cmd.Flags().Visit(func(fl *pflag.Flag) {
			if cmd.LocalNonPersistentFlags().Lookup(fl.Name) != nil && fl.Name != "baseline" && !slices.Contains(baselineOnly, fl.Name) {
				set = append(set, "--"+fl.Name)
			}
		})
		if len(set) > 0 {
			return usageErrorf("%s: analysis flags, but %s is a dataset baseline (info --json)", strings.Join(set, ", "), o.base.name())
		}
		if doc, err = baseline.DatasetDocument(o.files); err != nil {
			return err
		}
	} else {
		sel, err := kinds.Of(b.Kind)
		if err != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("--baseline %s: %w", o.base.name(), err)}
		}
		opts, err := o.flags.options(cmd, sel)
		if err != nil {
			return err
		}
		run, err := runAnalyses(cmd.Context(), o.g, o.files, sel, &o.flags, opts, runWith{})
		if err != nil {
			return err
		}
		if doc, err = analysis.Document(b.Kind, run.results); err != nil {
			return err
		}
	}
	return o.base.compare(o.g, b, doc, o.g.stdout)
}
