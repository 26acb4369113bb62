package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/record"
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
   "compression","topics":[{"topic","type","encoding","md5","message_count","frequency_hz"}]}`,
		Example: "  baglab info study.bag\n  baglab info --json run1.mcap run2.mcap\n  baglab info rosbag2_folder/",
		Args:    argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			return runInfo(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "machine-readable JSON on stdout")
	return cmd
}

func runInfo(o *infoOptions) error {
	var sums []*record.Summary
	for _, path := range o.files {
		sum, err := summarise(path)
		if err != nil {
			return err
		}
		sums = append(sums, sum)
	}
	if o.json {
		enc := json.NewEncoder(o.g.stdout)
		enc.SetIndent("", "  ")
		if len(sums) == 1 {
			return enc.Encode(sums[0])
		}
		return enc.Encode(sums)
	}
	for i, s := range sums {
		if i > 0 {
			fmt.Fprintln(o.g.stdout)
		}
		if err := printSummary(o.g.stdout, s); err != nil {
			return err
		}
	}
	return nil
}

func summarise(path string) (*record.Summary, error) {
	r, err := decode.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sum, err := r.Summary()
	if err != nil {
		return nil, err
	}
	sum.Path = path
	if sum.Topics == nil {
		sum.Topics = []record.TopicSummary{}
	}
	return sum, nil
}

func formatNs(ns int64) string {
	if ns == 0 {
		return "-"
	}
	t := time.Unix(0, ns).UTC()
	return fmt.Sprintf("%s (%.6f)", t.Format("2006-01-02T15:04:05.000000Z07:00"), float64(ns)/1e9)
}

func printSummary(w io.Writer, s *record.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 2, 1, ' ', 0)
	fmt.Fprintf(tw, "path:\t%s\n", s.Path)
	fmt.Fprintf(tw, "format:\t%s\n", s.Format)
	fmt.Fprintf(tw, "duration:\t%s\n", time.Duration(s.DurationNs).Round(time.Microsecond))
	fmt.Fprintf(tw, "start:\t%s\n", formatNs(s.StartNs))
	fmt.Fprintf(tw, "end:\t%s\n", formatNs(s.EndNs))
	fmt.Fprintf(tw, "messages:\t%d\n", s.MessageCount)
	fmt.Fprintf(tw, "compression:\t%s\n", s.Compression)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Topics) == 0 {
		_, err := fmt.Fprintln(w, "topics:      none")
		return err
	}
	fmt.Fprintln(w, "topics:")
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, t := range s.Topics {
		freq := ""
		if t.FrequencyHz > 0 {
			freq = fmt.Sprintf("%.4g Hz", t.FrequencyHz)
		}
		fmt.Fprintf(tw, "  %s\t%d msgs\t%s\t%s\t%s\t%s\n", t.Topic, t.MessageCount, freq, t.Type, t.Encoding, t.MD5)
	}
	return tw.Flush()
}
