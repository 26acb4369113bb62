package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/value"
)

// FactsKind is the registry row of the facts analysis.
var FactsKind = Kind{
	Name: "facts",
	New:  func(Options) Analyzer { return NewFacts() },
	Summary: "toaster_msgs fact lists: the intervals each fact holds, their " +
		"durations and confidence-weighted durations.",
	Keys: baseline.Keys{
		{Path: "facts.facts", Table: "facts", Noun: "fact", Key: []string{"topic", "subject_id", "property", "target_id"}},
		{Path: "facts.intervals", Table: "fact_intervals", Noun: "fact interval", PerObservation: true},
	},
}

const typeFactList = "toaster_msgs/FactList"

// FactKey identifies a fact stream: a FactList topic and the fact's
// subject, property and target.
type FactKey struct {
	Topic     string `json:"topic"`
	SubjectID string `json:"subject_id"`
	Property  string `json:"property"`
	TargetID  string `json:"target_id"`
}

func compareFactKeys(a, b FactKey) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.SubjectID, b.SubjectID),
		cmp.Compare(a.Property, b.Property), cmp.Compare(a.TargetID, b.TargetID))
}

// factSeen is a fact in one snapshot.
type factSeen struct {
	conf       float64
	start, end int64 // Fact.timeStart, Fact.timeEnd (0 = unset)
}

// interval is a fact interval within one segment. Times are ns.
type interval struct {
	Start int64
	// End is the closing time; for an interval still open at the segment's
	// end it is the last snapshot time.
	End int64
	// Pre is the confidence-weighted duration (ns) before the first
	// snapshot (from timeStart); Weighted the one from the first snapshot
	// up to LastT, or End once closed.
	Pre, Weighted float64
	LastT         int64
	LastConf      float64
	LastEnd       int64 // timeEnd of the last snapshot (0 = unset)
	// Head: present in the segment's first snapshot; Open: present in its
	// last snapshot.
	Head, Open bool
	Snapshots  int
}

// segment is one uninterrupted run of snapshots of a topic in one file.
// Segments end at file boundaries even when one accumulator reads several
// files, so any grouping of files into accumulators gives the same segments
// and Result the same numbers.
type segment struct {
	First, Last int64
	Source      string
	Intervals   map[FactKey][]*interval
}

// Facts accumulates toaster_msgs/FactList snapshots into fact intervals.
// A fact (topic, subjectId, property, targetId) holds from the first
// snapshot of its topic that lists it — or from its timeStart when set and
// earlier, but not before the topic's previous snapshot, which did not list
// it — to the first snapshot without it, or to the timeEnd of its last
// snapshot when that lies between the two. Its confidence holds from each
// snapshot to the next (the first snapshot's also back to the start); of
// snapshots at the same time the last read holds. Intervals still open at
// the last snapshot end there and are censored.
type Facts struct {
	// open segments by stream, and finished ones
	cur  map[string]*segment
	segs map[string][]*segment
}

// NewFacts returns an empty facts accumulator.
func NewFacts() *Facts {
	return &Facts{cur: map[string]*segment{}, segs: map[string][]*segment{}}
}

// Kind implements Analyzer.
func (f *Facts) Kind() string { return "facts" }

// Wants implements Analyzer.
func (f *Facts) Wants(typ string) bool { return canonicalType(typ) == typeFactList }

// Add implements Analyzer. Snapshots of one topic must come in log time
// order within one accumulator (as a file reader delivers them); a snapshot
// older than the previous one starts a new segment.
func (f *Facts) Add(m *Message) error {
	if m.Value == nil || messageType(m) != typeFactList {
		return nil
	}
	stream := m.Topic
	now := map[FactKey]factSeen{}
	for _, e := range m.Value.LookupList("factList") {
		fs, ok := e.(*value.Struct)
		if !ok || fs == nil {
			continue
		}
		k := FactKey{Topic: stream, SubjectID: fs.LookupString("subjectId"), Property: fs.LookupString("property"), TargetID: fs.LookupString("targetId")}
		seen := factSeen{}
		seen.conf, _ = fs.LookupFloat("confidence")
		seen.start, _ = fs.LookupInt("timeStart")
		seen.end, _ = fs.LookupInt("timeEnd")
		if prev, dup := now[k]; dup { // the same fact twice in a snapshot: keep the higher confidence
			if prev.conf >= seen.conf {
				continue
			}
		}
		now[k] = seen
	}
	seg := f.cur[stream]
	if seg != nil && (m.LogTime < seg.Last || m.Source != seg.Source) {
		f.segs[stream] = append(f.segs[stream], seg)
		seg = nil
	}
	t := m.LogTime
	if seg == nil {
		seg = &segment{First: t, Last: t, Source: m.Source, Intervals: map[FactKey][]*interval{}}
		f.cur[stream] = seg
		for k, s := range now {
			seg.Intervals[k] = []*interval{openInterval(t, s, true, math.MinInt64)}
		}
		return nil
	}
	for k, ivs := range seg.Intervals {
		iv := ivs[len(ivs)-1]
		if !iv.Open {
			continue
		}
		if s, ok := now[k]; ok {
			iv.Weighted += iv.LastConf * float64(t-iv.LastT)
			iv.LastT, iv.LastConf, iv.LastEnd, iv.End = t, s.conf, s.end, t
			iv.Snapshots++
			delete(now, k)
			continue
		}
		closeInterval(iv, t)
	}
	for k, s := range now {
		// the previous snapshot did not list the fact: it began after it
		seg.Intervals[k] = append(seg.Intervals[k], openInterval(t, s, false, seg.Last))
	}
	seg.Last = t
	return nil
}

