package decode

import (
	"container/heap"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/baglab/baglab/decode/db3"
	"github.com/baglab/baglab/decode/mcapfile"
	"github.com/baglab/baglab/decode/record"
)

// Merge iterates several iterators as one, in log time order. Messages with
// equal log times keep the order of the inputs. Each message stays valid until
// the next call to Next, as for a single iterator.
func Merge(its []record.Iterator) record.Iterator {
	if len(its) == 1 {
		return its[0]
	}
	return &mergeIter{its: its, advance: -1, started: false}
}

type mergeItem struct {
	msg *record.Message
	src int
}

type mergeHeap []mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].msg.LogTime != h[j].msg.LogTime {
		return h[i].msg.LogTime < h[j].msg.LogTime
	}
	return h[i].src < h[j].src
}
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }
func (h *mergeHeap) popTop() mergeItem { return heap.Pop(h).(mergeItem) }

type mergeIter struct {
	its     []record.Iterator
	h       mergeHeap
	advance int // iterator whose message was returned last, to advance next time
	started bool
	err     error
}

func (m *mergeIter) pull(i int) error {
	msg, err := m.its[i].Next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	heap.Push(&m.h, mergeItem{msg: msg, src: i})
	return nil
}

func (m *mergeIter) Next() (*record.Message, error) {
	if m.err != nil {
		return nil, m.err
	}
	if !m.started {
		m.started = true
		for i := range m.its {
			if err := m.pull(i); err != nil {
				m.err = err
				return nil, err
			}
		}
	} else if m.advance >= 0 {
		if err := m.pull(m.advance); err != nil {
			m.err = err
			return nil, err
		}
		m.advance = -1
	}
	if m.h.Len() == 0 {
		m.err = io.EOF
		return nil, io.EOF
	}
	top := m.h.popTop()
	m.advance = top.src
	return top.msg, nil
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
}

// OpenMany opens several recordings as one reader whose messages are merged
// in log time order.
func OpenMany(paths []string, o OpenOptions) (record.Reader, error) {
	if len(paths) == 1 {
		return OpenWith(paths[0], o)
	}
	m := &multiReader{path: strings.Join(paths, ",")}
	for _, p := range paths {
		r, err := OpenWith(p, o)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.readers = append(m.readers, r)
	}
	return m, nil
}

// mcapSplits lists the paths of the split MCAP files of a rosbag2 folder,
// in order: those metadata.yaml names, else NAME_0.mcap, NAME_1.mcap ...
func mcapSplits(dir string) ([]string, error) {
	var files []string
	meta, err := db3.ReadBag2Metadata(dir)
	switch {
	case err == nil:
		files = meta.RelativeFilePaths
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if len(files) == 0 {
		files = bag2Splits(dir, ".mcap")
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// openMCAPDir opens the split MCAP files of a rosbag2 folder, merged in log
// time order, with the options o.
func openMCAPDir(dir string, o OpenOptions) (record.Reader, error) {
	files, err := mcapSplits(dir)
	if err != nil {
		return nil, err
	}
	m := &multiReader{path: dir}
	for _, p := range files {
		r, err := mcapfile.Open(p, mcapOptions(p, o)...)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.readers = append(m.readers, r)
	}
	if len(m.readers) == 1 {
		return m.readers[0], nil
	}
	return m, nil
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

// CombineSummaries adds up the summaries of several files: times span all of
// them, counts add per topic, frequencies are recomputed over the span.
func CombineSummaries(sums []*record.Summary) *record.Summary {
	out := &record.Summary{}
	type agg struct {
		ts record.TopicSummary
	}
	byTopic := map[string]*agg{}
	var order []string
	comps := map[string]bool{}
	var compOrder []string
	for i, s := range sums {
		if i == 0 {
			out.Format = s.Format
		} else if out.Format != s.Format {
			out.Format = "mixed"
		}
		if s.MessageCount > 0 {
			if out.MessageCount == 0 || s.StartNs < out.StartNs {
				out.StartNs = s.StartNs
			}
			if s.EndNs > out.EndNs {
				out.EndNs = s.EndNs
			}
		}
		out.MessageCount += s.MessageCount
		for _, c := range strings.Split(s.Compression, ",") {
			if c != "" && !comps[c] {
				comps[c] = true
				compOrder = append(compOrder, c)
			}
		}
		for _, t := range s.Topics {
			a := byTopic[t.Topic]
			if a == nil {
				a = &agg{ts: t}
				a.ts.MessageCount = 0
				byTopic[t.Topic] = a
				order = append(order, t.Topic)
			}
			if t.MessageCount > 0 {
				if a.ts.MessageCount == 0 || t.StartNs < a.ts.StartNs {
					a.ts.StartNs = t.StartNs
				}
				a.ts.EndNs = max(a.ts.EndNs, t.EndNs)
			}
			a.ts.MessageCount += t.MessageCount
		}
		out.Channels = append(out.Channels, s.Channels...)
	}
	out.DurationNs = out.EndNs - out.StartNs
	out.Compression = strings.Join(compOrder, ",")
	sort.Strings(order)
	for _, name := range order {
		t := byTopic[name].ts
		t.FrequencyHz = record.Frequency(t.MessageCount, t.StartNs, t.EndNs)
		out.Topics = append(out.Topics, t)
	}
	return out
}
