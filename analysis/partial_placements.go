package analysis

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
)

// placementsState is the state of "placements" in a partial file: every
// observed placement per group, in the order added (what the EM learner
// and the statistics need), the group's earliest placement with its item,
// room and surface messages (for --models-out), and the recorded models.
//
//	{"groups": [{"item", "room", "surface", "reference_frame_id",
//	             "points": [{"x","y","z","theta","log_time_ns","topic","seq"}],
//	             "first": {point}, "item_msg": {msg}, "room_msg": {msg}, "surface_msg": {msg}}],
//	 "recorded": [{"key": {group key}, "log_time_ns", "topic", "seq", "x", "y", "z", "theta",
//	               "decision_value", "sigma_x", "sigma_y", "sigma_z", "sigma_theta"}]}
//
// A msg is {"type", "dialect" ("ros1" or "ros2"), "definition" (the full
// text, as a ROS1 bag stores it), "data" (the message in the ROS1 wire
// encoding, base64)}.
type placementsState struct {
	Groups   []placementGroupState `json:"groups"`
	Recorded []recordedState       `json:"recorded"`
}

type placementGroupState struct {
	GroupKey
	Points     []pointState `json:"points"`
	First      *pointState  `json:"first,omitempty"`
	ItemMsg    *msgState    `json:"item_msg,omitempty"`
	RoomMsg    *msgState    `json:"room_msg,omitempty"`
	SurfaceMsg *msgState    `json:"surface_msg,omitempty"`
}

type pointState struct {
	X       Num    `json:"x"`
	Y       Num    `json:"y"`
	Z       Num    `json:"z"`
	Theta   Num    `json:"theta"`
	LogTime int64  `json:"log_time_ns"`
	Topic   string `json:"topic"`
	Seq     int    `json:"seq"`
}

func pointStateOf(p point) pointState {
	return pointState{Num(p.X), Num(p.Y), Num(p.Z), Num(p.Theta), p.LogTime, p.Topic, p.Seq}
}

func (s pointState) point() point {
	return point{X: float64(s.X), Y: float64(s.Y), Z: float64(s.Z), Theta: float64(s.Theta), LogTime: s.LogTime, Topic: s.Topic, Seq: s.Seq}
}

type recordedState struct {
	Key      GroupKey `json:"key"`
	LogTime  int64    `json:"log_time_ns"`
	Topic    string   `json:"topic"`
	Seq      int      `json:"seq"`
	X        Num      `json:"x"`
	Y        Num      `json:"y"`
	Z        Num      `json:"z"`
	Theta    Num      `json:"theta"`
	Decision Num      `json:"decision_value"`
	SX       Num      `json:"sigma_x"`
	SY       Num      `json:"sigma_y"`
	SZ       Num      `json:"sigma_z"`
	STheta   Num      `json:"sigma_theta"`
}

// MarshalState implements Partial.
func (p *Placements) MarshalState() ([]byte, error) {
	st := placementsState{Groups: []placementGroupState{}, Recorded: []recordedState{}}
	keys := make([]GroupKey, 0, len(p.points))
	for k := range p.points {
		keys = append(keys, k)
	}
	for k := range p.refs {
		if _, ok := p.points[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareKeys)
	for _, k := range keys {
		g := placementGroupState{GroupKey: k, Points: []pointState{}}
		for _, pt := range p.points[k] {
			g.Points = append(g.Points, pointStateOf(pt))
		}
		if r := p.refs[k]; r != nil {
			first := pointStateOf(r.first)
			g.First = &first
			var err error
			for _, m := range []struct {
				dst **msgState
				v   *value.Struct
			}{{&g.ItemMsg, r.item}, {&g.RoomMsg, r.room}, {&g.SurfaceMsg, r.surface}} {
				if *m.dst, err = msgStateOf(m.v); err != nil {
					return nil, fmt.Errorf("group %s: %w", k, err)
				}
			}
		}
		st.Groups = append(st.Groups, g)
	}
	for _, r := range p.recorded {
		st.Recorded = append(st.Recorded, recordedState{r.Key, r.LogTime, r.Topic, r.Seq, Num(r.X), Num(r.Y), Num(r.Z),
			Num(r.Theta), Num(r.Decision), Num(r.SX), Num(r.SY), Num(r.SZ), Num(r.STheta)})
	}
	return json.Marshal(st)
}

// UnmarshalState implements Partial.
func (p *Placements) UnmarshalState(data []byte) error {
	var st placementsState
	if err := DecodeState(data, &st); err != nil {
		return err
	}
	p.points, p.refs, p.recorded = map[GroupKey][]point{}, map[GroupKey]*groupRefs{}, nil
	types := map[string]*msgdef.Type{}
	for _, g := range st.Groups {
		if len(g.Points) > 0 {
			pts := make([]point, len(g.Points))
			for i, s := range g.Points {
				pts[i] = s.point()
			}
			p.points[g.GroupKey] = pts
		}
		if g.First == nil {
			continue
		}
		r := &groupRefs{first: g.First.point()}
		var err error
		for _, m := range []struct {
			dst **value.Struct
			src *msgState
		}{{&r.item, g.ItemMsg}, {&r.room, g.RoomMsg}, {&r.surface, g.SurfaceMsg}} {
			if *m.dst, err = m.src.value(types); err != nil {
				return fmt.Errorf("group %s: %w", g.GroupKey, err)
			}
		}
		p.refs[g.GroupKey] = r
	}
	for _, r := range st.Recorded {
		p.recorded = append(p.recorded, recordedModel{Key: r.Key, LogTime: r.LogTime, Topic: r.Topic, Seq: r.Seq,
			X: float64(r.X), Y: float64(r.Y), Z: float64(r.Z), Theta: float64(r.Theta), Decision: float64(r.Decision),
			SX: float64(r.SX), SY: float64(r.SY), SZ: float64(r.SZ), STheta: float64(r.STheta)})
	}
	return nil
}

// msgState is a message kept in a state: its definition and its ROS1
// wire bytes.
type msgState struct {
	Type       string `json:"type"`
	Dialect    string `json:"dialect"`
	Definition string `json:"definition"`
	Data       []byte `json:"data"`
}

func msgStateOf(v *value.Struct) (*msgState, error) {
	if v == nil || v.Type == nil {
		return nil, nil
	}
	data, err := ros1.Encode(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Type.Name, err)
	}
	return &msgState{Type: v.Type.Name, Dialect: v.Type.Dialect.String(), Definition: msgdef.FullText(v.Type), Data: data}, nil
}

// value decodes m (nil for none), parsing each definition once (types is
// keyed by type, dialect and definition).
func (m *msgState) value(types map[string]*msgdef.Type) (*value.Struct, error) {
	if m == nil {
		return nil, nil
	}
	key := m.Type + "\x00" + m.Dialect + "\x00" + m.Definition
	t := types[key]
	if t == nil {
		d := msgdef.ROS1
		if m.Dialect == msgdef.ROS2.String() {
			d = msgdef.ROS2
		}
		var err error
		if t, err = msgdef.ParseBundle(m.Type, m.Definition, d, nil); err != nil {
			return nil, err
		}
		types[key] = t
	}
	dec, err := ros1.Compile(t)
	if err != nil {
		return nil, err
	}
	return dec.DecodeValue(m.Data)
}