// openInterval opens an interval at snapshot t: from the fact's timeStart
// when it is set and earlier, but not before prev, the previous snapshot of
// the topic (which did not list the fact; math.MinInt64 for none). So a
// fact that reappears with the timeStart it had before (kept by the
// monitor across a snapshot without it) starts at the snapshot that lacked
// it: its intervals do not overlap, nor count the time in between twice.
func openInterval(t int64, s factSeen, head bool, prev int64) *interval {
	start := t
	if s.start > 0 && s.start < t {
		start = max(s.start, prev)
	}
	return &interval{Start: start, End: t, Pre: s.conf * float64(t-start), LastT: t, LastConf: s.conf,
		LastEnd: s.end, Head: head, Open: true, Snapshots: 1}
}

// clampHead moves the start of the head interval h of a segment whose first
// snapshot is first forward to prev, the last snapshot of the segment before,
// which did not list the fact, when it starts before it (as openInterval
// does within a segment). Pre, the first snapshot's confidence times the
// time before it, shrinks with it.
func clampHead(h *interval, first, prev int64) {
	if h.Start >= prev || first <= h.Start {
		return
	}
	h.Pre = h.Pre / float64(first-h.Start) * float64(first-prev)
	h.Start = prev
}

// closeInterval ends iv at t (the first snapshot without the fact), or at
// the fact's timeEnd when it was set and is earlier.
func closeInterval(iv *interval, t int64) {
	end := t
	if iv.LastEnd > 0 && iv.LastEnd >= iv.LastT && iv.LastEnd < t {
		end = iv.LastEnd
	}
	iv.Weighted += iv.LastConf * float64(end-iv.LastT)
	iv.End = end
	iv.Open = false
}

// Merge implements Analyzer.
func (f *Facts) Merge(other Analyzer) error {
	o, ok := other.(*Facts)
	if !ok {
		return MergeKindError(f.Kind(), other)
	}
	for s, seg := range o.cur {
		o.segs[s] = append(o.segs[s], seg)
	}
	for s, segs := range o.segs {
		f.segs[s] = append(f.segs[s], segs...)
	}
	return nil
}

// FactInterval is one closed (or censored) fact interval.
type FactInterval struct {
	FactKey
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Duration and ConfidenceWeighted are in seconds.
	Duration           Num  `json:"duration_s"`
	ConfidenceWeighted Num  `json:"confidence_weighted_s"`
	MeanConfidence     Num  `json:"mean_confidence"`
	Snapshots          int  `json:"snapshots"`
	Censored           bool `json:"censored"`
}

// FactStat sums the intervals of one fact.
type FactStat struct {
	FactKey
	Count              int `json:"count"`
	TotalDuration      Num `json:"total_duration_s"`
	MeanDuration       Num `json:"mean_duration_s"`
	ConfidenceWeighted Num `json:"confidence_weighted_duration_s"`
	Censored           int `json:"censored"`
}

// FactsResult is the result of the facts analysis.
type FactsResult struct {
	KindName  string         `json:"kind"`
	Facts     []FactStat     `json:"facts"`
	Intervals []FactInterval `json:"intervals"`
}

// Kind implements Result.
func (r *FactsResult) Kind() string { return "facts" }

