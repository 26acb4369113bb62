package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/mcapfile"
	"github.com/baglab/baglab/decode/record"
	"github.com/spf13/cobra"
)

// copyOptions drive filter, convert and merge: read inputs, select
// messages, write one output recording.
type copyOptions struct {
	g           *globalOptions
	inputs      []string
	output      string
	sel         selectionOptions
	compression string
	force       bool
}

func (o *copyOptions) addFlags(cmd *cobra.Command) {
	o.sel.addFlags(cmd)
	cmd.Flags().StringVar(&o.compression, "compression", "", "output compression: none|lz4|bz2 for .bag (default none), zstd|lz4|none for .mcap (default zstd)")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite the output if it exists")
	completeValues(cmd, "compression", "none", "lz4", "bz2", "zstd")
}

func newFilterCmd(g *globalOptions) *cobra.Command {
	o := &copyOptions{g: g}
	cmd := &cobra.Command{
		Use:   "filter IN OUT",
		Short: "Copy the selected topics and time range of a recording",
		Long: `Copy the messages of IN selected by --topics, --start and --end to OUT,
keeping definitions, latching and metadata. OUT's extension (.bag or .mcap)
chooses its format.`,
		Example: "  baglab filter study.bag grasps.bag --topics '/grasp/**'\n  baglab filter run.mcap first-minute.mcap --end +60s",
		Args:    argsUsage(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs, o.output = args[:1], args[1]
			return runCopy(o)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func newConvertCmd(g *globalOptions) *cobra.Command {
	o := &copyOptions{g: g}
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert between formats: bag ↔ mcap, db3 → mcap or bag",
		Long: `Convert IN to the format OUT's extension names (.bag or .mcap), keeping
definitions, latching and metadata. ROS2 (CDR) messages written into a ROS1
bag are re-encoded in the ROS1 wire format under an equivalent ROS1
definition (wstring → string, bounded sequences → T[], byte → uint8).`,
		Example: "  baglab convert study.bag study.mcap\n  baglab convert rosbag2_folder/ run.bag --compression lz4\n  baglab convert run.db3 run.mcap",
		Args:    argsUsage(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs, o.output = args[:1], args[1]
			return runCopy(o)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func newMergeCmd(g *globalOptions) *cobra.Command {
	o := &copyOptions{g: g}
	cmd := &cobra.Command{
		Use:   "merge OUT IN...",
		Short: "Merge recordings into one, in log time order",
		Long: `Merge the messages of several recordings (any formats) into OUT, in log
time order (equal times keep the order of the inputs), keeping definitions,
latching and MCAP metadata and attachments. OUT comes first, as with cp's
target-directory form, so that a shell glob can follow; its extension (.bag
or .mcap) chooses the format. --topics, --start and --end select as in cat.`,
		Example: "  baglab merge all.mcap day1.bag day2.bag\n  baglab merge study.bag part*.bag --topics /placements",
		Args:    argsUsage(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.output, o.inputs = args[0], args[1:]
			return runCopy(o)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func runCopy(o *copyOptions) error {
	format, err := decode.OutputFormat(o.output)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if !o.force {
		if _, err := os.Stat(o.output); err == nil {
			return usageErrorf("%s exists (use --force to overwrite)", o.output)
		}
	}
	for _, in := range o.inputs {
		if same, _ := sameFile(in, o.output); same {
			return usageErrorf("output %s is also an input", o.output)
		}
	}
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	r, err := openInputs(o.inputs, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := o.sel.filter(r)
	if err != nil {
		return err
	}
	sum, err := r.Summary()
	if err != nil {
		return err
	}
	res := decode.NewResolver(reg)
	if format == decode.FormatBag || needsDefinitions(r) {
		if err := requireDefinitions(r, f, res, strings.Join(o.inputs, ", ")); err != nil {
			return err
		}
	}
	it, err := r.Messages(f)
	if err != nil {
		return err
	}
	defer it.Close()
	w, err := decode.Create(o.output, decode.CreateOptions{Compression: o.compression})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("cannot write %s: %w", o.output, pe.Err)
		}
		return usageErrorf("%v", err)
	}
	n, err := copyMessages(o, format, res, it, w, int64(sum.MessageCount))
	if err == nil {
		err = copyMCAPExtras(o.inputs, w)
	}
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		w.Abort()
		return err
	}
	o.g.note("baglab: wrote %d messages to %s", n, o.output)
	return nil
}

// needsDefinitions reports whether some channel of r stores no definition,
// which a copy must then take from the registry.
func needsDefinitions(r record.Reader) bool {
	chans, err := r.Channels()
	if err != nil {
		return false
	}
	for _, ch := range chans {
		if ch.MessageEncoding != "json" && (ch.Schema == nil || len(ch.Schema.Data) == 0) {
			return true
		}
	}
	return false
}

type outChannel struct {
	id      uint32
	convert func([]byte) ([]byte, error)
}

func copyMessages(o *copyOptions, format decode.Format, res *decode.Resolver, it record.Iterator, w decode.Writer, total int64) (int64, error) {
	chans := map[*record.Channel]*outChannel{}
	bar := newProgress(o.g, total, "copy")
	defer bar.done()
	var n int64
	for {
		if err := o.g.ctx.Err(); err != nil {
			return n, err
		}
		m, err := it.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		oc := chans[m.Channel]
		if oc == nil {
			if oc, err = addOutChannel(format, res, w, m.Channel); err != nil {
				return n, record.WithFile(err, m.Source, -1, m.Channel.Topic)
			}
			chans[m.Channel] = oc
		}
		data := m.Data
		if oc.convert != nil {
			if data, err = oc.convert(m.Data); err != nil {
				return n, messageError(m, err)
			}
		}
		out := record.Message{LogTime: m.LogTime, PublishTime: m.PublishTime, Sequence: uint64(n), Data: data}
		if err := w.WriteMessage(oc.id, &out); err != nil {
			return n, err
		}
		n++
		bar.add(1)
	}
}

func addOutChannel(format decode.Format, res *decode.Resolver, w decode.Writer, ch *record.Channel) (*outChannel, error) {
	oc := &outChannel{}
	out := ch
	if format == decode.FormatBag {
		if ch.MessageEncoding == "json" {
			return nil, fmt.Errorf("%w: topic %s has JSON messages, which a ROS1 bag cannot hold", record.ErrUnsupported, ch.Topic)
		}
		conv, c, err := res.ToROS1(ch)
		if err != nil {
			return nil, err
		}
		if ch.MessageEncoding != "ros1" {
			oc.convert = conv
		}
		out = c
	} else {
		c, err := res.WithDefinition(ch)
		if err != nil {
			return nil, err
		}
		out = c
	}
	id, err := w.AddChannel(out)
	if err != nil {
		return nil, err
	}
	oc.id = id
	return oc, nil
}

// copyMCAPExtras carries MCAP metadata and attachments into an MCAP output.
func copyMCAPExtras(inputs []string, w decode.Writer) error {
	mw, ok := w.(*mcapfile.Writer)
	if !ok {
		return nil
	}
	for _, in := range inputs {
		if f, err := decode.Sniff(in); err != nil || f != decode.FormatMCAP || isDir(in) {
			continue
		}
		r, err := mcapfile.Open(in)
		if err != nil {
			return err
		}
		err = copyExtrasFrom(r, mw)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func copyExtrasFrom(r *mcapfile.Reader, w *mcapfile.Writer) error {
	mds, err := r.Metadata()
	if err != nil {
		return err
	}
	for _, md := range mds {
		if err := w.AddMetadata(md.Name, md.Metadata); err != nil {
			return err
		}
	}
	atts, err := r.Attachments()
	if err != nil {
		return err
	}
	for _, a := range atts {
		data, err := io.ReadAll(r.AttachmentData(a))
		if err != nil {
			return errors.Join(fmt.Errorf("attachment %s", a.Name), err)
		}
		if err := w.AddAttachment(a.Name, a.MediaType, a.LogTime, a.CreateTime, data); err != nil {
			return err
		}
	}
	return nil
}
