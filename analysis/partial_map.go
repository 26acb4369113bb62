package analysis

import (
	"cmp"
	"encoding/json"
	"slices"
)

// mapState is the state of "map" in a partial file: the latest state of
// every LamaObject id, and every crossing and place profile in the order
// added (seq is the position within its message).
//
//	{"objects": [{"ID", "IDInWorld", "Type", "Name", "Emitter", "Refs": [a, b], "LogTime", "Topic"}],
//	 "crossings": [{crossing columns as in --json, "seq"}],
//	 "profiles": [{place profile columns as in --json, "seq"}]}
type mapState struct {
	Objects   []lamaObject  `json:"objects"`
	Crossings []crossingSeq `json:"crossings"`
	Profiles  []profileSeq  `json:"profiles"`
}

// crossingSeq and profileSeq keep the Seq that the results leave out.
type crossingSeq struct {
	CrossingStat
	Seq int `json:"seq"`
}

type profileSeq struct {
	PlaceProfileStat
	Seq int `json:"seq"`
}

// MarshalState implements Partial.
func (a *Map) MarshalState() ([]byte, error) {
	st := mapState{Objects: make([]lamaObject, 0, len(a.objects)), Crossings: []crossingSeq{}, Profiles: []profileSeq{}}
	for _, o := range a.objects {
		st.Objects = append(st.Objects, o)
	}
	slices.SortFunc(st.Objects, func(x, y lamaObject) int { return cmp.Compare(x.ID, y.ID) })
	for _, c := range a.crossings {
		st.Crossings = append(st.Crossings, crossingSeq{c, c.Seq})
	}
	for _, p := range a.profiles {
		st.Profiles = append(st.Profiles, profileSeq{p, p.Seq})
	}
	return json.Marshal(st)
}

// UnmarshalState implements Partial.
func (a *Map) UnmarshalState(data []byte) error {
	var st mapState
	if err := DecodeState(data, &st); err != nil {
		return err
	}
	a.objects, a.crossings, a.profiles = map[int64]lamaObject{}, nil, nil
	for _, o := range st.Objects {
		a.objects[o.ID] = o
	}
	for _, c := range st.Crossings {
		c.CrossingStat.Seq = c.Seq
		a.crossings = append(a.crossings, c.CrossingStat)
	}
	for _, p := range st.Profiles {
		p.PlaceProfileStat.Seq = p.Seq
		a.profiles = append(a.profiles, p.PlaceProfileStat)
	}
	return nil
}
