package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/digest"
	"github.com/baglab/baglab/internal/parallel"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// DatasetInput is one recording of ExportDataset.
type DatasetInput struct {
	Input
	// Summary is the recording's own summary (container format, times,
	// topics) for its manifest row: its Format, and its totals when they
	// are not those exported (ManifestRow.Recording); nil leaves those
	// empty.
	Summary *record.Summary
	// Selection describes which of its messages are exported (the
	// command's --topics, --start and --end); "" is all of them.
	// An input the manifest holds with another selection is not skipped:
	// ExportDataset fails with ErrLayout unless Force.
	Selection string
	// Digest, when set, gives the input's content digest once it has been
	// exported: a remote object hashed while the export reads it
	// (recording.DigestWhileReading), so that each byte is fetched once.
	// Its parts are then written under a private hidden folder of the
	// directory and moved into place once the digest names them; an input
	// the manifest holds already is skipped then, after its export. Nil
	// hashes Path first (recording.Digest).
	Digest func() (digest.Digest, error)
}

// DatasetOptions configure ExportDataset.
type DatasetOptions struct {
	// Force exports inputs the manifest holds already again, replacing
	// their parts and rows, and lets a directory that holds files but no
	// manifest be written into.
	Force bool
	// Jobs is the number of inputs hashed and exported at once (>= 1).
	Jobs int
	// Note receives one line per input skipped.
	Note func(format string, args ...any)
}

// DatasetReport is what ExportDataset did.
type DatasetReport struct {
	// Exported and Skipped count the inputs written and those the manifest
	// held already with the same content (or that repeated an earlier
	// input of the same run).
	Exported, Skipped int
	// Files are the files written, relative to the directory, sorted.
	Files []string
}

// Errors of ExportDataset about the output directory; each wraps
// ErrDataset.
var (
	// ErrDataset is the root of the errors about the output directory.
	ErrDataset = errors.New("export: output directory")
	// ErrNotDataset: the directory holds files but no manifest.
	ErrNotDataset = fmt.Errorf("%w holds files but no baglab manifest (%s)", ErrDataset, ManifestDir)
	// ErrLayout: the manifest's inputs were exported with another
	// partitioning or format.
	ErrLayout = fmt.Errorf("%w was exported with other options", ErrDataset)
	// ErrAppend: an unpartitioned export into a directory that holds
	// files.
	ErrAppend = fmt.Errorf("%w is not empty", ErrDataset)
)

// ExportDataset exports inputs into the dataset directory dir and records
// each in the directory's manifest (see ManifestRow; ManifestDir). An input
// whose content (SHA-256) the manifest holds already is skipped, unless
// do.Force, so running it again changes nothing, and a run that was
// interrupted resumes with the inputs not yet recorded.
//
// Partitioned (WithPartitionBy), every input is exported on its own, up to
// do.Jobs at once, into part files named by its content hash
// (part-<first 16 hex digits of its sha256>.parquet); its files are renamed
// into place and then its manifest row is written atomically. Several
// processes or machines may export into one directory at once: they never
// write the same file, except for the same input, which gives the same
// bytes. With do.Force, parts of the input's old row that the new export
// did not write again are removed.
//
// A directory that holds files but no manifest is refused (ErrNotDataset)
// unless do.Force; one exported with another partitioning or format is
// refused (ErrLayout) unless do.Force.
//
// Unpartitioned, the run writes one file per topic from all its inputs, as
// Exporter.Run does, and no manifest: such files hold the rows of one run
// and are never added to, so a directory that holds files is refused
// (ErrAppend) unless do.Force, which writes over them.
func ExportDataset(ctx context.Context, dir string, inputs []DatasetInput, do DatasetOptions, opts ...Option) (*DatasetReport, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	// One buffer pool, one set of compiled types and one of Parquet
	// layouts for every input.
	opts = append(slices.Clone(opts), WithAllocator(cfg.mem), withCaches(&cfg))
	jobs := max(do.Jobs, 1)
	note := do.Note
	if note == nil {
		note = func(string, ...any) {}
	}
	existing, err := manifestFiles(dir)
	if err != nil {
		return nil, err
	}
	if cfg.partition == PartitionNone {
		return exportPlain(ctx, dir, inputs, existing, do, opts)
	}
	if !do.Force {
		if err := checkDatasetDir(dir); err != nil {
			return nil, err
		}
		if len(existing) > 0 {
			if err := checkLayout(existing[0], cfg); err != nil {
				return nil, err
			}
		}
	}
	// The manifest folder first: a directory with it is a dataset, even
	// when the first input's export is interrupted. A run that records
	// nothing takes away the folders it made.
	var made atomicfile.DirSet
	if err := made.MkdirAll(filepath.Join(dir, filepath.FromSlash(ManifestDir))); err != nil {
		return nil, err
	}
	rep, err := exportDataset(ctx, dir, inputs, jobs, do.Force, note, cfg, opts)
	if rep == nil || rep.Exported == 0 && rep.Skipped == 0 {
		made.RemoveEmpty()
	}
	return rep, err
}

