//go:build !baglab_lean

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/termtext"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

type tfOptions struct {
	g       *globalOptions
	files   []string
	read    readFlags
	tree    bool
	target  string
	source  string
	at      []string
	every   time.Duration
	atTopic string
	gap     time.Duration
	json    bool
	out     string
	format  string
}

func newTFCmd(g *globalOptions) *cobra.Command {
	o := &tfOptions{g: g}
	cmd := &cobra.Command{
		Use:   "tf FILE... (--tree | --target A --source B (--at T,... | --every D | --at-topic TOPIC))",
		Short: "Show the frame tree, or look transforms up as tf2 does",
		Long: `Read the transforms of every TF topic (tf2_msgs/TFMessage, tf/tfMessage and
ROS2's tf2_msgs/msg/TFMessage; a topic named tf_static holds static ones) and
either describe the frames or look transforms up.

--tree prints one line per child frame, each after its parent: parent, static
or dynamic, the nodes that published it (the connection's callerid, where the
recording keeps it), the number of transforms, rate, first and last stamp and
the gaps (intervals longer than --gap, default three times the median).

--target A --source B looks up the transform of B in A — the one that takes
coordinates in B to coordinates in A — as tf2's BufferCore::lookupTransform(A,
B, t) does: translation interpolated linearly and rotation by slerp between
the two nearest stamps of each frame, chained through the common parent,
static transforms valid at every time; time 0 is the latest time both frames
have. Where tf2 raises an exception the row carries tf2's text instead
(ExtrapolationException, ConnectivityException, LookupException). tf2 keeps
10 s of history; baglab keeps the whole recording.
The times: --at T[,T...] (epoch seconds, RFC 3339, +OFFSET from the start, or
0 for the latest), --every D from the start to the end of the recording (or of
--start/--end), or --at-topic TOPIC, the header stamp of each of its messages.

Output: a table; --json, one object per time:
  {"time_ns","stamp_ns","translation":{"x","y","z"},"rotation":{"x","y","z","w"},
   "roll","pitch","yaw"} or {"time_ns","stamp_ns","error","error_kind"}
(--tree --json: one object per frame); --out DIR writes DIR/tf/<A>/<B>.parquet
(--format csv: .csv) through export's writers, with columns time_ns, stamp_ns,
target_frame, source_frame, translation.{x,y,z}, rotation.{x,y,z,w}, roll,
pitch, yaw (NaN where the lookup failed) and error.`,
		Example: `  baglab tf demo/data/tf.bag --tree
  baglab tf demo/data/tf.bag --target map --source camera --at +5s,+5.5s,0
  baglab tf demo/data/tf.bag --target odom --source tool --every 100ms --json | jq -c .translation
  baglab tf demo/data/tf.bag --target map --source base_link --at-topic /pose --out tables --format csv`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if err := o.validate(); err != nil {
				return err
			}
			return runTF(cmd.Context(), o)
		},
	}
	o.read.addFlags(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&o.tree, "tree", false, "print the frame tree")
	fl.StringVar(&o.target, "target", "", "the frame to express the transform in (tf2's target_frame)")
	fl.StringVar(&o.source, "source", "", "the frame whose transform is looked up (tf2's source_frame)")
	fl.StringSliceVar(&o.at, "at", nil, "look up at these times: epoch seconds, RFC 3339, +OFFSET, or 0 for the latest")
	fl.DurationVar(&o.every, "every", 0, "look up every DURATION from the start to the end (10ms, 1s)")
	fl.StringVar(&o.atTopic, "at-topic", "", "look up at the header stamp of each message of TOPIC")
	fl.DurationVar(&o.gap, "gap", 0, "--tree: an interval longer than this is a gap (default 3x the frame's median interval)")
	fl.BoolVar(&o.json, "json", false, "one JSON object per line on stdout")
	fl.StringVarP(&o.out, "out", "o", "", "write the lookups under DIR (DIR/tf/<target>/<source>.parquet)")
	fl.StringVar(&o.format, "format", "parquet", "--out: parquet or csv")
	completeValues(cmd, "format", "parquet", "csv")
	return cmd
}

func (o *tfOptions) validate() error {
	times := 0
	for _, set := range []bool{len(o.at) > 0, o.every != 0, o.atTopic != ""} {
		if set {
			times++
		}
	}
	switch {
	case o.tree && (o.target != "" || o.source != "" || times > 0 || o.out != ""):
		return usageErrorf("--tree takes none of --target, --source, --at, --every, --at-topic, --out")
	case o.tree:
		return nil
	case o.target == "" || o.source == "":
		return usageErrorf("give --tree, or --target and --source")
	case times != 1:
		return usageErrorf("give one of --at, --every, --at-topic")
	case o.every < 0:
		return usageErrorf("--every must be > 0")
	case o.out != "" && o.json:
		return usageErrorf("--out and --json do not go together")
	case o.gap != 0:
		return usageErrorf("--gap applies to --tree")
	}
	for _, a := range o.at {
		if _, err := recording.ParseTimeSpec(a); err != nil {
			return usageErrorf("--at: %v", err)
		}
	}
	if o.out != "" {
		if _, err := export.ParseFormat(o.format); err != nil {
			return usageErrorf("--format: %v", err)
		}
		return checkOutDir(o.out, "--out")
	}
	return nil
}

