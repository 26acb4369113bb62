package main

import (
	"cmp"
	"context"
	"errors"

	"github.com/baglab/baglab/recording/remote"
)

// stagedOutput is an output path of a verb that may name object storage
// (s3://bucket/out/...): dir when it is a folder, pull its sub-folders
// that the verb reads back (an export's manifest), read when it is a file
// the verb reads and may rewrite (a baseline: remote.StageFile).
//
// An output that neither pulls nor reads follows the rule of local
// outputs: an object at its URL (objects under it, for dir) is refused
// (exit 5) unless force, and with force a folder replaces every object
// under its prefix (remote.Output.ReplaceWhole).
type stagedOutput struct {
	path  *string
	dir   bool
	pull  []string
	read  bool
	force bool
}

// stageOutputs turns every output path of outs that is a URL into a
// private local one (remote.StageOutput), which the verb writes as any
// local output; done, called with the verb's error, publishes them when
// it is nil — each file one object, written whole — and removes the
// local copies in any case, returning the error to report. An existing
// output without force is staged too and refused later (g.refused), by
// g.open or by done: the verb checks its flags first.
func (g *globalOptions) stageOutputs(ctx context.Context, outs ...stagedOutput) (done func(error) error, err error) {
	var staged []*remote.Output
	done = func(err error) error {
		if err == nil {
			err = g.refused // a verb that opened no input: refused still, nothing published
		}
		for _, s := range staged {
			if err == nil {
				var urls []string
				if urls, err = s.Publish(ctx); err != nil {
					err = outputError(s.URL(), err)
				} else if len(urls) > 0 {
					g.note("baglab: uploaded %d object(s) to %s", len(urls), s.URL())
				}
			}
			s.Close()
		}
		return err
	}
	for _, o := range outs {
		if *o.path == "" || !remote.IsURL(*o.path) {
			continue
		}
		var s *remote.Output
		var err error
		switch {
		case o.read:
			s, err = remote.StageFile(ctx, g.remote, *o.path)
		case o.pull != nil:
			s, err = remote.StageOutput(ctx, *o.path, o.dir, o.pull...)
		default:
			var refused error
			if refused, err = refusal(ctx, *o.path, o.dir, o.force); err != nil {
				return nil, done(err)
			}
			g.refused = cmp.Or(g.refused, refused) // reported after the flags are checked (g.open, done)
			if s, err = remote.StageOutput(ctx, *o.path, o.dir); err == nil && o.dir && o.force {
				if err = s.ReplaceWhole(); err != nil {
					s.Close()
				}
			}
		}
		if err != nil {
			return nil, done(outputError(*o.path, err))
		}
		staged = append(staged, s)
		*o.path = s.Local()
	}
	return done, nil
}

// refusal is the error refusing the output url when an object is there
// (objects under it, for dir) and not force, as checkOutFile and
// checkOutFolder refuse a local one; err is a failure to look.
func refusal(ctx context.Context, url string, dir, force bool) (refused, err error) {
	if force {
		return nil, nil
	}
	exists, err := remote.Exists(ctx, url, dir)
	switch {
	case err != nil:
		return nil, outputError(url, err)
	case exists && dir:
		return outputError(url, errors.New("objects are under the prefix (use --force to replace them)")), nil
	case exists:
		return outputError(url, errors.New("the object exists (use --force to overwrite)")), nil
	}
	return nil, nil
}
