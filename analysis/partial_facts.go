package analysis

import (
	"encoding/json"
	"slices"
)

// factsState is the state of "facts" in a partial file: per FactList
// topic, its segments (uninterrupted runs of snapshots within one file)
// in the order read, each with its fact intervals.
//
//	{"streams": [{"topic", "segments": [{"first_ns", "last_ns", "source",
//	   "facts": [{"topic", "subject_id", "property", "target_id",
//	              "intervals": [{"start_ns", "end_ns", "pre", "weighted", "last_ns",
//	                             "last_confidence", "last_end_ns", "head", "open", "snapshots"}]}]}]}]}
type factsState struct {
	Streams []factStreamState `json:"streams"`
}

type factStreamState struct {
	Topic    string         `json:"topic"`
	Segments []segmentState `json:"segments"`
}

type segmentState struct {
	First  int64           `json:"first_ns"`
	Last   int64           `json:"last_ns"`
	Source string          `json:"source"`
	Facts  []factFactState `json:"facts"`
}

type factFactState struct {
	FactKey
	Intervals []intervalState `json:"intervals"`
}

type intervalState struct {
	Start     int64 `json:"start_ns"`
	End       int64 `json:"end_ns"`
	Pre       Num   `json:"pre"`
	Weighted  Num   `json:"weighted"`
	LastT     int64 `json:"last_ns"`
	LastConf  Num   `json:"last_confidence"`
	LastEnd   int64 `json:"last_end_ns"`
	Head      bool  `json:"head"`
	Open      bool  `json:"open"`
	Snapshots int   `json:"snapshots"`
}

// MarshalState implements Partial. Open segments are saved as finished
// ones, as Merge treats them.
func (f *Facts) MarshalState() ([]byte, error) {
	st := factsState{Streams: []factStreamState{}}
	streams := SortedKeys(f.segs)
	for s := range f.cur {
		if _, ok := f.segs[s]; !ok {
			streams = append(streams, s)
		}
	}
	slices.Sort(streams)
	for _, s := range streams {
		segs := f.segs[s]
		if cur := f.cur[s]; cur != nil {
			segs = append(slices.Clip(segs), cur)
		}
		fs := factStreamState{Topic: s, Segments: []segmentState{}}
		for _, seg := range segs {
			ss := segmentState{First: seg.First, Last: seg.Last, Source: seg.Source, Facts: []factFactState{}}
			keys := make([]FactKey, 0, len(seg.Intervals))
			for k := range seg.Intervals {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, compareFactKeys)
			for _, k := range keys {
				ff := factFactState{FactKey: k, Intervals: []intervalState{}}
				for _, iv := range seg.Intervals[k] {
					ff.Intervals = append(ff.Intervals, intervalState{iv.Start, iv.End, Num(iv.Pre), Num(iv.Weighted),
						iv.LastT, Num(iv.LastConf), iv.LastEnd, iv.Head, iv.Open, iv.Snapshots})
				}
				ss.Facts = append(ss.Facts, ff)
			}
			fs.Segments = append(fs.Segments, ss)
		}
		st.Streams = append(st.Streams, fs)
	}
	return json.Marshal(st)
}

// UnmarshalState implements Partial.
func (f *Facts) UnmarshalState(data []byte) error {
	var st factsState
	if err := DecodeState(data, &st); err != nil {
		return err
	}
	f.cur, f.segs = map[string]*segment{}, map[string][]*segment{}
	for _, fs := range st.Streams {
		for _, ss := range fs.Segments {
			seg := &segment{First: ss.First, Last: ss.Last, Source: ss.Source, Intervals: map[FactKey][]*interval{}}
			for _, ff := range ss.Facts {
				for _, s := range ff.Intervals {
					seg.Intervals[ff.FactKey] = append(seg.Intervals[ff.FactKey], &interval{Start: s.Start, End: s.End,
						Pre: float64(s.Pre), Weighted: float64(s.Weighted), LastT: s.LastT, LastConf: float64(s.LastConf),
						LastEnd: s.LastEnd, Head: s.Head, Open: s.Open, Snapshots: s.Snapshots})
				}
			}
			f.segs[fs.Topic] = append(f.segs[fs.Topic], seg)
		}
	}
	return nil
}
