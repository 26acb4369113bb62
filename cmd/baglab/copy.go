package main

import (
	"cmp"
	"context"

	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

// copyOptions drive filter, convert and merge: read inputs, select
// messages, write one output recording.
type copyOptions struct {
	g           *globalOptions
	inputs      []string
	output      string
	read        readFlags
	compression string
	force       bool
	ros2        ros2Flags // --to ros2
	// keepROS2Fields keeps the fields of ROS 2 types that ROS1's
	// definitions lack, in a .bag OUT
	keepROS2Fields bool
	fsync          bool
}

func (o *copyOptions) addFlags(cmd *cobra.Command) {
	o.read.addFlags(cmd)
	o.ros2.addFlags(cmd)
	cmd.Flags().StringVar(&o.compression, "compression", "", "output compression: none|lz4|bz2 for .bag (default none), zstd|lz4|none for .mcap (default zstd; none with --to ros2)")
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite the output if it exists")
	addFsyncFlag(cmd, &o.fsync)
	cmd.Flags().BoolVar(&o.keepROS2Fields, "keep-ros2-fields", false,
		"with a .bag OUT: write a ROS 2 type whose ROS1 definition lacks some of its fields (Marker's texture) under a definition of its own fields, which ROS1 subscribers refuse, instead of under ROS1's without them")
	completeValues(cmd, "compression", "none", "lz4", "bz2", "zstd")
}

// newCopyCmd is one of filter, convert and merge: cmd with the copy
// flags, whose arguments split into the inputs and the output.
func newCopyCmd(g *globalOptions, cmd *cobra.Command, split func(args []string) (inputs []string, output string)) *cobra.Command {
	o := &copyOptions{g: g}
	cmd.RunE = func(cmd *cobra.Command, args []string) (err error) {
		o.inputs, o.output = split(args)
		done, err := g.stageOutputs(cmd.Context(), stagedOutput{path: &o.output, force: o.force})
		if err != nil {
			return err
		}
		defer func() { err = done(err) }()
		return runCopy(cmd.Context(), o)
	}
	o.addFlags(cmd)
	return cmd
}

// inThenOut splits the arguments IN OUT of filter and convert.
func inThenOut(args []string) ([]string, string) { return args[:1], args[1] }

func newFilterCmd(g *globalOptions) *cobra.Command {
	return newCopyCmd(g, &cobra.Command{
		Use:   "filter IN OUT",
		Short: "Copy the selected topics and time range of a recording",
		Long: `Copy the messages of IN selected by --topics, --start and --end to OUT,
keeping definitions, latching and metadata. OUT's extension (.bag or .mcap)
chooses its format; --to ros2 writes a rosbag2 folder, with the options
convert --help describes, so that a ROS 2 recording filtered stays one.

--start is inclusive and --end exclusive: --start S --end E keeps what
rosbag filter IN OUT "t.to_sec() >= S and t.to_sec() < E" keeps; a message
stamped exactly E is left out (rosbag's read_messages(end_time=E) and a
"t.to_sec() <= E" expression keep it).`,
		Example: "  baglab filter demo/data/study.bag grasps.bag --topics '/rail_pick_and_place/**'\n  baglab filter demo/data/study.mcap first-minute.mcap --end +60s",
		Args:    argsUsage(cobra.ExactArgs(2)),
	}, inThenOut)
}

func newConvertCmd(g *globalOptions) *cobra.Command {
	cmd := newCopyCmd(g, &cobra.Command{
		Use:   "convert IN... OUT",
		Short: "Convert between formats: bag ↔ mcap, db3 → mcap or bag, any → rosbag2 (ROS 2)",
		Long: `Convert IN (several are merged in log time order) to the format OUT's
extension names (.bag or .mcap), keeping definitions, latching and metadata.
ROS2 (CDR) messages written into a ROS1 bag are re-encoded in the ROS1 wire
format under the ROS1 definition baglab knows of the type (built in or
--msg-path), with its md5sum, which ROS1 subscribers check: fields paired
in order, by name but for case (CameraInfo's d is D again), those ROS 2
added left out (Marker's texture; a warning counts the messages that held
data there, and --keep-ros2-fields keeps them instead). A type ROS1 does
not define, or whose ROS1 definition has a field it lacks, goes under an
equivalent ROS1 definition of its fields (wstring → string, bounded
sequences → T[], byte → uint8).

--to ros2 writes OUT as a rosbag2 folder, as rosbags-convert does (or, when
OUT ends in .mcap or .db3, as that one storage file, which stores its
metadata and which ros2 bag opens alone: no folder, metadata.yaml or
splits): MCAP splits (--storage mcap, the default; chunks uncompressed, as
rosbag2 and rosbags-convert write them, or compressed with --compression
zstd|lz4, a third of the size on compressible data but slower, and stored
as rosbag2 stores them when under 1 KiB or when it saves less than 2%) or
sqlite3 splits (--storage sqlite3,
schema version 4), named OUT_0.mcap ..., a metadata.yaml of version 9, new
splits by --split-size and --split-duration (with --repeat-latched, each
split after the first starts with the last message of every latched topic),
and --compression-mode file|message (zstd of each split file or each
message). ROS1 types get their ROS 2 names (pkg/Type → pkg/msg/Type,
tf/tfMessage → tf2_msgs/msg/TFMessage, or as --rules FILE in ros1_bridge's
mapping_rules.yaml says), std_msgs/Header loses seq, time and duration
become builtin_interfaces Time and Duration, a latched connection is offered
with transient-local durability (a ROS 2 topic keeps the QoS profiles its
publisher offered), and every topic carries its RIHS01 type description
hash. With --distro, a ROS1 type that distribution defines (sensor_msgs,
visualization_msgs...) is written in its definition, with its type hash,
fields paired as ros1_bridge pairs them (by --rules, then by name in lower
case: CameraInfo's D becomes d), the fields it adds zero; one with a field
that has no place there keeps its ROS1 fields, and a warning says why.
Without it, every type keeps its ROS1 fields, as rosbags-convert keeps
them: a ROS 2 subscriber of a type ROS 2 extended (Marker) cannot decode
those messages. The ros_distro written is --distro's, else the one the inputs all
name; the inputs' custom_data is kept.`,
		Example: "  baglab convert demo/data/study.bag study.mcap\n  baglab convert demo/data/queries_rosbag2/ queries.bag --compression lz4\n  baglab convert demo/data/queries.db3 queries.mcap\n" +
			"  baglab convert demo/data/study.bag ros2_study --to ros2\n  baglab convert demo/data/all_types.bag ros2_jazzy --to ros2 --distro jazzy\n  baglab convert demo/data/study.bag ros2_study_db3 --to ros2 --storage sqlite3 --split-duration 60s",
		Args: argsUsage(cobra.MinimumNArgs(2)),
	}, func(args []string) ([]string, string) { return args[:len(args)-1], args[len(args)-1] })
	return cmd
}

func newMergeCmd(g *globalOptions) *cobra.Command {
	return newCopyCmd(g, &cobra.Command{
		Use:   "merge OUT IN...",
		Short: "Merge recordings into one, in log time order",
		Long: `Merge the messages of several recordings (any formats) into OUT, in log
time order (equal times keep the order of the inputs), keeping definitions,
latching and MCAP metadata and attachments; a connection (channel) that
several inputs hold alike, as the split bags of one recording do, is written
once. OUT comes first, as with cp's
target-directory form, so that a shell glob can follow; its extension (.bag
or .mcap) chooses the format, or --to ros2 writes a rosbag2 folder, with
the options convert --help describes. --topics, --start and --end select
as in cat.`,
		Example: "  baglab merge all.mcap demo/data/study.bag demo/data/queries.mcap\n  baglab merge placements.bag demo/data/study*.bag --topics '/interactive_world/placement*'",
		Args:    argsUsage(cobra.MinimumNArgs(2)),
	}, func(args []string) ([]string, string) { return args[1:], args[0] })
}

func runCopy(ctx context.Context, o *copyOptions) error {
	co := recording.CreateOptions{Compression: o.compression, Sync: o.fsync}
	format, err := o.ros2.format(o.output, &co, &o.read)
	if err != nil {
		return err
	}
	if format == recording.FormatROS2 && o.g.distro != "" {
		o.read.renames = o.read.renames.Native() // a recording of that distribution
	}
	if o.keepROS2Fields && format != recording.FormatBag {
		return usageErrorf("--keep-ros2-fields applies to a .bag OUT")
	}
	o.read.keepROS2Fields = o.keepROS2Fields
	if err := recording.CheckCompression(format, o.compression); err != nil {
		return usageErrorf("--compression: %v", err)
	}
	if format == recording.FormatROS2 && !co.ROS2.File {
		if err := checkNotInput(o.output, o.inputs); err != nil {
			return err
		}
		if err := checkOutFolder(o.output, "output", o.force); err != nil {
			return err
		}
	} else if err := checkOutFile(o.output, "output", o.force, o.inputs); err != nil {
		return err
	}
	in, err := o.g.open(o.inputs, &o.read, "copy", nil)
	if err != nil {
		return err
	}
	defer in.close()
	if format == recording.FormatROS2 {
		// --distro, else the distribution the inputs name, and their
		// custom_data: a ROS 2 recording converted again stays what it was
		co.ROS2.ROSDistro = cmp.Or(o.g.distro, in.NamedDistro())
		co.ROS2.CustomData = in.CustomData()
	}
	var n int64
	if err := writeRecording(ctx, o.output, co, func(w recording.Writer) (err error) {
		n, err = in.CopyTo(ctx, w, format)
		return err
	}); err != nil {
		return err
	}
	o.g.note("baglab: wrote %d messages to %s", n, o.output)
	return nil
}