// checkLayout fails with ErrLayout unless the manifest row in file was
// exported with cfg's partitioning and format.
func checkLayout(file string, cfg config) error {
	r, err := readManifestFile(file)
	if err != nil {
		return err
	}
	if r.PartitionBy != cfg.partition.String() || r.OutputFormat != cfg.format.String() {
		return fmt.Errorf("%w: --partition-by %s --format %s (as %s), not %s and %s; use another directory or --force",
			ErrLayout, r.PartitionBy, r.OutputFormat, r.Path, cfg.partition, cfg.format)
	}
	return nil
}

// exportDataset hashes the inputs, skips those recorded and exports the
// rest.
func exportDataset(ctx context.Context, dir string, inputs []DatasetInput, jobs int, force bool,
	note func(string, ...any), cfg config, opts []Option) (*DatasetReport, error) {
	digests, err := digestAll(ctx, inputs, jobs)
	if err != nil {
		return nil, err
	}
	r := &datasetRun{dir: dir, inputs: inputs, digests: digests, old: make([]*ManifestRow, len(inputs)),
		seen: map[string]string{}, force: force, note: note, rep: &DatasetReport{}}
	var todo []int
	for i := range inputs {
		if inputs[i].Digest != nil {
			todo = append(todo, i) // decided once exported (exportParts)
			continue
		}
		export, err := r.decide(i)
		if err != nil {
			return nil, err
		}
		if export {
			todo = append(todo, i)
		}
	}
	return r.rep, exportParts(ctx, r, todo, jobs, cfg, opts)
}

// datasetRun is what ExportDataset knows of its inputs while it runs.
type datasetRun struct {
	dir     string
	inputs  []DatasetInput
	digests []digest.Digest
	old     []*ManifestRow // the manifest's rows of the inputs exported again
	force   bool
	note    func(string, ...any)

	mu   sync.Mutex
	seen map[string]string // input path by content hash
	rep  *DatasetReport
}

// decide tells whether input i, whose digest is known, is exported: not
// when an earlier input had the same content, or the manifest holds it
// (unless force; with another selection that is an error). It records
// the manifest's row of an input exported again.
func (r *datasetRun) decide(i int) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in, sha := &r.inputs[i], r.digests[i].SHA256
	if first, dup := r.seen[sha]; dup {
		r.note("baglab: %s: same content as %s (sha256 %s); exported once", in.Path, first, sha[:16])
		r.rep.Skipped++
		return false, nil
	}
	r.seen[sha] = in.Path
	row, err := ReadManifestRow(r.dir, sha)
	if err != nil && !errors.Is(err, ErrNoManifestRow) {
		return false, err
	}
	if row != nil && !r.force && row.Selection != in.Selection {
		return false, fmt.Errorf("%w: %s was exported into it with %s, this run selects %s; use --force to export it again, or another directory",
			ErrLayout, in.Path, selection(row.Selection), selection(in.Selection))
	}
	if row != nil && !r.force {
		r.note("baglab: %s: already in %s (exported from %s by baglab %s, sha256 %s); skipped", in.Path, r.dir, row.Path, row.BaglabVersion, sha[:16])
		r.rep.Skipped++
		return false, nil
	}
	r.old[i] = row
	return true, nil
}

// checkDatasetDir fails with ErrNotDataset when dir holds files and no
// manifest folder.
func checkDatasetDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ManifestDir))); err == nil {
		return nil
	}
	f, err := firstFile(dir)
	if err == nil && f != "" {
		err = fmt.Errorf("%w: %s is not from a baglab export; use an empty directory or --force", ErrNotDataset, f)
	}
	return err
}

// firstFile returns a file under dir ("" when none, or no dir), leaving
// out hidden names such as the temporary files of an interrupted run.
func firstFile(dir string) (string, error) {
	found := ""
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	return found, err
}

