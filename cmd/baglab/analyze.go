//go:build !baglab_lean

package main

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/analysis/plot"
	"github.com/baglab/baglab/analysis/tabular"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/recording"
)

type analyzeOptions struct {
	g           *globalOptions
	kind        string
	files       []string
	flags       analysisFlags
	json        bool
	wide        bool
	out         string
	plots       string
	dpi         float64
	base        baselineFlags
	modelsOut   string
	force       bool
	modelsTopic string
	partial     string // --partial (partial.go)
	// set by validate
	kinds    []analysis.Kind
	opts     analysis.Options
	baseline *baseline.Baseline
}

// analyzeLong is the help text of analyze; the kinds and their summaries
// come from the analysis registry.
func analyzeLong() string {
	return `Compute one analysis (or all of them) over recordings and print its tables.

Kinds:
` + kinds.Help(analysis.Kind{Name: "all",
		Summary: "every kind; sections without data are left out of the tables, " +
			"--out, --plots and the report, but --json keeps every kind."}) + `
Several files are analysed together. Each file is read into its own
accumulators, --jobs files at a time, and the accumulators merge exactly:
the result does not depend on --jobs or the order the files finish in.

Output (stdout): aligned tables (--wide for every column; per-observation
tables only in --out), or with --json the result document whose field names
are stable and which --baseline reads. --out DIR writes every table,
per-observation ones included, as DIR/<table>.parquet and DIR/<table>.csv;
--plots DIR writes each figure as DIR/<name>.png and DIR/<name>.svg.

--baseline FILE compares the result with a saved --json document as
baglab check does (see baglab check --help: rows matched by their keys,
counts exact, other numbers within --tolerance or the baseline's own
tolerances, --report junit:FILE / markdown:FILE, --update-baseline). The
report goes to stderr; the exit code is 1 on drift, 0 within tolerance.
Outputs asked for (tables, --json, --out, --plots, --models-out) are
written either way.

--models-out FILE (placements) writes the learned models as one
interactive_world_msgs/TaskModels message, latched, on --models-topic into a
ROS1 bag or an MCAP file (by extension) that a robot can load; the log
time is the latest log time read.

` + partialHelp
}

const analyzeExample = `  baglab analyze placements demo/data/study.bag
  baglab analyze placements demo/data/study.bag --theta circular --models-out models.bag
  baglab analyze grasps demo/data/study.bag demo/data/study-bz2.bag --json > grasps.json
  baglab analyze grasps demo/data/study.bag demo/data/study-bz2.bag --baseline grasps.json --tolerance 0.01
  baglab analyze facts demo/data/study.mcap --topics /agent_monitor/factList --start +10s
  baglab analyze queries demo/data/queries_rosbag2/ --out query-tables/ --plots query-figures/
  baglab analyze all demo/data/study.bag demo/data/queries.db3 --jobs 4
  baglab analyze placements demo/data/study.bag --partial day1.partial.json
  baglab analyze placements --from-partial day1.partial.json --json`

func newAnalyzeCmd(g *globalOptions) *cobra.Command {
	o := &analyzeOptions{g: g}
	names := kinds.Names()
	cmd := &cobra.Command{
		Use:       "analyze KIND FILE... | KIND --from-partial FILE...",
		Short:     "Compute " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + " statistics",
		Long:      analyzeLong(),
		Example:   analyzeExample,
		Args:      argsUsage(cobra.MinimumNArgs(1)),
		ValidArgs: append(names, "all"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			o.kind, o.files = args[0], args[1:]
			done, err := g.stageOutputs(cmd.Context(), stagedOutput{path: &o.partial, force: o.force},
				stagedOutput{path: &o.out, dir: true, force: o.force}, stagedOutput{path: &o.plots, dir: true, force: o.force},
				stagedOutput{path: &o.modelsOut, force: o.force}, o.base.stage())
			if err != nil {
				return err
			}
			defer func() { err = done(err) }()
			if err := o.validate(cmd); err != nil {
				return err
			}
			return runAnalyze(cmd.Context(), o)
		},
	}
	o.flags.addFlags(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&o.json, "json", false, "print the result as JSON (the --baseline format)")
	fl.BoolVar(&o.wide, "wide", false, "print every column of the tables")
	fl.StringVar(&o.out, "out", "", "write the tables as Parquet and CSV files into `DIR`")
	fl.StringVar(&o.plots, "plots", "", "write the figures as PNG and SVG files into `DIR`")
	fl.Float64Var(&o.dpi, "dpi", plot.DefaultDPI, "resolution of the --plots PNG files in dots per inch")
	o.base.addFlags(cmd)
	fl.StringVar(&o.modelsOut, "models-out", "", "write the learned placement models (TaskModels) into `FILE` (.bag or .mcap)")
	fl.StringVar(&o.modelsTopic, "models-topic", "/interactive_world/models", "topic of --models-out")
	fl.BoolVarP(&o.force, "force", "f", false, "replace existing outputs (--partial and --models-out files, --out and --plots folders)")
	fl.StringVar(&o.partial, "partial", "", "write the accumulator state (to merge later with --from-partial) into `FILE` instead of results")
	o.flags.addPartialFlag(cmd)
	return cmd
}

