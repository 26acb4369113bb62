package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

type infoOptions struct {
	g     *globalOptions
	files []string
	json  bool
}

func newInfoCmd(g *globalOptions) *cobra.Command {
	o := &infoOptions{g: g}
	cmd := &cobra.Command{
		Use:   "info FILE...",
		Short: "Summarise recordings: duration, message counts, topics, types",
		Long: `Summarise each recording. Reads only the index or summary section when the
file has one, so it is fast on large files. With --json prints one object per
file (an array when several files are given):
  {"path","format","start_ns","end_ns","duration_ns","message_count",
   "compression","topics":[{"topic","type","encoding","md5","message_count",
   "start_ns","end_ns","frequency_hz"}]}
plus "metadata" and "attachments" for MCAP files, "rosbag2" for a rosbag2
folder (what its metadata.yaml says of it: {"version","storage_identifier",
"relative_file_paths","compression_format","compression_mode","ros_distro",
"custom_data"}; the text has it as the rosbag2: and custom_data: lines), and
"types" for a topic whose connections carry several types. A topic's frequency_hz is its mean
rate over its own span, (message_count-1)/(end_ns-start_ns) in Hz, the same
for every format (rosbag info --freq prints the median rate).

A folder that is not one rosbag2 recording stands for the recordings in it
(.bag, .mcap, .db3 files and rosbag2 folders, in name order), each
summarised apart. A file that cannot be read gets an error line on stderr
while the others are summarised; the exit code is then that of the first
failure.`,
		Example: "  baglab info demo/data/study.bag\n  baglab info --json demo/data/study.mcap demo/data/queries.mcap\n  baglab info demo/data/queries_rosbag2/",
		Args:    argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			return runInfo(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "machine-readable JSON on stdout")
	return cmd
}

func runInfo(ctx context.Context, o *infoOptions) error {
	var failed error
	for _, f := range o.files {
		if note := recording.FolderNote(f); note != "" {
			o.g.warn("baglab: warning: %s", note)
		}
	}
	sums, paths, err := recording.DescribeEach(ctx, o.files, recording.OpenOptions{Remote: o.g.remote}, func(path string, err error) {
		// Go on with the other files; the first failure decides the exit
		// code.
		printError(o.g.stderr, err)
		failed = cmp.Or(failed, err)
	})
	if err != nil {
		return err
	}
	one := len(o.files) == 1 && len(paths) == 1 && paths[0] == o.files[0]
	if err := printInfos(o, sums, one); err != nil {
		return err
	}
	if failed != nil {
		return &exitError{code: exitCode(failed)}
	}
	return nil
}

// printInfos prints the summaries; with --json one object when one
// recording was named, else an array.
func printInfos(o *infoOptions, sums []*recording.Description, one bool) error {
	if o.json {
		enc := json.NewEncoder(o.g.stdout)
		enc.SetIndent("", "  ")
		if len(sums) == 1 && one {
			return enc.Encode(sums[0])
		}
		if sums == nil {
			sums = []*recording.Description{}
		}
		return enc.Encode(sums)
	}
	for i, s := range sums {
		if i > 0 {
			fmt.Fprintln(o.g.stdout)
		}
		if err := s.WriteText(o.g.stdout); err != nil {
			return err
		}
	}
	return nil
}