func runTF(ctx context.Context, o *tfOptions) error {
	in, err := o.g.open(o.files, &o.read, "tf", func(typ string) bool { return tf.IsTFType(typ) })
	if err != nil {
		return err
	}
	defer in.close()
	r, stamps, err := tf.Read(ctx, in.Inputs, o.atTopic)
	if errors.Is(err, tf.ErrNoTopic) || errors.Is(err, tf.ErrNoHeader) {
		return usageErrorf("--at-topic: %v", err)
	}
	if err != nil {
		return err
	}
	in.bar.done()
	for code, n := range r.Rejected {
		o.g.note("baglab: %d transform(s) ignored as tf2 ignores them: %s", n, code)
	}
	if r.Transforms == 0 {
		o.g.warn("baglab: no transforms: the recording has no TF topic (tf2_msgs/TFMessage) in the selection")
	}
	if o.tree {
		return o.printTree(r.Tree(int64(o.gap)))
	}
	times, err := o.times(in.Inputs, stamps)
	if err != nil {
		return err
	}
	w, err := o.rowWriter()
	if err != nil {
		return err
	}
	n, failed := 0, 0
	for t := range times {
		row := r.Buffer.LookupRow(o.target, o.source, t)
		if row.Error != "" {
			failed++
		}
		if err := w.write(row); err != nil {
			w.abort()
			return err
		}
		n++
	}
	if failed > 0 {
		o.g.note("baglab: %d of %d lookup(s) failed (see the error column)", failed, n)
	}
	return w.close()
}

// rowWriter writes lookups one by one (memory does not grow with their
// number): a table, JSON lines, or export's writers.
type rowWriter interface {
	write(tf.Row) error
	close() error
	abort()
}

func (o *tfOptions) rowWriter() (rowWriter, error) {
	if o.out != "" {
		format, _ := export.ParseFormat(o.format)
		topic := "/tf/" + strings.Trim(o.target, "/") + "/" + strings.Trim(o.source, "/")
		t, err := export.NewTable(o.out, topic, tf.RowType, tf.RowDefinition, export.WithFormat(format), export.WithVersion(version))
		if err != nil {
			return nil, outputError(o.out, err)
		}
		return &tableRows{o: o, t: t}, nil
	}
	w := bufio.NewWriterSize(o.g.stdout, 64<<10)
	if o.json {
		return &jsonRows{w: w, enc: json.NewEncoder(w)}, nil
	}
	return &textRows{w: w}, printHead(w)
}

type jsonRows struct {
	w   *bufio.Writer
	enc *json.Encoder
}

func (j *jsonRows) write(r tf.Row) error { return j.enc.Encode(r) }
func (j *jsonRows) close() error         { return j.w.Flush() }
func (j *jsonRows) abort()               {}

type textRows struct {
	w *bufio.Writer
	b []byte
}

func (t *textRows) write(r tf.Row) error {
	t.b = appendRow(t.b[:0], r)
	_, err := t.w.Write(t.b)
	return err
}
func (t *textRows) close() error { return t.w.Flush() }
func (t *textRows) abort()       {}

// tableRows writes the lookups through export's writers.
type tableRows struct {
	o *tfOptions
	t *export.Table
	n uint64
}

func (t *tableRows) write(r tf.Row) error {
	v := r.Value(t.o.target, t.o.source)
	meta := export.Meta{LogTime: r.StampNs, PublishTime: r.StampNs, Sequence: t.n}
	t.n++
	return t.t.Add(meta, export.DecoderFunc(func(_ []byte, s sink.Sink) error { return v.Emit(s) }))
}

func (t *tableRows) close() error {
	if err := t.t.Close(); err != nil {
		return outputError(t.o.out, err)
	}
	t.o.g.note("baglab: wrote %d lookup(s) to %s", t.n, strings.Join(t.t.Files(), ", "))
	return nil
}

func (t *tableRows) abort() { t.t.Abort() }

// times are the lookup times the flags ask for, in order.
func (o *tfOptions) times(in *recording.Inputs, stamps []int64) (iter.Seq[int64], error) {
	sum := in.Summary()
	switch {
	case o.atTopic != "":
		return slices.Values(stamps), nil
	case len(o.at) > 0:
		var ts []int64
		for _, a := range o.at {
			spec, _ := recording.ParseTimeSpec(a)
			ts = append(ts, spec.Resolve(sum.StartNs))
		}
		return slices.Values(ts), nil
	}
	start, end := sum.StartNs, sum.EndNs
	if f := in.Filter(); f.Start != 0 {
		start = f.Start
	}
	if f := in.Filter(); f.End != 0 {
		end = f.End - 1
	}
	const maxTimes = 1_000_000_000
	if n := (end - start) / int64(o.every); n > maxTimes {
		return nil, usageErrorf("--every %v: %d lookups over the recording, more than %d", o.every, n, maxTimes)
	}
	return func(yield func(int64) bool) {
		for t := start; t <= end; t += int64(o.every) {
			if !yield(t) {
				return
			}
		}
	}, nil
}

