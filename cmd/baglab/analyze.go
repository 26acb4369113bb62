package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/plot"
	"github.com/baglab/baglab/analysis/tabular"
	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/spf13/cobra"
)

func init() {
	extraCommands = append(extraCommands, newAnalyzeCmd, newReportCmd)
}

// analysisFlags are the flags analyze and report share: what to read, how
// to run, and the options of the analyses.
type analysisFlags struct {
	sel            selectionOptions
	jobs           int
	skipBad        bool
	prune          bool
	pruneThreshold float64
	theta          string
	seed           int32
	noLearn        bool
	window         time.Duration
}

func (f *analysisFlags) addFlags(cmd *cobra.Command) {
	f.sel.addFlags(cmd)
	fl := cmd.Flags()
	fl.IntVarP(&f.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "files read in parallel (each into its own accumulators, merged exactly), and placement groups learned in parallel")
	fl.BoolVar(&f.skipBad, "skip-bad", false, "skip messages that fail to decode, reporting each on stderr, instead of stopping")
	fl.BoolVar(&f.prune, "prune", true, "placements: apply the 5% rule (--prune=false keeps every group)")
	fl.Float64Var(&f.pruneThreshold, "prune-threshold", 0.05, "placements: prune groups with fewer than this share of the placements")
	fl.StringVar(&f.theta, "theta", "linear", "placements: rotation handling in the learner, linear (as the original) or circular")
	fl.Int32Var(&f.seed, "seed", 100, "placements: random seed of the EM learner (Weka's -S)")
	fl.BoolVar(&f.noLearn, "no-learn", false, "placements: statistics only, learn no models")
	fl.DurationVar(&f.window, "window", 0, "grasps: width of a learning-curve window, e.g. 30s (0: a tenth of the attempts' span)")
}

// options validates the flags and returns the analysis options.
func (f *analysisFlags) options() (analysis.Options, error) {
	var o analysis.Options
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
	baseline    string
	tolerance   float64
	modelsOut   string
	force       bool
	modelsTopic string
}

const analyzeLong = `Compute one analysis (or all of them) over recordings and print its tables.

Kinds:
  placements  interactive_world_msgs placements: per (item, room, surface,
              reference frame) counts, means, spreads and circular rotation
              statistics; a ranking of reference frames per item; the
              placement models of the jinteractiveworld EM learner (5% rule,
              rank_m decision value, sigmas); recorded Model/TaskModels
              compared with the learned ones.
  grasps      rail_pick_and_place grasp models: successes/attempts, success
              rates with Wilson 95% intervals per grasp, model and object
              (untried grasps counted apart); GraspAndStore and
              GetYesNoFeedback attempts and a learning curve over time.
  facts       toaster_msgs fact lists: the intervals each fact holds, their
              durations and confidence-weighted durations.
  map         lama_msgs topological maps: vertices, edges, dangling edges,
              components, degrees; crossings; place profile areas.
  queries     remap_msgs Query service events (ROS2 service introspection):
              calls, success rates, latencies per query id and pattern.
  all         every kind; sections without data are left out of the tables,
              --out, --plots and the report, but --json keeps every kind.

Several files are analysed together. Each file is read into its own
accumulators, --jobs files at a time, and the accumulators merge exactly:
the result does not depend on --jobs or the order the files finish in.

Output (stdout): aligned tables (--wide for every column; per-observation
tables only in --out), or with --json the result document whose field names
are stable and which --baseline reads. --out DIR writes every table,
per-observation ones included, as DIR/<table>.parquet and DIR/<table>.csv;
--plots DIR writes each figure as DIR/<name>.png and DIR/<name>.svg.

--baseline FILE compares the result with a saved --json document. Numbers
may move by --tolerance, relative (|new-old| <= tol*max(|old|,|new|));
text, counts' presence, NaN and infinities must match. Any statistic beyond
tolerance is listed on stderr, one line per statistic with its path, old and
new value, and the exit code is 1; within tolerance the exit code is 0.
Outputs asked for (tables, --json, --out, --plots, --models-out) are
written either way.

--models-out FILE (placements) writes the learned models as one
interactive_world_msgs/TaskModels message, latched, on --models-topic into a
ROS1 bag or an MCAP file (by extension) that a robot can load; the log
time is the latest log time read.`

