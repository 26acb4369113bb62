package recording

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/internal/merge"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/internal/zfile"
	"github.com/baglab/baglab/recording/mcapfile"
)

// Merge iterates several iterators as one, in log time order. Messages with
// equal log times keep the order of the inputs. Each message stays valid until
// the next call to Next, as for a single iterator.
func Merge(its []record.Iterator) record.Iterator {
	if len(its) == 1 {
		return its[0]
	}
	m := &mergeIter{its: its, cur: make([]*record.Message, len(its))}
	m.m = merge.New(len(its), func(i int) (int64, bool, error) {
		msg, err := its[i].Next()
		if err == io.EOF {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		m.cur[i] = msg
		return msg.LogTime, true, nil
	})
	return m
}

// mergeIter is Merge of several iterators: merge.Merger picks the one
// whose current message (cur) comes next.
type mergeIter struct {
	its []record.Iterator
	cur []*record.Message
	m   *merge.Merger
	err error
}

func (m *mergeIter) Next() (*record.Message, error) {
	if m.err != nil {
		return nil, m.err
	}
	i, ok, err := m.m.Next()
	switch {
	case err != nil:
		m.err = err
		return nil, err
	case !ok:
		m.err = io.EOF
		return nil, io.EOF
	}
	return m.cur[i], nil
}

func (m *mergeIter) Close() error {
	var errs []error
	for _, it := range m.its {
		errs = append(errs, it.Close())
	}
	m.its = nil
	return errors.Join(errs...)
}

// multiReader presents several readers (the split files of a rosbag2 MCAP
// folder, or the files given on a command line) as one.
type multiReader struct {
	path    string
	readers []record.Reader
	// leftOut are the errors of the splits of a folder left out, which
	// each Messages reports to onSkip
	leftOut []error
	onSkip  func(error)
}

// mcapSplits lists the paths of the split MCAP files of a rosbag2 folder,
// in order: those metadata.yaml names (resolved as db3.Bag2Metadata
// SplitPaths does), else NAME_0.mcap, NAME_1.mcap ... It returns the
// folder's compression mode (db3.Bag2Metadata.Compression): with
// db3.CompressionFile its splits are zstd streams (NAME_0.mcap.zstd ...),
// with db3.CompressionMessage each message's data is a zstd frame.
func mcapSplits(dir string) (paths []string, mode string, err error) {
	mode = db3.CompressionNone
	meta, err := db3.ReadBag2Metadata(dir)
	switch {
	case err == nil:
		if mode, err = meta.Compression(); err != nil {
			return nil, "", err
		}
		paths = meta.SplitPaths(dir)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", err
	}
	if len(paths) == 0 {
		for _, f := range bag2Splits(dir, ".mcap") {
			paths = append(paths, filepath.Join(dir, f))
		}
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, "", err
		}
	}
	return paths, mode, nil
}

// openMCAP opens an MCAP file, or the split MCAP files of a rosbag2
// folder (openMCAPDir).
func openMCAP(path string, o OpenOptions) (record.Reader, error) {
	if isDirPath(path) {
		return openMCAPDir(path, o)
	}
	return mcapfile.Open(path, o.read(path))
}

// openMCAPDir opens the split MCAP files of a rosbag2 folder, merged in log
// time order, with the options o. With o.OnSkip, a compressed split whose
// zstd stream is damaged is left out, and each reading reports it (as the
// readers report the damage a reading meets; the inputs open a recording
// for its summary, then again to read it).
func openMCAPDir(dir string, o OpenOptions) (record.Reader, error) {
	files, mode, err := mcapSplits(dir)
	if err != nil {
		return nil, err
	}
	return mergeSplits(dir, files, mode, o, func(p string) (record.Reader, error) {
		if mode == db3.CompressionFile {
			return openCompressedMCAP(p, o)
		}
		return mcapfile.Open(p, o.read(p))
	})
}

// mergeSplits opens the split MCAP files of the rosbag2 folder path, in
// order, with open, as one reader merging them in log time order; mode is
// the folder's compression mode: the messages of a MESSAGE folder are
// decompressed as they are read, and with o.OnSkip a FILE folder's split
// whose zstd stream is damaged is left out.
func mergeSplits(path string, splits []string, mode string, o OpenOptions, open func(split string) (record.Reader, error)) (record.Reader, error) {
	m := &multiReader{path: path, onSkip: o.OnSkip}
	for _, p := range splits {
		r, err := open(p)
		var re *record.Error
		if err != nil && mode == db3.CompressionFile && o.OnSkip != nil && errors.As(err, &re) {
			m.leftOut = append(m.leftOut, err)
			continue
		}
		if err != nil {
			m.Close()
			return nil, err
		}
		if mr, ok := r.(*mcapfile.Reader); ok && mode == db3.CompressionMessage {
			r = &messageCompressed{Reader: mr}
		}
		m.readers = append(m.readers, r)
	}
	if len(m.readers) == 1 && len(m.leftOut) == 0 {
		return m.readers[0], nil
	}
	return m, nil
}

