package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

type repairOptions struct {
	g              *globalOptions
	input          string
	output         string
	force          bool
	keepUnverified bool
	dropUnverified bool // the old spelling of the default, accepted
	fsync          bool
}

func newReindexCmd(g *globalOptions) *cobra.Command {
	o := &repairOptions{g: g}
	cmd := &cobra.Command{
		Use:   "reindex IN [-o OUT]",
		Short: "Rebuild an unindexed or truncated ROS1 bag, salvaging every intact message",
		Long: `Rebuild a ROS1 bag whose recorder died (a .bag.active file, no index) or that
was cut short, salvaging every intact message into a fresh, fully indexed bag.
Nothing is left after the last chunk. The default output is IN with
".reindexed.bag" in place of its extension, once a recorder's ".active" is
dropped (run.bag.active gives run.reindexed.bag, run.bag too); IN is never
modified. The first line of the report names the output.

Exit 0 when nothing was lost (the torn end of a recording that was never
closed does not count), 1 when damaged ranges were skipped: the output
then holds every intact message and the report lists what was skipped.`,
		Example: "  baglab reindex demo/data/broken/study.bag.active\n  baglab reindex demo/data/broken/study-truncated.bag -o fixed.bag    # exit 1",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input = args[0]
			return runReindex(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output path")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite the output if it exists")
	addFsyncFlag(cmd, &o.fsync)
	return cmd
}

func newRecoverCmd(g *globalOptions) *cobra.Command {
	o := &repairOptions{g: g}
	cmd := &cobra.Command{
		Use:   "recover IN [-o OUT]",
		Short: "Rebuild a truncated, corrupt or unindexed MCAP file, salvaging every intact message",
		Long: `Rebuild an MCAP file that was cut short, has damaged chunks or lacks its
summary, keeping every intact message, channel, schema, metadata and
attachment. Records that frame and parse but that no CRC vouches for (a
chunk whose CRC fails, the part of a damaged chunk that still decompresses,
the complete records before a cut) are left out and listed, as --skip-bad
leaves them out of a read. --keep-unverified keeps them: the output then
holds a metadata record, baglab_unverified, naming their count and byte
ranges, so that doctor, info and cat say so later. The default output is IN
with ".recovered.mcap" in place of its extension; IN is never modified.

Exit 0 when nothing was lost or unverified, 1 when the report lists
damaged stretches (the output holds every verified record).`,
		Example: "  baglab recover demo/data/broken/study-truncated.mcap    # exit 1\n  baglab recover demo/data/broken/study-crc.mcap -o fixed.mcap    # exit 1",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input = args[0]
			return runRecover(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output path")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite the output if it exists")
	cmd.Flags().BoolVar(&o.keepUnverified, "keep-unverified", false, "keep records no CRC vouches for, marked in the output (baglab_unverified metadata)")
	addFsyncFlag(cmd, &o.fsync)
	cmd.Flags().BoolVar(&o.dropUnverified, "drop-unverified", false, "leave out records no CRC vouches for")
	_ = cmd.Flags().MarkDeprecated("drop-unverified", "it is the default now")
	return cmd
}

// prepare checks the output (by default recording.RepairOutput) of a repair
// into format f; recording.Repair makes its folder.
func (o *repairOptions) prepare(f recording.Format) error {
	if o.output == "" {
		o.output = recording.RepairOutput(o.input, f)
	}
	return checkOutFile(o.output, "-o", o.force, []string{o.input})
}

// errDamaged ends a repair that wrote every intact message but met damage
// (exit 1): something of the input may be missing from the output.
var errDamaged = &exitError{code: exitProblem, err: errors.New("the input is damaged: the output holds every intact message, the ranges listed above are lost or unverified")}

// checkOutFormat refuses an -o whose extension names another format than
// want, the one the verb writes (exit 2, before any input is read).
func (o *repairOptions) checkOutFormat(verb string, want recording.Format) error {
	if o.output == "" {
		return nil
	}
	if f, err := recording.OutputFormat(o.output); err == nil && f != want {
		return usageErrorf("-o %s: %s writes a %s file, not %s", o.output, verb, want, f)
	}
	return nil
}

func runReindex(ctx context.Context, o *repairOptions) error {
	if err := o.checkOutFormat("reindex", recording.FormatBag); err != nil {
		return err
	}
	if f, err := recording.Sniff(o.input); err != nil {
		return err
	} else if f != recording.FormatBag {
		return usageErrorf("%s is a %s file; reindex is for ROS1 bags (use recover for MCAP)", o.input, f)
	}
	return o.repair(ctx, recording.FormatBag)
}

func runRecover(ctx context.Context, o *repairOptions) error {
	if err := o.checkOutFormat("recover", recording.FormatMCAP); err != nil {
		return err
	}
	if f, err := recording.Sniff(o.input); err != nil {
		return err
	} else if f != recording.FormatMCAP || isDir(o.input) {
		return usageErrorf("%s is not an MCAP file; recover is for MCAP (use reindex for ROS1 bags)", o.input)
	}
	return o.repair(ctx, recording.FormatMCAP)
}

// repair checks the output (prepare), rebuilds the input, a file of
// format f, into it and prints the report.
func (o *repairOptions) repair(ctx context.Context, f recording.Format) (err error) {
	if o.output == "" {
		o.output = recording.RepairOutput(o.input, f)
	}
	named := o.output // a URL stays the name the report gives
	done, err := o.g.stageOutputs(ctx, stagedOutput{path: &o.output, force: o.force})
	if err != nil {
		return err
	}
	defer func() {
		if err == errDamaged { // the output holds every intact message: publish it
			err = cmp.Or(done(nil), err)
		} else {
			err = done(err)
		}
	}()
	if err := o.prepare(f); err != nil {
		return err
	}
	rep, err := recording.Repair(ctx, f, o.input, o.output, recording.RepairOptions{KeepUnverified: o.keepUnverified, Remote: o.g.remote, Sync: o.fsync})
	if err != nil {
		return err
	}
	w := o.g.stdout
	fmt.Fprintf(w, "%s -> %s: %s\n", o.input, named, rep.Summary)
	for _, s := range rep.Stretches {
		what := "skipped"
		if s.Unverified {
			what = "kept unverified"
		}
		fmt.Fprintf(w, "  %s bytes [%d, %d): %s\n", what, s.Offset, s.Offset+s.Length, s.Reason())
	}
	if rep.Damaged {
		return errDamaged
	}
	return nil
}