// validate checks the flags and the outputs before any input is read.
func (o *analyzeOptions) validate(cmd *cobra.Command) error {
	run, err := kinds.Of(o.kind)
	if err != nil {
		return usageErrorf("%v", err)
	}
	o.kinds = run
	if o.opts, err = o.flags.options(cmd, run); err != nil {
		return err
	}
	o.opts.Learn.Progress = learnProgress(o.g)
	if err := o.flags.checkSources(&o.files); err != nil {
		return err
	}
	if o.partial != "" {
		if o.json || o.wide || o.out != "" || o.plots != "" || o.modelsOut != "" || o.base.path != "" {
			return usageErrorf("--partial writes the state only: ask for --json, --wide, --out, --plots, --models-out or --baseline when merging with --from-partial")
		}
		if err := checkOutFile(o.partial, "--partial", true, append(slices.Clone(o.files), o.flags.fromPartial...)); err != nil {
			return err
		}
	}
	if !(o.dpi >= 30 && o.dpi <= 1200) {
		return usageErrorf("--dpi %v: want 30 to 1200 dots per inch", o.dpi)
	}
	if cmd.Flags().Changed("dpi") && o.plots == "" {
		return usageErrorf("--dpi needs --plots")
	}
	if o.wide && o.json {
		return usageErrorf("--wide applies to the text tables, not --json")
	}
	if err := o.base.validate(cmd); err != nil {
		return err
	}
	if cmd.Flags().Changed("models-topic") && o.modelsOut == "" {
		return usageErrorf("--models-topic applies to --models-out")
	}
	if o.force && o.partial == "" && o.modelsOut == "" && o.out == "" && o.plots == "" {
		return usageErrorf("--force applies to --partial, --out, --plots and --models-out")
	}
	if o.partial != "" {
		if err := checkOutFile(o.partial, "--partial", o.force, o.files); err != nil {
			return err
		}
	}
	if o.modelsOut != "" {
		if !slices.Contains(analysis.Names(run), "placements") {
			return usageErrorf("--models-out needs the placements (or all) analysis")
		}
		if o.flags.a.NoLearn {
			return usageErrorf("--models-out needs learning (drop --no-learn)")
		}
		if _, err := recording.OutputFormat(o.modelsOut); err != nil {
			return usageErrorf("--models-out: %v", err)
		}
		if err := checkOutFile(o.modelsOut, "--models-out", o.force, o.files); err != nil {
			return err
		}
	}
	for _, d := range []struct{ flag, dir string }{{"--out", o.out}, {"--plots", o.plots}} {
		if d.dir != "" {
			if err := checkOutFolder(d.dir, d.flag, o.force); err != nil {
				return err
			}
		}
	}
	if o.base.path != "" {
		if o.baseline, err = o.base.load(); err != nil {
			return err
		}
	}
	return nil
}

func runAnalyze(ctx context.Context, o *analyzeOptions) error {
	if o.partial != "" {
		return writePartial(ctx, o)
	}
	run, err := runAnalyses(ctx, o.g, o.files, o.kinds, &o.flags, o.opts, runWith{})
	if err != nil {
		return err
	}
	shown := run.results
	if o.kind == "all" {
		shown = analysis.WithData(run.results)
		if missing := analysis.KindsWithout(run.results); len(missing) > 0 {
			o.g.note("baglab: no data for %s", strings.Join(missing, ", "))
		}
	}
	for _, r := range run.results {
		for _, w := range r.Warnings() {
			o.g.warn("baglab: warning: %s", w)
		}
	}
	doc, err := analysis.Document(o.kind, run.results)
	if err != nil {
		return err
	}
	if o.json {
		if _, err := o.g.stdout.Write(doc); err != nil {
			return err
		}
	} else if err := analysis.WriteText(o.g.stdout, shown, o.wide); err != nil {
		return err
	}
	if o.out != "" {
		n, err := writeFolder(o.out, func(dir string) (int, error) { return tabular.WriteResults(dir, shown) })
		if err != nil {
			return outputError(o.out, err)
		}
		o.g.note("baglab: wrote %d tables (Parquet and CSV) to %s", n, o.out)
	}
	if o.plots != "" {
		n, err := writeFolder(o.plots, func(dir string) (int, error) {
			return plot.WriteDir(dir, kinds.Figures(shown, plot.Options{StartNs: run.startNs}), o.dpi)
		})
		if err != nil {
			return outputError(o.plots, err)
		}
		o.g.note("baglab: wrote %d figures (PNG and SVG) to %s", n, o.plots)
	}
	if o.modelsOut != "" {
		if err := writeModelsOut(ctx, o, run); err != nil {
			return err
		}
	}
	if o.baseline != nil {
		return o.base.compare(o.g, o.baseline, doc, o.g.stderr)
	}
	return nil
}

// writeModelsOut writes the learned models into --models-out.
func writeModelsOut(ctx context.Context, o *analyzeOptions, run *analysisRun) error {
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	var n int
	err = writeRecording(ctx, o.modelsOut, recording.CreateOptions{Profile: "ros1"}, func(w recording.Writer) (err error) {
		n, err = analysis.WriteModels(w, run.results, reg, o.modelsTopic, run.lastNs)
		return err
	})
	if errors.Is(err, analysis.ErrNoModels) {
		return usageErrorf("--models-out needs the placements analysis")
	}
	if err != nil {
		return err
	}
	o.g.note("baglab: wrote %d placement models to %s (%s)", n, o.modelsOut, o.modelsTopic)
	return nil
}

// writeFolder writes the folder dir whole: fill writes into a temporary
// folder beside it, which then replaces dir (atomicfile.Dir), so that dir
// never mixes two runs' files and a failed or interrupted run leaves it as
// it was.
func writeFolder(dir string, fill func(tmp string) (int, error)) (int, error) {
	if err := atomicfile.MkdirAll(filepath.Dir(filepath.Clean(dir))); err != nil {
		return 0, err
	}
	d, err := atomicfile.CreateDir(dir)
	if err != nil {
		return 0, err
	}
	n, err := fill(d.Name())
	if err != nil {
		d.Abort()
		return 0, err
	}
	return n, d.Commit()
}