// openCompressedMCAP opens a split of a compression_mode FILE folder: its
// zstd stream decompressed into a private temporary file (zfile) that the
// reader's Close removes. A split that is an MCAP file as it is (rosbag2
// leaves the name of a split it could not compress unchanged) is read as
// it is.
func openCompressedMCAP(path string, o OpenOptions) (record.Reader, error) {
	if f, err := Sniff(path); err == nil && f == FormatMCAP {
		return mcapfile.Open(path, o.read(path))
	}
	z, err := zfile.Decompress(path)
	if err != nil {
		return nil, err
	}
	r, err := mcapfile.NewReader(z, z.Size(), path, o.read(path))
	if err != nil {
		z.Close()
		return nil, err
	}
	return &decompressedMCAP{Reader: r, tmp: z}, nil
}

// messageCompressed is an MCAP split of a rosbag2 folder recorded with
// compression_mode MESSAGE: each message's data is a zstd frame, which
// its iterators decompress (as rosbag2's SequentialCompressionReader does).
type messageCompressed struct {
	*mcapfile.Reader
}

func (m *messageCompressed) Messages(f record.Filter) (record.Iterator, error) {
	it, err := m.Reader.Messages(f)
	if err != nil {
		return nil, err
	}
	return &decompressing{it: it}, nil
}

// decompressing yields the messages of it with their data decompressed.
type decompressing struct {
	it  record.Iterator
	dec zfile.MessageDecoder
	msg record.Message
}

func (d *decompressing) Next() (*record.Message, error) {
	m, err := d.it.Next()
	if err != nil {
		return nil, err
	}
	data, err := d.dec.Decode(m.Data)
	if err != nil {
		return nil, &record.Error{File: m.Source, Offset: m.Offset, Topic: m.Channel.Topic, Field: "data", Err: record.ErrFormat,
			Detail: fmt.Sprintf("message compressed with zstd (compression_mode MESSAGE): %v", err)}
	}
	d.msg = *m
	d.msg.Data = data
	return &d.msg, nil
}

func (d *decompressing) Close() error {
	d.dec.Close()
	return d.it.Close()
}

// decompressedMCAP is an MCAP reader of a decompressed split; Close
// removes the temporary file.
type decompressedMCAP struct {
	*mcapfile.Reader
	tmp io.Closer
}

func (d *decompressedMCAP) Close() error {
	err := d.Reader.Close()
	if terr := d.tmp.Close(); err == nil {
		err = terr
	}
	return err
}

func (m *multiReader) Summary() (*record.Summary, error) {
	var sums []*record.Summary
	for _, r := range m.readers {
		s, err := r.Summary()
		if err != nil {
			return nil, err
		}
		sums = append(sums, s)
	}
	out := CombineSummaries(sums)
	out.Path = m.path
	return out, nil
}

func (m *multiReader) Channels() ([]*record.Channel, error) {
	var all []*record.Channel
	for _, r := range m.readers {
		chs, err := r.Channels()
		if err != nil {
			return nil, err
		}
		all = append(all, chs...)
	}
	return all, nil
}

func (m *multiReader) Messages(f record.Filter) (record.Iterator, error) {
	for _, err := range m.leftOut {
		m.onSkip(err)
	}
	var its []record.Iterator
	for _, r := range m.readers {
		it, err := r.Messages(f)
		if err != nil {
			for _, it := range its {
				it.Close()
			}
			return nil, err
		}
		its = append(its, it)
	}
	return Merge(its), nil
}

func (m *multiReader) Close() error {
	var errs []error
	for _, r := range m.readers {
		errs = append(errs, r.Close())
	}
	m.readers = nil
	return errors.Join(errs...)
}

// CombineSummaries adds up the summaries of several files with a
// record.SummaryBuilder: times span all of them, counts add per topic,
// frequencies are recomputed over the span. The format is the files' one,
// or "mixed". A file's compression known from some of its chunks only
// (record.Summary.CompressionNote) is noted for the whole.
func CombineSummaries(sums []*record.Summary) *record.Summary {
	var b record.SummaryBuilder
	format, noted := "", 0
	for i, s := range sums {
		if i == 0 {
			format = s.Format
		} else if format != s.Format {
			format = "mixed"
		}
		b.Compression(s.Compression)
		for _, t := range s.Topics {
			b.AddTopic(t)
		}
		b.AddChannels(s.Channels)
		if s.CompressionNote != "" {
			noted++
		}
	}
	out := b.Summary("", format)
	if noted > 0 {
		out.CompressionNote = fmt.Sprintf("%d of %d files' from some of their chunk headers only", noted, len(sums))
	}
	return out
}
