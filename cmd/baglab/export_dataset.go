package main

import (
	"context"
	"errors"

	"github.com/baglab/baglab/export"
)

// exportDataset exports inputs into o.out through its manifest
// (export.ExportDataset): inputs already there are skipped unless --force.
func (o *exportOptions) exportDataset(ctx context.Context, in *reading, inputs []export.DatasetInput, resolve export.Resolver, opts []export.Option, jobs int) error {
	g := o.g
	rep, err := export.ExportDataset(ctx, o.out, inputs, resolve, export.DatasetOptions{Force: o.force, Jobs: jobs, Note: g.note}, opts...)
	if errors.Is(err, export.ErrDataset) {
		return usageErrorf("--out %s: %v", o.out, err)
	}
	if err != nil {
		return outputError(o.out, err)
	}
	in.bar.done()
	if rep.Exported == 0 {
		g.note("baglab: nothing to export: all %d file(s) are in %s already (--force exports them again)", len(inputs), o.out)
		return nil
	}
	g.note("baglab: exported %d file(s) into %d dataset file(s) under %s", rep.Exported, len(rep.Files), o.out)
	if rep.Skipped > 0 {
		g.note("baglab: %d file(s) skipped: in %s already", rep.Skipped, o.out)
	}
	return nil
}
