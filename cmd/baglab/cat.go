package main

import (
	"context"
	"strings"

	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

type catOptions struct {
	g      *globalOptions
	files  []string
	read   readFlags
	limit  int64
	fields []string
	shape  string
}

func newCatCmd(g *globalOptions) *cobra.Command {
	o := &catOptions{g: g}
	cmd := &cobra.Command{
		Use:   "cat FILE... (or - for stdin)",
		Short: "Print messages as NDJSON, decoded from the definitions in the file",
		Long: `Print messages as NDJSON on stdout, one per line, in log time order (several
files are merged by time):
  {"topic","type","log_time_ns","message":{...}}
Field names are exactly as defined. ROS1 time/duration appear as
{"sec","nsec"}; ROS2 builtin_interfaces keep their own fields; uint8[]/char[]
are base64 strings; NaN and ±Inf are the strings "NaN", "Infinity",
"-Infinity"; 64-bit integers are exact; text that is not valid UTF-8 reads
with U+FFFD in place of each invalid sequence, as rosbag reads it.

--fields publish_time,sequence,source adds "publish_time_ns" (ns; the log
time where the format has none), "sequence" (the MCAP sequence number, or
for bags and rosbag2 the message's number among those read from its file,
from 0) and "source" (the
file) after log_time_ns.

--shape mcap prints the lines of mcap cat --json instead, so jq scripts
written for the mcap CLI keep working:
  baglab                              --shape mcap (mcap cat --json)
  "topic"                             "topic"
  "type"                              (none)
  "log_time_ns": 1714564800000000001  "log_time": 1714564800.000000001
  "publish_time_ns" (--fields)        "publish_time" (decimal seconds)
  "sequence" (--fields)               "sequence"
  "message"                           "data"

FILE - reads one recording from stdin, a ROS1 bag (indexed or not) or an
MCAP file, once and front to back: it may come through a pipe. It is kept
in an unlinked temporary file while it arrives and then read like a file
(the same order and errors); the output starts when stdin ends.`,
		Example: `  baglab cat demo/data/study.bag --topics /interactive_world/placement --limit 5
  baglab cat demo/data/study.mcap --topics '/rail_pick_and_place/**' --start +10s --end +20s
  baglab cat demo/data/study.bag demo/data/study-lz4.mcap | jq -c '.message.factList[]?'
  baglab cat demo/data/queries.db3 | jq -r '.topic' | sort | uniq -c
  cat demo/data/study.mcap | baglab cat - --fields publish_time,sequence --limit 3
  baglab cat demo/data/study.mcap --shape mcap | jq -c 'select(.topic == "/lama/objects") | [.log_time, .data.name]'`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if o.limit < 0 {
				return usageErrorf("--limit must be >= 0")
			}
			if err := recording.CheckNDJSON(o.lineOptions()); err != nil {
				return usageErrorf("%v", err)
			}
			return runCat(cmd.Context(), o)
		},
	}
	o.read.addFlags(cmd)
	cmd.Flags().Int64VarP(&o.limit, "limit", "n", 0, "stop after N messages (0 = all)")
	cmd.Flags().StringSliceVar(&o.fields, "fields", nil, "add these to each line: "+strings.Join(recording.NDJSONFields, ", "))
	cmd.Flags().StringVar(&o.shape, "shape", "baglab", "line layout: baglab, or mcap (the lines of mcap cat --json)")
	_ = cmd.RegisterFlagCompletionFunc("fields", cobra.FixedCompletions(recording.NDJSONFields, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("shape", cobra.FixedCompletions(recording.NDJSONShapes, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runCat(ctx context.Context, o *catOptions) error {
	o.read.inPlace = true // WriteNDJSON renders Pinned data where it lies
	in, err := o.g.open(o.files, &o.read, "cat", nil)
	if err != nil {
		return err
	}
	defer in.close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	_, err = in.WriteNDJSON(ctx, o.g.stdout, o.lineOptions())
	return err
}

func (o *catOptions) lineOptions() recording.NDJSONOptions {
	return recording.NDJSONOptions{Limit: o.limit, Fields: o.fields, Shape: o.shape}
}
