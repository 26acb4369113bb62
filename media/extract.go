package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Options configure Extract. The zero value writes PNG images and binary
// PCD clouds, one reader and one writer at a time.
type Options struct {
	// Raw writes Bayer images as their grey mosaic instead of demosaicing.
	Raw bool
	// Cloud is the format of clouds; ASCII writes PCD as text.
	Cloud CloudFormat
	ASCII bool
	// DropNaN leaves out the points with a NaN coordinate.
	DropNaN bool
	// Jobs is the number of frames converted and written at once.
	Jobs int
	// Video, when set, also writes one MP4 per image stream (see
	// VideoOptions).
	Video *VideoOptions
	// Progress, when set, is called once per file written.
	Progress func()
}

// Entry is one file written: a row of the index.
type Entry struct {
	Topic string
	// Field is the media's field path in the message ("" for the
	// message itself).
	Field       string
	Kind        Kind
	LogTime     int64
	PublishTime int64
	Sequence    uint64
	// Stamp is header.stamp (ns); FrameID header.frame_id.
	Stamp    int64
	FrameID  string
	Encoding string
	// Width and Height are the image's or the cloud's; Points the number
	// of points written (clouds).
	Width, Height uint32
	Points        int
	// Path is the file, relative to the output directory ("/" separated).
	Path   string
	Source string
}

// Result is what Extract wrote.
type Result struct {
	// Entries are the files written, in log time order (then topic and
	// field), as the index lists them.
	Entries []Entry
	// Index lists the index files (Parquet, CSV); Videos the MP4 files.
	Index  []string
	Videos []string
}