const analyzeExample = `  baglab analyze placements study.bag
  baglab analyze placements study.bag --theta circular --models-out models.bag
  baglab analyze grasps day1.bag day2.bag --json > grasps.json
  baglab analyze grasps day*.bag --baseline grasps.json --tolerance 0.01
  baglab analyze facts run.mcap --topics /agent_monitor/factList --start +60s
  baglab analyze queries rosbag2_folder/ --out tables/ --plots figures/
  baglab analyze all study.bag queries.db3 --jobs 4`

func newAnalyzeCmd(g *globalOptions) *cobra.Command {
	o := &analyzeOptions{g: g}
	cmd := &cobra.Command{
		Use:       "analyze KIND FILE...",
		Short:     "Compute placements, grasps, facts, map or queries statistics",
		Long:      analyzeLong,
		Example:   analyzeExample,
		Args:      argsUsage(cobra.MinimumNArgs(2)),
		ValidArgs: append(analysis.Kinds(), "all"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.kind, o.files = args[0], args[1:]
			if _, err := kindsOf(o.kind); err != nil {
				return err
			}
			if !(o.dpi >= 30 && o.dpi <= 1200) {
				return usageErrorf("--dpi %v: want 30 to 1200 dots per inch", o.dpi)
			}
			if o.tolerance < 0 || math.IsNaN(o.tolerance) || math.IsInf(o.tolerance, 0) {
				return usageErrorf("--tolerance must be a finite number >= 0")
			}
			if cmd.Flags().Changed("tolerance") && o.baseline == "" {
				return usageErrorf("--tolerance needs --baseline")
			}
			if o.modelsOut != "" && o.kind != "placements" && o.kind != "all" {
				return usageErrorf("--models-out needs the placements (or all) analysis")
			}
			return runAnalyze(o)
		},
	}
	o.flags.addFlags(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&o.json, "json", false, "print the result as JSON (the --baseline format)")
	fl.BoolVar(&o.wide, "wide", false, "print every column of the tables")
	fl.StringVar(&o.out, "out", "", "write the tables as Parquet and CSV files into `DIR`")
	fl.StringVar(&o.plots, "plots", "", "write the figures as PNG and SVG files into `DIR`")
	fl.Float64Var(&o.dpi, "dpi", plot.DefaultDPI, "resolution of the --plots PNG files in dots per inch")
	fl.StringVar(&o.baseline, "baseline", "", "compare with a saved --json result `FILE`; exit 1 on drift")
	fl.Float64Var(&o.tolerance, "tolerance", 1e-9, "relative tolerance of --baseline")
	fl.StringVar(&o.modelsOut, "models-out", "", "write the learned placement models (TaskModels) into `FILE` (.bag or .mcap)")
	fl.StringVar(&o.modelsTopic, "models-topic", "/interactive_world/models", "topic of --models-out")
	fl.BoolVarP(&o.force, "force", "f", false, "overwrite an existing --models-out file")
	return cmd
}

// kindsOf expands an analysis kind ("all" names every kind).
func kindsOf(kind string) ([]string, error) {
	if kind == "all" {
		return analysis.Kinds(), nil
	}
	if slices.Contains(analysis.Kinds(), kind) {
		return []string{kind}, nil
	}
	return nil, usageErrorf("unknown analysis %q (want one of %s, or all)", kind, strings.Join(analysis.Kinds(), ", "))
}