// digestAll hashes the inputs, jobs at a time, but those hashed while they
// are exported (DatasetInput.Digest).
func digestAll(ctx context.Context, inputs []DatasetInput, jobs int) ([]digest.Digest, error) {
	out := make([]digest.Digest, len(inputs))
	err := parallel.For(ctx, len(inputs), jobs, func(_ context.Context, i int) error {
		if inputs[i].Digest != nil {
			return nil // hashed while it is exported
		}
		var err error
		if out[i], err = recording.Digest(inputs[i].Path); err != nil {
			return fmt.Errorf("export: hashing %s: %w", inputs[i].Path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// partOf is the name of an input's part files: its content hash.
func partOf(d digest.Digest) string { return d.SHA256[:16] }

// exportParts exports each input of todo on its own and records it. Up to
// jobs inputs are encoded at once; an encoded input's commit (its footers,
// syncs and renames, then its manifest row) runs beside the next inputs,
// up to jobs commits at once, so that waiting for the disk does not leave
// a core idle. An input hashed while it is exported is exported into a
// private hidden folder, under a provisional part name, and decided once
// its digest is known: skipped, or its parts moved into place under their
// names.
func exportParts(ctx context.Context, r *datasetRun, todo []int, jobs int, cfg config, opts []Option) error {
	var (
		commits sync.WaitGroup
		slots   = make(chan struct{}, jobs)
		errs    = make([]error, len(todo)) // by position in todo
		dir     = r.dir
	)
	// No new input starts after a failure; in-flight ones finish (and
	// are recorded): they get ctx, not the context For and a failed
	// commit cancel.
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	forErr := parallel.For(stop, len(todo), jobs, func(_ context.Context, k int) error {
		i := todo[k]
		in := partInput(r, i)
		into, stage := dir, ""
		if r.inputs[i].Digest != nil {
			var err error
			if stage, err = os.MkdirTemp(dir, ".baglab-stage-*"); err != nil {
				errs[k] = err
				return err
			}
			into, in.Part = stage, pendingPart
		}
		fail := func(err error) error {
			if stage != "" {
				os.RemoveAll(stage)
			}
			errs[k] = err
			return err
		}
		e, err := runExporter(ctx, into, []Input{in}, 1, opts)
		if err != nil {
			return fail(err)
		}
		if stage != "" {
			d, err := r.inputs[i].Digest()
			if err != nil {
				e.Abort()
				return fail(fmt.Errorf("export: hashing %s: %w", in.Path, err))
			}
			r.digests[i] = d
			export, err := r.decide(i)
			if err != nil || !export {
				e.Abort()
				os.RemoveAll(stage)
				errs[k] = err
				return err
			}
		}
		slots <- struct{}{}
		commits.Add(1)
		go func() {
			defer commits.Done()
			defer func() { <-slots }()
			files, err := closeExporter(into, e)
			if err == nil && stage != "" {
				files, err = moveParts(stage, dir, files, partOf(r.digests[i]))
			}
			if stage != "" {
				os.RemoveAll(stage)
			}
			if err == nil {
				if o := r.old[i]; o != nil {
					removeStale(dir, o.Parts, files)
				}
				// the input is number 0 of its own Exporter
				err = WriteManifestRow(dir, newRow(&r.inputs[i], r.digests[i], cfg, files, e.exported(0)))
			}
			if err != nil {
				errs[k] = err
				cancel()
				return
			}
			r.mu.Lock()
			r.rep.Exported++
			r.rep.Files = append(r.rep.Files, files...)
			r.mu.Unlock()
		}()
		return nil
	})
	commits.Wait()
	slices.Sort(r.rep.Files)
	if err := parallel.FirstError(errs); err != nil {
		return err
	}
	return forErr
}

// partInput returns input i of r with the part name of its content hash,
// when known.
func partInput(r *datasetRun, i int) Input {
	in := r.inputs[i].Input
	if r.inputs[i].Digest == nil {
		in.Part = partOf(r.digests[i])
	}
	return in
}

// pendingPart is the provisional part name of an input exported before
// its content hash is known.
const pendingPart = "pending"

// moveParts moves the files (relative to stage, named with pendingPart)
// into dir under the part name part, and returns them relative to dir.
func moveParts(stage, dir string, files []string, part string) ([]string, error) {
	var made atomicfile.DirSet
	out := make([]string, 0, len(files))
	for _, rel := range files {
		d, name := path.Split(rel)
		rest, ok := strings.CutPrefix(name, "part-"+pendingPart)
		if !ok {
			return out, fmt.Errorf("export: %s is not a part file", rel)
		}
		to := d + "part-" + part + rest
		dst := filepath.Join(dir, filepath.FromSlash(to))
		if err := made.MkdirAll(filepath.Dir(dst)); err != nil {
			return out, err
		}
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(rel)), dst); err != nil {
			return out, err
		}
		out = append(out, to)
	}
	slices.Sort(out)
	return out, nil
}

// exportAll exports inputs, jobs at a time, through an Exporter of their
// own, closing it (or aborting it on error or cancellation), and returns
// the files written, relative to dir.
func exportAll(ctx context.Context, dir string, inputs []Input, jobs int, opts []Option) ([]string, error) {
	e, err := runExporter(ctx, dir, inputs, jobs, opts)
	if err != nil {
		return nil, err
	}
	return closeExporter(dir, e)
}

// runExporter runs inputs, jobs at a time, through a new Exporter, which
// it aborts on an error or a cancellation; the caller closes it
// (closeExporter).
func runExporter(ctx context.Context, dir string, inputs []Input, jobs int, opts []Option) (*Exporter, error) {
	e, err := New(dir, opts...)
	if err != nil {
		return nil, err
	}
	if err := e.Run(ctx, inputs, jobs); err != nil {
		e.Abort()
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		e.Abort()
		return nil, err
	}
	return e, nil
}

// closeExporter closes e, which puts its files in place, and returns them
// relative to dir.
func closeExporter(dir string, e *Exporter) ([]string, error) {
	if err := e.Close(); err != nil {
		return nil, err
	}
	return relFiles(dir, e.Files()), nil
}

// exportPlain exports the inputs into per-topic files in one run, into a
// directory that holds no files unless force.
func exportPlain(ctx context.Context, dir string, inputs []DatasetInput, existing []string,
	do DatasetOptions, opts []Option) (*DatasetReport, error) {
	if !do.Force {
		if len(existing) > 0 {
			return nil, fmt.Errorf("%w: --partition-by none; it is a partitioned dataset (%d inputs in %s); use its --partition-by or another directory",
				ErrLayout, len(existing), ManifestDir)
		}
		if f, err := firstFile(dir); err != nil || f != "" {
			if err == nil {
				err = fmt.Errorf("%w: %s holds %s: per-topic files are written by one run and never added to; "+
					"use an empty directory, --partition-by for a dataset that grows, or --force to overwrite", ErrAppend, dir, f)
			}
			return nil, err
		}
	}
	ins := make([]Input, len(inputs))
	for i := range inputs {
		ins[i] = inputs[i].Input
	}
	files, err := exportAll(ctx, dir, ins, do.Jobs, opts)
	if err != nil {
		return nil, err
	}
	return &DatasetReport{Exported: len(inputs), Files: files}, nil
}

// selection names a DatasetInput.Selection in an error.
func selection(s string) string {
	if s == "" {
		return "every message"
	}
	return s
}

// newRow is the manifest row of an input that exported the rows of
// written (per topic, sorted by topic, as Exporter.exported gives them).
func newRow(in *DatasetInput, d digest.Digest, cfg config, parts []string, written []ManifestTopic) *ManifestRow {
	r := &ManifestRow{Path: in.Path, Size: d.Size, SHA256: d.SHA256, BaglabVersion: cfg.version, Selection: in.Selection,
		PartitionBy: cfg.partition.String(), OutputFormat: cfg.format.String(), Parts: parts, Topics: []ManifestTopic{}}
	for _, t := range written {
		if r.MessageCount == 0 || t.StartNs < r.StartNs {
			r.StartNs = t.StartNs
		}
		if r.MessageCount == 0 || t.EndNs > r.EndNs {
			r.EndNs = t.EndNs
		}
		r.MessageCount += t.MessageCount
		r.Topics = append(r.Topics, t)
	}
	if s := in.Summary; s != nil {
		r.Format = s.Format
		rec := &ManifestRecording{StartNs: s.StartNs, EndNs: s.EndNs, MessageCount: int64(s.MessageCount), Topics: []ManifestTopic{}}
		for _, t := range s.Topics {
			rec.Topics = append(rec.Topics, ManifestTopic{Topic: t.Topic, Type: t.Type, MessageCount: int64(t.MessageCount), StartNs: t.StartNs, EndNs: t.EndNs})
		}
		if in.Selection != "" || rec.StartNs != r.StartNs || rec.EndNs != r.EndNs || rec.MessageCount != r.MessageCount ||
			!slices.Equal(rec.Topics, r.Topics) {
			r.Recording = rec
		}
	}
	if r.Parts == nil {
		r.Parts = []string{}
	}
	return r
}

// relFiles returns paths relative to dir with forward slashes.
func relFiles(dir string, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if rel, err := filepath.Rel(dir, p); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	slices.Sort(out)
	return out
}

// removeStale removes the files of parts (relative to dir) not in keep.
// A part that would lead outside dir is left alone.
func removeStale(dir string, parts, keep []string) {
	for _, p := range parts {
		if slices.Contains(keep, p) || !filepath.IsLocal(filepath.FromSlash(p)) {
			continue
		}
		os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
	}
}
