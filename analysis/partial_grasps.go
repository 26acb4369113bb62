package analysis

import (
	"cmp"
	"encoding/json"
	"slices"
)

// graspsState is the state of "grasps" in a partial file: the latest
// state of every grasp (by model and grasp id) and every grasp action
// event, in the order added.
//
//	{"grasps": [{"Key": {"Model", "Grasp"}, "Object", "EEF", "Successes",
//	             "Attempts", "LogTime", "Topic"}],
//	 "events": [{"LogTime", "Topic", "Kind", "GoalID", "Object", "Success",
//	             "Status", "Text"}]}
type graspsState struct {
	Grasps []graspState  `json:"grasps"`
	Events []actionEvent `json:"events"`
}

// MarshalState implements Partial.
func (g *Grasps) MarshalState() ([]byte, error) {
	st := graspsState{Grasps: make([]graspState, 0, len(g.grasps)), Events: g.events}
	for _, s := range g.grasps {
		st.Grasps = append(st.Grasps, s)
	}
	slices.SortFunc(st.Grasps, func(a, b graspState) int {
		return cmp.Or(cmp.Compare(a.Key.Model, b.Key.Model), cmp.Compare(a.Key.Grasp, b.Key.Grasp))
	})
	if st.Events == nil {
		st.Events = []actionEvent{}
	}
	return json.Marshal(st)
}

// UnmarshalState implements Partial.
func (g *Grasps) UnmarshalState(data []byte) error {
	var st graspsState
	if err := DecodeState(data, &st); err != nil {
		return err
	}
	g.grasps = map[graspKey]graspState{}
	for _, s := range st.Grasps {
		g.grasps[s.Key] = s
	}
	g.events = st.Events
	if len(g.events) == 0 {
		g.events = nil
	}
	return nil
}