func runAnalyze(o *analyzeOptions) error {
	kinds, _ := kindsOf(o.kind)
	if o.modelsOut != "" {
		if err := refuseInput(o.modelsOut, o.files, "--models-out"); err != nil {
			return err
		}
		if _, err := decode.OutputFormat(o.modelsOut); err != nil {
			return usageErrorf("--models-out: %v", err)
		}
		if _, err := os.Stat(o.modelsOut); err == nil && !o.force {
			return usageErrorf("--models-out %s exists (use --force to overwrite)", o.modelsOut)
		}
	}
	var baseline []byte
	if o.baseline != "" {
		var err error
		if baseline, err = os.ReadFile(o.baseline); err != nil {
			return err
		}
	}
	run, err := runAnalyses(o.g, o.files, kinds, &o.flags)
	if err != nil {
		return err
	}
	shown := run.results
	if o.kind == "all" {
		shown = withData(run.results)
		if missing := kindsWithout(run.results); len(missing) > 0 {
			o.g.note("baglab: no data for %s", strings.Join(missing, ", "))
		}
	}
	for _, r := range run.results {
		if gr, ok := r.(*analysis.GraspsResult); ok {
			for _, w := range gr.Warnings {
				o.g.note("baglab: warning: %s", w)
			}
		}
	}
	doc, err := resultJSON(o.kind, run.results)
	if err != nil {
		return err
	}
	if o.json {
		if _, err := o.g.stdout.Write(doc); err != nil {
			return err
		}
	} else if err := writeResultsText(o.g.stdout, shown, o.wide); err != nil {
		return err
	}
	if o.out != "" {
		n, err := writeTables(o.out, shown)
		if err != nil {
			return err
		}
		o.g.note("baglab: wrote %d tables (Parquet and CSV) to %s", n, o.out)
	}
	if o.plots != "" {
		n, err := writePlots(o.plots, shown, plot.Options{StartNs: run.startNs}, o.dpi)
		if err != nil {
			return err
		}
		o.g.note("baglab: wrote %d figures (PNG and SVG) to %s", n, o.plots)
	}
	if o.modelsOut != "" {
		if err := writeModelsOut(o, run); err != nil {
			return err
		}
	}
	if baseline != nil {
		return compareWithBaseline(o, baseline, doc)
	}
	return nil
}

// refuseInput returns a usage error when out names one of the inputs.
func refuseInput(out string, inputs []string, flag string) error {
	for _, in := range inputs {
		if same, err := sameFile(out, in); err == nil && same {
			return usageErrorf("%s %s would overwrite an input", flag, out)
		}
	}
	return nil
}

func withData(results []analysis.Result) []analysis.Result {
	var out []analysis.Result
	for _, r := range results {
		if analysis.HasData(r) {
			out = append(out, r)
		}
	}
	return out
}

func kindsWithout(results []analysis.Result) []string {
	var out []string
	for _, r := range results {
		if !analysis.HasData(r) {
			out = append(out, r.Kind())
		}
	}
	return out
}