// Result implements Analyzer. Segments of a topic are stitched in time
// order: a fact open at the end of one segment and present in the first
// snapshot of the next continues; otherwise it closes at that snapshot.
// Facts still open after the last snapshot are closed there and flagged
// censored.
func (f *Facts) Result() (Result, error) {
	res := &FactsResult{KindName: "facts", Facts: []FactStat{}, Intervals: []FactInterval{}}
	streams := map[string][]*segment{}
	for s, segs := range f.segs {
		streams[s] = append(streams[s], segs...)
	}
	for s, seg := range f.cur {
		streams[s] = append(streams[s], seg)
	}
	var out []FactInterval
	for _, s := range SortedKeys(streams) {
		segs := slices.Clone(streams[s])
		// Segments of one file in one accumulator that tie keep the order
		// they were read in; those of different files go by file.
		slices.SortStableFunc(segs, func(a, b *segment) int {
			return cmp.Or(cmp.Compare(a.First, b.First), cmp.Compare(a.Last, b.Last), cmp.Compare(a.Source, b.Source))
		})
		carry := map[FactKey]*interval{}
		prevLast := int64(math.MinInt64)
		for _, seg := range segs {
			stitch := seg.First >= prevLast
			next := map[FactKey]*interval{}
			intervals := copyIntervals(seg.Intervals) // stitching changes them; the accumulator stays as it is
			for k, c := range carry {
				ivs := intervals[k]
				if stitch && len(ivs) > 0 && ivs[0].Head {
					// the fact continues: its head interval in this segment
					// is the rest of c (h.Pre duplicates c and is dropped)
					h := ivs[0]
					c.Weighted += c.LastConf * float64(seg.First-c.LastT)
					c.Weighted += h.Weighted
					c.End, c.LastT, c.LastConf, c.LastEnd, c.Open = h.End, h.LastT, h.LastConf, h.LastEnd, h.Open
					c.Snapshots += h.Snapshots
					ivs[0] = c
					continue
				}
				if stitch {
					closeInterval(c, seg.First)
				} else {
					c.Open = true
				}
				out = append(out, makeFactInterval(k, c))
			}
			for k, ivs := range intervals {
				if stitch && len(ivs) > 0 && ivs[0].Head && ivs[0] != carry[k] {
					// a fact that begins in this segment's first snapshot,
					// after the segment before
					clampHead(ivs[0], seg.First, prevLast)
				}
				for i, iv := range ivs {
					if i == len(ivs)-1 && iv.Open {
						next[k] = iv
						continue
					}
					out = append(out, makeFactInterval(k, iv))
				}
			}
			carry = next
			prevLast = seg.Last
		}
		for k, c := range carry {
			out = append(out, makeFactInterval(k, c))
		}
	}
	// A total order: intervals are built in map order, and the sums below
	// are taken in this order.
	slices.SortFunc(out, compareFactIntervals)
	res.Intervals = append(res.Intervals, out...)
	for i := 0; i < len(out); {
		j := i
		st := FactStat{FactKey: out[i].FactKey}
		var total int64
		var weighted float64
		for ; j < len(out) && out[j].FactKey == out[i].FactKey; j++ {
			st.Count++
			total += out[j].EndNs - out[j].StartNs
			weighted += float64(out[j].ConfidenceWeighted)
			if out[j].Censored {
				st.Censored++
			}
		}
		st.TotalDuration = Num(float64(total) / 1e9)
		st.MeanDuration = Num(float64(total) / 1e9 / float64(st.Count))
		st.ConfidenceWeighted = Num(weighted)
		res.Facts = append(res.Facts, st)
		i = j
	}
	return res, nil
}

// compareFactIntervals orders intervals by fact and start, then by every
// other field (Duration follows from the times), so that only equal
// intervals tie.
func compareFactIntervals(a, b FactInterval) int {
	return cmp.Or(compareFactKeys(a.FactKey, b.FactKey), cmp.Compare(a.StartNs, b.StartNs), cmp.Compare(a.EndNs, b.EndNs),
		compareFloats(float64(a.ConfidenceWeighted), float64(b.ConfidenceWeighted)),
		compareFloats(float64(a.MeanConfidence), float64(b.MeanConfidence)), cmp.Compare(a.Snapshots, b.Snapshots),
		compareBool(a.Censored, b.Censored))
}

// copyIntervals copies the intervals of a segment.
func copyIntervals(m map[FactKey][]*interval) map[FactKey][]*interval {
	out := make(map[FactKey][]*interval, len(m))
	for k, ivs := range m {
		cp := make([]*interval, len(ivs))
		for i, iv := range ivs {
			c := *iv
			cp[i] = &c
		}
		out[k] = cp
	}
	return out
}

func makeFactInterval(k FactKey, iv *interval) FactInterval {
	d := float64(iv.End - iv.Start)
	w := iv.Pre + iv.Weighted
	mc := iv.LastConf
	if d > 0 {
		mc = w / d
	}
	return FactInterval{FactKey: k, StartNs: iv.Start, EndNs: iv.End, Duration: Num(d / 1e9),
		ConfidenceWeighted: Num(w / 1e9), MeanConfidence: Num(mc), Snapshots: iv.Snapshots, Censored: iv.Open}
}

// Tables implements Result.
func (r *FactsResult) Tables() []*Table {
	facts := NewTable("facts", false, "topic", "subject_id", "property", "target_id", "count:i", "total_duration_s:f",
		"mean_duration_s:f", "confidence_weighted_duration_s:f", "censored:i").
		ShowByDefault("subject_id", "property", "target_id", "count", "total_duration_s", "mean_duration_s",
			"confidence_weighted_duration_s", "censored")
	for _, s := range r.Facts {
		facts.Add(s.Topic, s.SubjectID, s.Property, s.TargetID, s.Count, s.TotalDuration, s.MeanDuration, s.ConfidenceWeighted, s.Censored)
	}
	ivs := NewTable("fact_intervals", true, "topic", "subject_id", "property", "target_id", "start_ns:i", "end_ns:i",
		"duration_s:f", "confidence_weighted_s:f", "mean_confidence:f", "snapshots:i", "censored:b")
	for _, iv := range r.Intervals {
		ivs.Add(iv.Topic, iv.SubjectID, iv.Property, iv.TargetID, iv.StartNs, iv.EndNs, iv.Duration, iv.ConfidenceWeighted,
			iv.MeanConfidence, iv.Snapshots, iv.Censored)
	}
	return []*Table{facts, ivs}
}
