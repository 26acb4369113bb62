//go:build !baglab_lean

package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis/timesync"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/export"
	"github.com/spf13/cobra"
)

// syncFlags are export's --sync flags: one dataset of matched sets.
type syncFlags struct {
	topics []string
	slop   time.Duration
	queue  int
	policy string
}

// syncTable is the dataset --sync writes under --out.
const syncTable = "synced"

func (s *syncFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&s.topics, "sync", nil, "write one dataset (DIR/synced.parquet) of the sets of these topics' messages matched on header stamps, as message_filters' synchronizers match them")
	fl.DurationVar(&s.slop, "slop", 0, "--sync: the largest spread of stamps in a set (ApproximateTimeSynchronizer's slop)")
	fl.IntVar(&s.queue, "sync-queue", 10, "--sync: messages kept per topic while waiting for a set (queue_size)")
	fl.StringVar(&s.policy, "sync-policy", "approximate", "--sync: approximate (ApproximateTimeSynchronizer) or exact (TimeSynchronizer)")
	completeValues(cmd, "sync-policy", "approximate", "exact")
}

// options checks the --sync flags and returns the synchronizer's options.
func (s *syncFlags) options(o *exportOptions) (timesync.Options, error) {
	policy, err := timesync.ParsePolicy(s.policy)
	if err != nil {
		return timesync.Options{}, usageErrorf("--sync-policy: %v", err)
	}
	switch {
	case len(s.topics) < 2:
		return timesync.Options{}, usageErrorf("--sync needs two topics or more")
	case len(o.read.topics) > 0:
		return timesync.Options{}, usageErrorf("--sync chooses the topics: leave out --topics")
	case o.partitionBy != "none":
		return timesync.Options{}, usageErrorf("--sync writes one dataset: leave out --partition-by")
	case o.tfFrame != "":
		return timesync.Options{}, usageErrorf("--sync writes the topics' own fields: leave out --tf-frame")
	case s.queue < 1:
		return timesync.Options{}, usageErrorf("--sync-queue must be >= 1")
	case policy == timesync.Approximate && s.slop <= 0:
		return timesync.Options{}, usageErrorf("--sync with the approximate policy needs --slop > 0")
	case policy == timesync.Exact && s.slop != 0:
		return timesync.Options{}, usageErrorf("--slop applies to --sync-policy approximate")
	}
	seen := map[string]bool{}
	for _, t := range s.topics {
		if seen[t] {
			return timesync.Options{}, usageErrorf("--sync names %s twice", t)
		}
		seen[t] = true
	}
	return timesync.Options{Policy: policy, QueueSize: s.queue, Slop: int64(s.slop)}, nil
}

// runExportSync writes the matched sets of o.sync.topics as one dataset.
func runExportSync(ctx context.Context, o *exportOptions, opts []export.Option) error {
	so, err := o.sync.options(o)
	if err != nil {
		return err
	}
	o.read.topics = o.sync.topics
	in, err := o.g.open(o.files, &o.read, "export", nil)
	if err != nil {
		return err
	}
	defer in.close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	it, err := in.Messages(ctx)
	if err != nil {
		return err
	}
	defer it.Close()
	var table *export.Table
	n := uint64(0)
	err = timesync.Run(ctx, it, in.Resolver(), o.sync.topics, so, in.Skip, func(j *timesync.Joined, set timesync.Set) error {
		if table == nil {
			t, err := export.NewTable(o.out, syncTable, j.Type, j.Definition, opts...)
			if err != nil {
				return outputError(o.out, err)
			}
			table = t
		}
		last := set[0]
		for _, m := range set {
			if m.LogTime > last.LogTime {
				last = m
			}
		}
		meta := export.Meta{LogTime: last.LogTime, PublishTime: last.LogTime, Sequence: n, Source: last.Source}
		n++
		return table.Add(meta, export.DecoderFunc(func(_ []byte, s sink.Sink) error { return j.Decode(set, s) }))
	})
	if errors.Is(err, timesync.ErrNoHeader) {
		err = usageErrorf("--sync: %v", err)
	}
	if err != nil {
		if table != nil {
			table.Abort()
		}
		return err
	}
	if table == nil {
		o.g.warn("baglab: --sync %s: no set matched, nothing written", strings.Join(o.sync.topics, ","))
		return nil
	}
	if err := table.Close(); err != nil {
		return outputError(o.out, err)
	}
	o.g.note("baglab: wrote %d matched set(s) of %s to %s", n, strings.Join(o.sync.topics, ","), strings.Join(table.Files(), ", "))
	return nil
}