// Extract writes every image and cloud of the selected messages of in
// under dir: dir/<topic path>[/<field path>]/<log time ns>.<ext>, an
// index (dir/index.parquet, dir/index.csv) and, with o.Video, an MP4 per
// image stream. A frame that cannot be converted is an error naming its
// file, topic, field and log time, handed to in.Skip (with skip-bad
// reported and passed over). Every file is written under a temporary
// name and renamed; on failure the files of this run are removed again.
func Extract(ctx context.Context, in *recording.Inputs, dir string, o Options) (res *Result, err error) {
	jobs := max(o.Jobs, 1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	x := &extraction{in: in, dir: dir, o: o, used: map[string]bool{}}
	defer func() {
		if err != nil {
			x.remove()
		}
	}()
	// the types that hold media, at any depth, as their decoders read them
	resolver := in.Resolver()
	types := map[string]bool{}
	for i := 0; i < in.Len(); i++ {
		chans, err := in.File(i).Channels()
		if err != nil {
			return nil, err
		}
		for _, ch := range chans {
			if dec, err := resolver.For(ch); err == nil && HasMedia(dec.Type()) {
				types[recording.TypeName(ch)] = true
			}
		}
	}
	work := make(chan *Frame, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				if ctx.Err() == nil {
					err := x.write(f)
					var fe *fieldError
					if errors.As(err, &fe) {
						err = in.Skip(frameError(f, err))
					}
					if err != nil {
						cancel(err)
					}
				}
				putBuffer(f.Data)
				f.Data = nil
			}
		}()
	}
	captures := make([]*Capture, in.Len())
	readErr := in.Each(ctx, recording.EachOptions{
		Jobs: jobs,
		Want: func(typ string) bool { return types[typ] },
		Visit: func(file int, m *record.Message, dec decode.Decoder) error {
			if dec == nil {
				return nil
			}
			c := captures[file]
			if c == nil {
				c = NewCapture(getBuffer)
				captures[file] = c
			}
			c.Reset()
			if err := dec.Decode(m.Data, c); err != nil {
				for _, f := range c.Frames {
					putBuffer(f.Data)
				}
				return in.Skip(recording.MessageError(m, err))
			}
			for _, f := range c.Frames {
				f.Topic, f.LogTime, f.Source, f.Offset = m.Channel.Topic, m.LogTime, m.Source, m.Offset
				f.publish, f.seq = m.PublishTime, m.Sequence
				select {
				case work <- f:
				case <-ctx.Done():
					putBuffer(f.Data)
					return context.Cause(ctx)
				}
			}
			return nil
		},
	})
	close(work)
	wg.Wait()
	if ctx.Err() == nil {
		if err := x.commit(x.pending); err != nil {
			cancel(err)
		}
		x.pending = nil
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return nil, c
	}
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res = &Result{Entries: x.entries}
	slices.SortFunc(res.Entries, func(a, b Entry) int {
		if a.LogTime != b.LogTime {
			if a.LogTime < b.LogTime {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Topic+"\x00"+a.Field+"\x00"+a.Path, b.Topic+"\x00"+b.Field+"\x00"+b.Path)
	})
	if res.Index, err = writeIndex(dir, res.Entries); err != nil {
		return nil, err
	}
	x.committed = append(x.committed, res.Index...)
	if o.Video != nil {
		if res.Videos, err = writeVideos(ctx, dir, res.Entries, *o.Video, jobs, func(p string) { x.add(p) }); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// extraction is the state Extract's workers share.
type extraction struct {
	in  *recording.Inputs
	dir string
	o   Options

	mu        sync.Mutex
	dirs      atomicfile.DirSet
	used      map[string]bool
	entries   []Entry
	committed []string
	pending   []pending
}

func (x *extraction) add(path string) {
	x.mu.Lock()
	x.committed = append(x.committed, path)
	x.mu.Unlock()
}

// remove takes away the files of a run that failed.
func (x *extraction) remove() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, p := range x.pending {
		p.f.Abort()
	}
	for _, p := range x.committed {
		os.Remove(p)
	}
	x.dirs.RemoveEmpty()
}

// FramePath is the path, relative to the output directory, of a frame of
// topic at logTime, its media at field (see Frame.Field), with ext:
// <topic path>[/<field path>]/<log time ns><ext>, array indexes as
// folders ("views[2].image" → views/2/image).
func FramePath(topic, field string, logTime int64, ext string) (string, error) {
	p, err := export.TopicPath(topic)
	if err != nil {
		return "", err
	}
	if field != "" {
		f := strings.NewReplacer("[", ".", "]", "").Replace(field)
		fp, err := export.TopicPath("/" + strings.ReplaceAll(f, ".", "/"))
		if err != nil {
			return "", err
		}
		p += "/" + fp
	}
	return p + "/" + strconv.FormatInt(logTime, 10) + ext, nil
}

// reserve claims a free path for a frame: a second frame of one stream at
// the same log time gets "-1", "-2" … before its extension.
func (x *extraction) reserve(f *Frame, ext string) (string, error) {
	rel, err := FramePath(f.Topic, f.Field, f.LogTime, ext)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	base := strings.TrimSuffix(rel, ext)
	for i := 1; x.used[rel]; i++ {
		rel = fmt.Sprintf("%s-%d%s", base, i, ext)
	}
	x.used[rel] = true
	return rel, nil
}

// write converts f and writes its file.
func (x *extraction) write(f *Frame) error {
	e := Entry{Topic: f.Topic, Field: f.Field, Kind: f.Kind, LogTime: f.LogTime, PublishTime: f.publish, Sequence: f.seq,
		Stamp: f.Stamp, FrameID: f.FrameID, Encoding: f.Encoding, Width: f.Width, Height: f.Height, Source: f.Source}
	var ext string
	var fill func(w io.Writer) error
	switch f.Kind {
	case Image:
		var err error
		if ext, fill, err = imageFile(f, x.o.Raw); err != nil {
			return err
		}
	case Compressed:
		data := f.Data
		ext = compressedExt(data, f.Encoding)
		if isCompressedDepth(f.Encoding) {
			body, r, err := compressedDepth(f)
			if err != nil {
				return err
			}
			ext = ".png"
			if r != nil {
				e.Width, e.Height = uint32(r.width), uint32(r.height)
				fill = func(w io.Writer) error { return writePNG(w, r) }
			}
			data = body
		}
		if fill == nil {
			fill = func(w io.Writer) error { _, err := w.Write(data); return err }
		}
	case Cloud:
		ext = x.o.Cloud.Ext()
		fill = func(w io.Writer) (err error) {
			e.Points, err = writeCloud(w, f, cloudOptions{format: x.o.Cloud, ascii: x.o.ASCII, dropNaN: x.o.DropNaN})
			return err
		}
	}
	rel, err := x.reserve(f, ext)
	if err != nil {
		return bad("", record.ErrFormat, "%v", err)
	}
	path := filepath.Join(x.dir, filepath.FromSlash(rel))
	if err := x.dirs.MkdirAll(filepath.Dir(path)); err != nil {
		return &OutputError{Path: path, Err: err}
	}
	out, err := atomicfile.Create(path)
	if err != nil {
		return &OutputError{Path: path, Err: err}
	}
	if err := fill(out); err != nil {
		out.Abort()
		var fe *fieldError
		if !errors.As(err, &fe) {
			err = &OutputError{Path: path, Err: err}
		}
		return err
	}
	e.Path = rel
	x.mu.Lock()
	x.pending = append(x.pending, pending{out, e})
	var batch []pending
	if len(x.pending) >= commitBatch {
		batch, x.pending = x.pending, nil
	}
	x.mu.Unlock()
	return x.commit(batch)
}

// commitBatch is the number of written frames synced at once (see
// commit).
const commitBatch = 64

// pending is a frame written under its temporary name, waiting for its
// sync and rename.
type pending struct {
	f *atomicfile.File
	e Entry
}

// commit syncs a batch of written frames at once (atomicfile.CloseAll:
// one journal commit serves many files, where a sync per frame made the
// workers wait on the disk more than they computed) and renames them
// into place; on failure the batch's files are removed.
func (x *extraction) commit(batch []pending) error {
	if len(batch) == 0 {
		return nil
	}
	files := make([]*atomicfile.File, len(batch))
	for i, p := range batch {
		files[i] = p.f
	}
	err := atomicfile.CloseAll(files)
	for i, p := range batch {
		if err == nil {
			if err = p.f.Commit(); err != nil {
				err = &OutputError{Path: p.f.Path(), Err: err}
			}
		}
		if err != nil {
			for _, q := range batch[i:] {
				q.f.Abort()
			}
			if _, ok := err.(*OutputError); !ok {
				err = &OutputError{Path: x.dir, Err: err}
			}
			return err
		}
		x.mu.Lock()
		x.committed = append(x.committed, p.f.Path())
		x.entries = append(x.entries, p.e)
		x.mu.Unlock()
		if x.o.Progress != nil {
			x.o.Progress()
		}
	}
	return nil
}

// buffers keeps frame data buffers between frames.
var buffers sync.Pool

func getBuffer(n int) []byte {
	if b, ok := buffers.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

func putBuffer(b []byte) {
	if cap(b) > 0 {
		buffers.Put(&b)
	}
}
