//go:build !baglab_lean

package main

import (
	"context"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

func addTFFrameFlag(cmd *cobra.Command, frame *string) {
	cmd.Flags().StringVar(frame, "tf-frame", "", "add to every message with a Header and poses, points, transforms or tf2's vectors (Vector3Stamped, Wrench), in arrays too, the same values in this frame (field in_<FRAME>; each from the innermost header's frame at its stamp; null, an empty CSV cell, where no transform exists), from the recordings' /tf and /tf_static")
}

// explodeTFAlong makes the in_<frame> mirror of an exploded array explode
// in step with it: one pose and the same pose in frame on each row.
func explodeTFAlong(a export.Arrays, frame string) export.Arrays {
	if frame != "" && a.Mode == export.ArraysExplode {
		a.Along = []string{tf.FieldName(frame) + "." + a.Path}
	}
	return a
}

// tfFramed returns what wraps an input's messages so that those it can
// express in frame get the in_<frame> field, with the transforms of every
// TF topic of the files (whatever the selection: static transforms come
// first).
func tfFramed(ctx context.Context, g *globalOptions, files []string, read readFlags, frame string) (func(export.Messages) export.Messages, error) {
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
	return func(m export.Messages) export.Messages {
		return &framedMessages{Messages: m, f: f, wrapped: map[decode.Decoder]decode.Decoder{}}
	}, nil
}

// framedMessages are messages whose decoders f wraps (once per decoder).
type framedMessages struct {
	export.Messages
	f       *tf.Framer
	wrapped map[decode.Decoder]decode.Decoder
}

func (m *framedMessages) Next() (*record.Message, decode.Decoder, error) {
	msg, d, err := m.Messages.Next()
	if err != nil || d == nil {
		return msg, d, err
	}
	w, ok := m.wrapped[d]
	if !ok {
		w = d
		if fw, ok := m.f.Wrap(d); ok {
			w = fw
		}
		m.wrapped[d] = w
	}
	return msg, w, nil
}
