package tf

import (
	"slices"
	"sort"

	"github.com/baglab/baglab/record"
)

// frameStats gathers what Tree reports of one child frame.
type frameStats struct {
	parents    []string
	static     bool
	publishers []string
	stamps     []int64
	rejected   int
}

// note records a transform of child s.Child read from m.
func (r *Reader) note(s Stamped, static bool, m *record.Message, kept bool) {
	child := s.Child
	if len(child) > 0 && child[0] == '/' {
		child = child[1:]
	}
	if child == "" {
		return
	}
	f := r.frames[child]
	if f == nil {
		f = &frameStats{static: static}
		r.frames[child] = f
		r.order = append(r.order, child)
	}
	parent := s.Parent
	if len(parent) > 0 && parent[0] == '/' {
		parent = parent[1:]
	}
	if !slices.Contains(f.parents, parent) {
		f.parents = append(f.parents, parent)
	}
	if who := m.Channel.Metadata["callerid"]; who != "" && !slices.Contains(f.publishers, who) {
		f.publishers = append(f.publishers, who)
	}
	if !kept {
		f.rejected++
		return
	}
	f.stamps = append(f.stamps, s.Stamp)
}

// Frame describes one child frame of the tree: `baglab tf --tree`.
type Frame struct {
	Frame string `json:"frame"`
	// Parent is the frame's parent; Parents lists every parent seen when
	// it changed over the recording.
	Parent  string   `json:"parent"`
	Parents []string `json:"parents,omitempty"`
	Static  bool     `json:"static"`
	// Publishers are the nodes that published it (callerid of the
	// connection, where the recording keeps it).
	Publishers []string `json:"publishers"`
	// Count is the number of transforms kept (Rejected those tf2 ignores).
	Count    int `json:"count"`
	Rejected int `json:"rejected,omitempty"`
	// RateHz is (count−1)/span of the stamps (0 for static frames).
	RateHz float64 `json:"rate_hz"`
	// FirstNs and LastNs are the first and last stamps.
	FirstNs int64 `json:"first_stamp_ns"`
	LastNs  int64 `json:"last_stamp_ns"`
	// Gaps counts the intervals between consecutive stamps longer than
	// the gap threshold (three times the median interval unless given);
	// GapLongestS is the longest interval in seconds.
	Gaps        int     `json:"gaps"`
	GapLongestS float64 `json:"gap_longest_s"`
	// Depth is the number of ancestors up to the root (0 for a child of
	// a root).
	Depth int `json:"depth"`
}

// Tree describes every child frame read, roots first and each frame
// after its parent (depth first, children by name). gap is the gap
// threshold in ns, 0 for three times each frame's median interval.
func (r *Reader) Tree(gap int64) []Frame {
	children := map[string][]string{}
	for _, c := range r.order {
		p := r.frames[c].parents[len(r.frames[c].parents)-1]
		children[p] = append(children[p], c)
	}
	var roots []string
	for p := range children {
		if _, isChild := r.frames[p]; !isChild {
			roots = append(roots, p)
		}
	}
	sort.Strings(roots)
	var out []Frame
	seen := map[string]bool{}
	var walk func(name string, depth int)
	walk = func(name string, depth int) {
		kids := slices.Clone(children[name])
		sort.Strings(kids)
		for _, c := range kids {
			if seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, r.frame(c, depth, gap))
			walk(c, depth+1)
		}
	}
	for _, root := range roots {
		walk(root, 0)
	}
	// frames on a loop have no root
	rest := slices.Clone(r.order)
	sort.Strings(rest)
	for _, c := range rest {
		if !seen[c] {
			seen[c] = true
			out = append(out, r.frame(c, 0, gap))
		}
	}
	return out
}

func (r *Reader) frame(name string, depth int, gap int64) Frame {
	f := r.frames[name]
	fr := Frame{Frame: name, Parent: f.parents[len(f.parents)-1], Static: f.static,
		Publishers: append([]string{}, f.publishers...), Count: len(f.stamps), Rejected: f.rejected, Depth: depth}
	if len(f.parents) > 1 {
		fr.Parents = append([]string(nil), f.parents...)
	}
	if len(f.stamps) == 0 {
		return fr
	}
	st := slices.Clone(f.stamps)
	slices.Sort(st)
	fr.FirstNs, fr.LastNs = st[0], st[len(st)-1]
	if f.static || len(st) < 2 {
		return fr
	}
	fr.RateHz = record.Frequency(uint64(len(st)), fr.FirstNs, fr.LastNs)
	d := make([]int64, len(st)-1)
	for i := range d {
		d[i] = st[i+1] - st[i]
	}
	longest := slices.Max(d)
	fr.GapLongestS = float64(longest) / 1e9
	limit := gap
	if limit <= 0 {
		s := slices.Clone(d)
		slices.Sort(s)
		limit = 3 * s[len(s)/2]
	}
	for _, x := range d {
		if x > limit {
			fr.Gaps++
		}
	}
	return fr
}