// resultJSON is the --json document: the result itself for one kind; for
// all, {"kind":"all","<kind>":{...},...} in the order of analysis.Kinds.
func resultJSON(kind string, results []analysis.Result) ([]byte, error) {
	var raw bytes.Buffer
	if kind == "all" {
		raw.WriteString(`{"kind":"all"`)
		for _, r := range results {
			b, err := json.Marshal(r)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&raw, ",%q:", r.Kind())
			raw.Write(b)
		}
		raw.WriteString("}")
	} else {
		b, err := json.Marshal(results[0])
		if err != nil {
			return nil, err
		}
		raw.Write(b)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeResultsText prints each result's headline and its tables.
func writeResultsText(w io.Writer, results []analysis.Result, wide bool) error {
	var b bytes.Buffer
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s: %s\n", r.Kind(), headline(r))
		for _, t := range r.Tables() {
			if t.Detail || len(t.Rows) == 0 {
				continue
			}
			b.WriteString("\n")
			if err := t.WriteText(&b, wide); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// headline summarises a result in one line.
func headline(r analysis.Result) string {
	switch x := r.(type) {
	case *analysis.PlacementsResult:
		learned, pruned, skipped := 0, 0, 0
		for _, m := range x.Models {
			switch {
			case m.Pruned:
				pruned++
			case m.Skipped:
				skipped++
			case m.HasPlacement:
				learned++
			}
		}
		s := fmt.Sprintf("%d placements in %d groups (a placement counts once per reference frame it is given in)", x.Placements, len(x.Groups))
		if len(x.Models) > 0 {
			s += fmt.Sprintf("; %d models learned (theta %s), %d groups pruned (fewer than %d of the %d placements in their surface's own frame), %d skipped",
				learned, x.Theta, pruned, x.PruneLimit, x.PruneTotal, skipped)
		}
		return s + fmt.Sprintf("; %d recorded models", len(x.Recorded))
	case *analysis.GraspsResult:
		untried := 0
		for _, g := range x.Grasps {
			if g.Untried {
				untried++
			}
		}
		return fmt.Sprintf("%d grasps (%d untried) in %d models; %d attempts, %d goals pending",
			len(x.Grasps), untried, len(x.Models), len(x.Attempts), x.Pending)
	case *analysis.FactsResult:
		censored := 0
		for _, iv := range x.Intervals {
			if iv.Censored {
				censored++
			}
		}
		return fmt.Sprintf("%d facts, %d intervals (%d still holding at the end)", len(x.Facts), len(x.Intervals), censored)
	case *analysis.MapResult:
		return fmt.Sprintf("%d vertices, %d edges (%d dangling), %d components; %d crossings, %d place profiles",
			x.Vertices, x.Edges, x.Dangling, x.Components, len(x.Crossings), len(x.PlaceProfiles))
	case *analysis.QueriesResult:
		a := x.All
		return fmt.Sprintf("%d calls, %d responses, %d successes (rate %s), mean latency %s s",
			a.Calls, a.Responses, a.Successes, analysis.FormatCell(roundSig(float64(a.SuccessRate))),
			analysis.FormatCell(roundSig(float64(a.Latency.Mean))))
	}
	return ""
}

// roundSig rounds x to 4 significant digits for people.
func roundSig(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// writeTables writes every table of results as Parquet and CSV.
func writeTables(dir string, results []analysis.Result) (int, error) {
	n := 0
	for _, r := range results {
		for _, t := range r.Tables() {
			if err := tabular.ParquetDir(dir).WriteTable(t); err != nil {
				return n, err
			}
			if err := tabular.CSVDir(dir).WriteTable(t); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// writePlots writes every figure of results as SVG and as PNG at dpi.
func writePlots(dir string, results []analysis.Result, po plot.Options, dpi float64) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range results {
		for _, f := range plot.Figures(r, po) {
			for _, format := range []string{"png", "svg"} {
				path := filepath.Join(dir, f.Name+"."+format)
				if err := atomicfile.Write(path, func(w io.Writer) error { return f.Render(w, format, dpi) }); err != nil {
					return n, err
				}
			}
			n++
		}
	}
	return n, nil
}

// writeModelsOut writes the learned models as a latched TaskModels message.
func writeModelsOut(o *analyzeOptions, run *analysisRun) error {
	var pr *analysis.PlacementsResult
	for _, r := range run.results {
		if x, ok := r.(*analysis.PlacementsResult); ok {
			pr = x
		}
	}
	if pr == nil {
		return usageErrorf("--models-out needs the placements analysis")
	}
	if o.flags.noLearn {
		return usageErrorf("--models-out needs learning (drop --no-learn)")
	}
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	t, err := reg.Lookup("interactive_world_msgs/TaskModels")
	if err != nil {
		return err
	}
	tm, err := pr.TaskModels(t)
	if err != nil {
		return err
	}
	data, err := ros1.Encode(tm)
	if err != nil {
		return err
	}
	at := run.lastNs
	if at <= 0 {
		at = time.Now().UnixNano()
	}
	w, err := decode.Create(o.modelsOut, decode.CreateOptions{Profile: "ros1"})
	if err != nil {
		return err
	}
	ch := &record.Channel{
		Topic:           o.modelsTopic,
		MessageEncoding: "ros1",
		Schema:          &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(t)), MD5: msgdef.MD5(t)},
		Metadata:        map[string]string{"callerid": "/baglab", "latching": "1"},
	}
	id, err := w.AddChannel(ch)
	if err == nil {
		err = w.WriteMessage(id, &record.Message{LogTime: at, PublishTime: at, Data: data})
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		w.Abort()
		return err
	}
	n, _ := tm.Len("models")
	o.g.note("baglab: wrote %d placement models to %s (%s)", n, o.modelsOut, o.modelsTopic)
	return nil
}

// maxDiffLines caps the drift lines printed.
const maxDiffLines = 200

func compareWithBaseline(o *analyzeOptions, baseline, doc []byte) error {
	diffs, err := analysis.CompareBaseline(baseline, doc, o.tolerance)
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("--baseline %s: %w", o.baseline, err)}
	}
	if len(diffs) == 0 {
		o.g.note("baglab: within tolerance %g of baseline %s", o.tolerance, o.baseline)
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "baglab: %d statistic(s) differ from baseline %s beyond tolerance %g:\n", len(diffs), o.baseline, o.tolerance)
	for i, d := range diffs {
		if i == maxDiffLines {
			fmt.Fprintf(&b, "  ... and %d more\n", len(diffs)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", d)
	}
	io.WriteString(o.g.stderr, b.String())
	return errProblemsFound
}

// analysisRun is the outcome of reading the inputs.
type analysisRun struct {
	// results in the order of the kinds asked for
	results []analysis.Result
	// messages decoded and handed to the analyses
	messages int64
	// lastNs is the latest log time of those messages
	lastNs int64
	// startNs is when the earliest input starts (its summary's start)
	startNs int64
}

// summaryOnly presents the combined summary of the inputs to
// selectionOptions.filter, which reads only Summary (for the start time
// relative --start/--end are taken from).
type summaryOnly struct {
	record.Reader
	sum *record.Summary
}

func (s summaryOnly) Summary() (*record.Summary, error) { return s.sum, nil }

// input is one opened file.
type input struct {
	path   string
	r      record.Reader
	filter record.Filter
}

// runAnalyses reads files into accumulators of the given kinds and returns
// their results. With one job a single set of accumulators reads the files
// in turn; with more, each file gets its own set and the sets are merged as
// the files finish.
func runAnalyses(g *globalOptions, files []string, kinds []string, f *analysisFlags) (*analysisRun, error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	reg, err := g.registry()
	if err != nil {
		return nil, err
	}
	proto, err := newAnalyzers(kinds, opts)
	if err != nil {
		return nil, err
	}
	inputs := make([]*input, 0, len(files))
	defer func() {
		for _, in := range inputs {
			in.r.Close()
		}
	}()
	var sums []*record.Summary
	for _, p := range files {
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
		r, err := decode.Open(p)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, &input{path: p, r: r})
		s, err := r.Summary()
		if err != nil {
			return nil, err
		}
		sums = append(sums, s)
	}
	sel, err := f.sel.filter(summaryOnly{sum: decode.CombineSummaries(sums)})
	if err != nil {
		return nil, err
	}
	var total int64
	for i, in := range inputs {
		in.filter = sel
		wanted := map[string]bool{}
		for _, t := range sums[i].Topics {
			if wantedBy(proto, t.Type) {
				wanted[t.Topic] = true
				if sel.Topic == nil || sel.Topic(t.Topic) {
					total += int64(t.MessageCount)
				}
			}
		}
		unwanted := map[string]bool{}
		for _, t := range sums[i].Topics {
			if !wanted[t.Topic] {
				unwanted[t.Topic] = true
			}
		}
		// Topics whose every channel no analysis wants are not read at all;
		// a topic the summary does not list is read and sorted per message.
		selTopic := sel.Topic
		in.filter.Topic = func(topic string) bool {
			return !unwanted[topic] && (selTopic == nil || selTopic(topic))
		}
	}
	bar := newProgress(g, total, "analyze")
	defer bar.done()
	ex := &extractor{res: decode.NewResolver(reg), bar: bar, skipBad: f.skipBad, note: g.note}
	run := &analysisRun{startNs: decode.CombineSummaries(sums).StartNs}
	var merged []analysis.Analyzer
	if f.jobs == 1 || len(inputs) == 1 {
		merged = proto
		for _, in := range inputs {
			st, err := ex.read(g.ctx, in, merged)
			run.add(st)
			if err != nil {
				return nil, err
			}
		}
	} else {
		merged, err = readParallel(g.ctx, ex, inputs, kinds, opts, f.jobs, run)
		if err != nil {
			return nil, err
		}
	}
	for _, a := range merged {
		r, err := a.Result()
		if err != nil {
			return nil, err
		}
		run.results = append(run.results, r)
	}
	if n := ex.skipped.Load(); n > 0 {
		g.note("baglab: %d message(s) skipped", n)
	}
	if run.messages == 0 {
		g.note("baglab: no message read is of a type the %s analysis uses (see --topics, --start, --end)", strings.Join(kinds, ", "))
	}
	return run, nil
}

func newAnalyzers(kinds []string, opts analysis.Options) ([]analysis.Analyzer, error) {
	set := make([]analysis.Analyzer, len(kinds))
	for i, k := range kinds {
		a, err := analysis.New(k, opts)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		set[i] = a
	}
	return set, nil
}

func wantedBy(set []analysis.Analyzer, typ string) bool {
	for _, a := range set {
		if a.Wants(typ) {
			return true
		}
	}
	return false
}

// fileStats counts what reading one file fed the analyses.
type fileStats struct {
	messages int64
	lastNs   int64
}

func (r *analysisRun) add(s fileStats) {
	r.messages += s.messages
	r.lastNs = max(r.lastNs, s.lastNs)
}

// readParallel reads each input into its own accumulators, jobs at a time,
// and merges them into one set as they finish.
func readParallel(ctx context.Context, ex *extractor, inputs []*input, kinds []string, opts analysis.Options, jobs int, run *analysisRun) ([]analysis.Analyzer, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		set []analysis.Analyzer
		st  fileStats
		err error
	}
	work := make(chan *input)
	out := make(chan done)
	var wg sync.WaitGroup
	for range min(jobs, len(inputs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range work {
				set, err := newAnalyzers(kinds, opts)
				var st fileStats
				if err == nil {
					st, err = ex.read(ctx, in, set)
				}
				out <- done{set, st, err}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, in := range inputs {
			select {
			case work <- in:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	var merged []analysis.Analyzer
	var errs []error
	for d := range out {
		run.add(d.st)
		if d.err != nil {
			errs = append(errs, d.err)
			cancel()
			continue
		}
		if merged == nil {
			merged = d.set
			continue
		}
		for i, a := range merged {
			if err := a.Merge(d.set[i]); err != nil {
				errs = append(errs, err)
				cancel()
			}
		}
	}
	if len(errs) > 0 {
		// the first real error, not the cancellations it caused
		for _, err := range errs {
			if !errors.Is(err, context.Canceled) {
				return nil, err
			}
		}
		return nil, errs[0]
	}
	return merged, nil
}

// extractor decodes the messages of inputs and feeds them to analyses.
type extractor struct {
	res     *decode.Resolver
	bar     *progress
	skipBad bool
	note    func(format string, args ...any)
	skipped atomic.Int64
}

// channelPlan is how one channel's messages are handled: the analyses that
// take them (none: skipped undecoded) and its decoder.
type channelPlan struct {
	typ    string
	takers []analysis.Analyzer
	dec    decode.Decoder
}

// read feeds the messages of in to set.
func (ex *extractor) read(ctx context.Context, in *input, set []analysis.Analyzer) (fileStats, error) {
	var st fileStats
	it, err := in.r.Messages(in.filter)
	if err != nil {
		return st, err
	}
	defer it.Close()
	plans := map[*record.Channel]*channelPlan{}
	const every = 256 // messages between cancellation checks and progress updates
	n := 0
	defer func() { ex.bar.add(n % every) }()
	for ; ; n++ {
		if n%every == 0 && n > 0 {
			ex.bar.add(every)
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		m, err := it.Next()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		p := plans[m.Channel]
		if p == nil {
			var err error
			p, err = ex.plan(m.Channel, set)
			plans[m.Channel] = p
			if err != nil {
				err = record.WithFile(err, in.path, -1, m.Channel.Topic)
				if !ex.skipBad {
					return st, err
				}
				ex.skip(err)
			}
		}
		if len(p.takers) == 0 {
			continue
		}
		v, err := p.dec.DecodeValue(m.Data)
		if err != nil {
			err = messageError(m, err)
			if !ex.skipBad {
				return st, err
			}
			ex.skip(err)
			continue
		}
		msg := &analysis.Message{Topic: m.Channel.Topic, Type: p.typ, LogTime: m.LogTime, Source: in.path, Value: v}
		for _, a := range p.takers {
			if err := a.Add(msg); err != nil {
				return st, record.WithFile(err, in.path, m.Offset, m.Channel.Topic)
			}
		}
		st.messages++
		st.lastNs = max(st.lastNs, m.LogTime)
	}
}

// plan finds the analyses that take ch's messages and compiles its
// decoder; a channel whose definition does not compile gets an empty plan
// and the error.
func (ex *extractor) plan(ch *record.Channel, set []analysis.Analyzer) (*channelPlan, error) {
	p := &channelPlan{typ: typeName(ch)}
	for _, a := range set {
		if a.Wants(p.typ) {
			p.takers = append(p.takers, a)
		}
	}
	if len(p.takers) == 0 {
		return p, nil
	}
	dec, err := ex.res.For(ch)
	if err != nil {
		return &channelPlan{typ: p.typ}, err
	}
	p.dec = dec
	return p, nil
}

func (ex *extractor) skip(err error) {
	ex.skipped.Add(1)
	ex.note("baglab: skipped: %v", err)
}
