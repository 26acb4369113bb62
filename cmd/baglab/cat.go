package main

import (
	"github.com/baglab/baglab/decode"
	"github.com/spf13/cobra"
)

type catOptions struct {
	g     *globalOptions
	files []string
	read  readFlags
	limit int64
}

func newCatCmd(g *globalOptions) *cobra.Command {
	o := &catOptions{g: g}
	cmd := &cobra.Command{
		Use:   "cat FILE...",
		Short: "Print messages as NDJSON, decoded from the definitions in the file",
		Long: `Print messages as NDJSON on stdout, one per line, in log time order (several
files are merged by time):
  {"topic","type","log_time_ns","message":{...}}
Field names are exactly as defined. ROS1 time/duration appear as
{"sec","nsec"}; ROS2 builtin_interfaces keep their own fields; uint8[]/char[]
are base64 strings; NaN and ±Inf are the strings "NaN", "Infinity",
"-Infinity"; 64-bit integers are exact.`,
		Example: `  baglab cat demo/data/study.bag --topics /interactive_world/placement --limit 5
  baglab cat demo/data/study.mcap --topics '/rail_pick_and_place/**' --start +10s --end +20s
  baglab cat demo/data/study.bag demo/data/study-lz4.mcap | jq -c '.message.factList[]?'
  baglab cat demo/data/queries.db3 | jq -r '.topic' | sort | uniq -c`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if o.limit < 0 {
				return usageErrorf("--limit must be >= 0")
			}
			return runCat(o)
		},
	}
	o.read.addFlags(cmd)
	cmd.Flags().Int64VarP(&o.limit, "limit", "n", 0, "stop after N messages (0 = all)")
	return cmd
}

func runCat(o *catOptions) error {
	in, err := o.g.open(o.files, &o.read, "cat", nil)
	if err != nil {
		return err
	}
	defer in.close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	_, err = in.WriteNDJSON(o.g.ctx, o.g.stdout, decode.NDJSONOptions{Limit: o.limit})
	return err
}
