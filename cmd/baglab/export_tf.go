package main

import (
	"context"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

func addTFFrameFlag(cmd *cobra.Command, frame *string) {
	cmd.Flags().StringVar(frame, "tf-frame", "", "add to every message with a Header and a pose, point or transform the same value in this frame (field in_<FRAME>; NaN where no transform exists at the stamp), from the recordings' /tf and /tf_static")
}

// tfFramed wraps resolve so that the messages it can express in frame get
// the in_<frame> field, with the transforms of every TF topic of the
// files (whatever the selection: static transforms come first).
func tfFramed(ctx context.Context, g *globalOptions, files []string, read readFlags, frame string, resolve export.Resolver) (export.Resolver, error) {
	o, err := g.inputOptions(files, &readFlags{skipBad: read.skipBad, keepUnverified: read.keepUnverified})
	if err != nil {
		return nil, err
	}
	in, err := recording.OpenInputs(files, o)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	r, _, err := tf.Read(ctx, in, "")
	if err != nil {
		return nil, err
	}
	if r.Transforms == 0 {
		g.warn("baglab: --tf-frame %s: the recordings hold no transforms (no tf2_msgs/TFMessage topic)", frame)
	} else if !r.Buffer.HasFrame(frame) {
		g.warn("baglab: --tf-frame %s: no transform names that frame (frames: %v)", frame, r.Buffer.Frames())
	}
	f := tf.NewFramer(r.Buffer, frame)
	return func(ch *record.Channel) (export.TypedDecoder, error) {
		d, err := resolve(ch)
		if err != nil {
			return nil, err
		}
		if w, ok := f.Wrap(d); ok {
			return w, nil
		}
		return d, nil
	}, nil
}