func (o *tfOptions) printTree(frames []tf.Frame) error {
	if o.json {
		enc := json.NewEncoder(o.g.stdout) // a line per frame: few
		for _, f := range frames {
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
		return nil
	}
	w := tabwriter.NewWriter(o.g.stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "FRAME\tPARENT\tKIND\tPUBLISHERS\tCOUNT\tRATE_HZ\tFIRST_STAMP\tLAST_STAMP\tGAPS\tLONGEST_S")
	for _, f := range frames {
		kind := "dynamic"
		if f.Static {
			kind = "static"
		}
		parent := f.Parent
		if len(f.Parents) > 1 {
			parent = strings.Join(f.Parents, ",")
		}
		pubs := strings.Join(f.Publishers, ",")
		if pubs == "" {
			pubs = "-"
		}
		// Frame and publisher names come from the recording.
		fmt.Fprintf(w, "%s%s\t%s\t%s\t%s\t%d\t%.3f\t%s\t%s\t%d\t%.3f\n", strings.Repeat("  ", f.Depth), termtext.Line(f.Frame), termtext.Line(parent), kind, termtext.Line(pubs),
			f.Count, f.RateHz, stampText(f.FirstNs), stampText(f.LastNs), f.Gaps, f.GapLongestS)
	}
	return w.Flush()
}

// stampText is a stamp as epoch seconds with nine decimals.
func stampText(ns int64) string { return string(appendStamp(nil, ns)) }

// appendStamp appends stampText(ns) to b.
func appendStamp(b []byte, ns int64) []byte {
	sec, nsec := ns/1e9, ns%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	b = strconv.AppendInt(b, sec, 10)
	b = append(b, '.')
	var frac [9]byte
	for i := 8; i >= 0; i-- {
		frac[i] = byte('0' + nsec%10)
		nsec /= 10
	}
	return append(b, frac[:]...)
}

// printHead prints the head of the lookup table: fixed-width columns (no
// tabwriter: it would hold the whole table to size them).
func printHead(w io.Writer) error {
	const head = "%-20s%12s%12s%12s%11s%11s%11s%11s%11s%11s%11s  ERROR\n"
	_, err := fmt.Fprintf(w, head, "TIME", "X", "Y", "Z", "QX", "QY", "QZ", "QW", "ROLL", "PITCH", "YAW")
	return err
}

// errorPad takes an error row's text to the ERROR column.
var errorPad = strings.Repeat(" ", 12*3+11*7+2)

// appendRow appends one line of the lookup table.
func appendRow(b []byte, r tf.Row) []byte {
	b = appendStamp(b, r.StampNs)
	if r.Error != "" {
		b = append(b, errorPad...)
		b = append(b, r.ErrorKind...)
		b = append(b, ": "...)
		b = append(b, r.Error...)
		return append(b, '\n')
	}
	t, q := r.Translation, r.Rotation
	for k, v := range []float64{t.X, t.Y, t.Z, q.X, q.Y, q.Z, q.W, *r.Roll, *r.Pitch, *r.Yaw} {
		width := 11
		if k < 3 {
			width = 12
		}
		b = appendPadded(b, v, width)
	}
	return append(b, '\n')
}

// appendPadded appends v with 6 decimals, right-aligned in width.
func appendPadded(b []byte, v float64, width int) []byte {
	if v == 0 {
		v = 0 // not "-0.000000"
	}
	var num [32]byte
	n := appendFixed6(num[:0], v)
	for i := len(n); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, n...)
}

// appendFixed6 appends v as strconv.AppendFloat(b, v, 'f', 6, 64) does,
// in integers where that gives the same digits: |v|·1e6 below 2^40,
// whose product carries an error under 2^-13, rounded when it is not
// within 1e-3 of a half. Anything else (ties, huge values, NaN, ±Inf)
// goes to strconv.
func appendFixed6(b []byte, v float64) []byte {
	x := v * 1e6
	a := math.Abs(x)
	if !(a < 1<<40) {
		return strconv.AppendFloat(b, v, 'f', 6, 64)
	}
	r := math.Round(a)
	if f := math.Abs(a - math.Trunc(a) - 0.5); f < 1e-3 {
		return strconv.AppendFloat(b, v, 'f', 6, 64)
	}
	u := uint64(r)
	if math.Signbit(v) {
		b = append(b, '-') // as strconv, also for -0.0000001: "-0.000000"
	}
	b = strconv.AppendUint(b, u/1e6, 10)
	b = append(b, '.')
	frac := u % 1e6
	var d [6]byte
	for i := 5; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(b, d[:]...)
}
