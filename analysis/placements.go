package analysis

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/value"
)

// placementKey identifies a placement group.
var placementKey = []string{"item", "room", "surface", "reference_frame_id"}

// PlacementsKind is the registry row of the placements analysis.
var PlacementsKind = Kind{
	Name: "placements",
	New:  func(o Options) Analyzer { return NewPlacements(o.Learn) },
	Summary: "interactive_world_msgs placements: per (item, room, surface, " +
		"reference frame) counts, means, spreads and circular rotation " +
		"statistics; a ranking of reference frames per item; the " +
		"placement models of the jinteractiveworld EM learner (5% rule, " +
		"rank_m decision value, sigmas); recorded Model/TaskModels " +
		"compared with the learned ones.",
	Keys: baseline.Keys{
		{Path: "placements.groups", Table: "placement_groups", Noun: "placement group", Key: placementKey},
		{Path: "placements.frame_ranking", Table: "frame_ranking", Noun: "frame ranking", Key: placementKey},
		{Path: "placements.models", Table: "models", Noun: "placement model", Key: placementKey},
		{Path: "placements.models[*].cluster_stats", Table: "model_clusters", Noun: "model cluster", Key: []string{"index"}},
		{Path: "placements.recorded_models", Table: "recorded_models", Noun: "recorded model",
			Key: append([]string{"topic", "log_time_ns"}, placementKey...)},
	},
}

// Type names read by the placements analysis.
const (
	typePlacement  = "interactive_world_msgs/Placement"
	typeModel      = "interactive_world_msgs/Model"
	typeTaskModels = "interactive_world_msgs/TaskModels"
)

// GroupKey identifies a placement group.
type GroupKey struct {
	Item             string `json:"item"`
	Room             string `json:"room"`
	Surface          string `json:"surface"`
	ReferenceFrameID string `json:"reference_frame_id"`
}

func (k GroupKey) String() string {
	return fmt.Sprintf("%s in %s on %s wrt %s", k.Item, k.Room, k.Surface, k.ReferenceFrameID)
}

func compareKeys(a, b GroupKey) int {
	return cmp.Or(cmp.Compare(a.Item, b.Item), cmp.Compare(a.Room, b.Room),
		cmp.Compare(a.Surface, b.Surface), cmp.Compare(a.ReferenceFrameID, b.ReferenceFrameID))
}

// point is one observed placement.
type point struct {
	X, Y, Z, Theta float64
	LogTime        int64
	Topic          string
	Seq            int // position of the placement within its message
}

func comparePoints(a, b point) int {
	return cmp.Or(cmp.Compare(a.LogTime, b.LogTime), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Seq, b.Seq),
		compareFloats(a.X, b.X), compareFloats(a.Y, b.Y), compareFloats(a.Z, b.Z), compareFloats(a.Theta, b.Theta))
}

// groupRefs keeps the Item, Room and Surface values of a group's earliest
// placement, for writing models a robot can load.
type groupRefs struct {
	first               point
	item, room, surface *value.Struct
}

// earlier reports whether r is a group's earliest placement rather than o
// (nil: none yet). Placements go by comparePoints (log time, topic, place
// in the message, position); those that tie there go by their item, room
// and surface messages (compareDetails). This is a total order of what a
// group keeps, so the placement whose details --models-out writes does
// not depend on the order of the input files, nor on how they were shared
// among accumulators (--jobs) or partial states.
func (r *groupRefs) earlier(o *groupRefs) bool {
	if o == nil {
		return true
	}
	if c := comparePoints(r.first, o.first); c != 0 {
		return c < 0
	}
	return compareDetails(r, o) < 0
}

// compareDetails orders the item, room and surface messages of a and b,
// in turn, by compareMsgs.
func compareDetails(a, b *groupRefs) int {
	return cmp.Or(compareMsgs(a.item, b.item), compareMsgs(a.room, b.room), compareMsgs(a.surface, b.surface))
}

// compareMsgs orders two messages by their type, dialect, definition and
// ROS1 bytes, the form a partial state keeps them in (msgStateOf): none
// comes first, one that does not encode last.
func compareMsgs(a, b *value.Struct) int {
	sa, errA := msgStateOf(a)
	sb, errB := msgStateOf(b)
	switch {
	case errA != nil || errB != nil:
		return compareBool(errA != nil, errB != nil)
	case sa == nil || sb == nil:
		return compareBool(sa != nil, sb != nil)
	}
	return cmp.Or(cmp.Compare(sa.Type, sb.Type), cmp.Compare(sa.Dialect, sb.Dialect),
		cmp.Compare(sa.Definition, sb.Definition), bytes.Compare(sa.Data, sb.Data))
}

// recordedModel is a Model found in the input.
type recordedModel struct {
	Key                                          GroupKey
	LogTime                                      int64
	Topic                                        string
	Seq                                          int
	X, Y, Z, Theta, Decision, SX, SY, SZ, STheta float64
}

// Placements accumulates interactive_world_msgs/Placement observations and
// the Model/TaskModels messages of the input.
type Placements struct {
	opts     LearnOptions
	points   map[GroupKey][]point
	refs     map[GroupKey]*groupRefs
	recorded []recordedModel
}

// NewPlacements returns an empty placements accumulator.
func NewPlacements(o LearnOptions) *Placements {
	return &Placements{opts: o, points: map[GroupKey][]point{}, refs: map[GroupKey]*groupRefs{}}
}

// Kind implements Analyzer.
func (p *Placements) Kind() string { return "placements" }

// Wants implements Analyzer: interactive_world_msgs types (Placement,
// PlacementSet, TaskTrainingData, Model, TaskModels and the services and
// actions that carry them).
func (p *Placements) Wants(typ string) bool {
	return packageOf(canonicalType(typ)) == "interactive_world_msgs"
}

// Add implements Analyzer. Placements are taken wherever they occur except
// inside a Model (a model's placement is not an observation).
func (p *Placements) Add(m *Message) error {
	if m.Value == nil {
		return nil
	}
	seq := 0
	walk(m.Value, func(n *node) bool {
		switch n.Type {
		case typeModel:
			p.addRecorded(n.S, m, seq)
			seq++
			return false
		case typePlacement:
			key := GroupKey{
				Item:             n.S.LookupString("item.name"),
				Room:             n.S.LookupString("room.name"),
				Surface:          n.S.LookupString("surface.name"),
				ReferenceFrameID: n.S.LookupString("reference_frame_id"),
			}
			x, _ := n.S.LookupFloat("position.x")
			y, _ := n.S.LookupFloat("position.y")
			z, _ := n.S.LookupFloat("position.z")
			th, _ := n.S.LookupFloat("rotation")
			pt := point{X: x, Y: y, Z: z, Theta: th, LogTime: m.LogTime, Topic: m.Topic, Seq: seq}
			seq++
			p.points[key] = append(p.points[key], pt)
			if r := p.refs[key]; r == nil || comparePoints(pt, r.first) <= 0 {
				c := &groupRefs{first: pt, item: n.S.LookupStruct("item"),
					room: n.S.LookupStruct("room"), surface: n.S.LookupStruct("surface")}
				if c.earlier(r) {
					p.refs[key] = c
				}
			}
			return false
		}
		return true
	})
	return nil
}

func (p *Placements) addRecorded(s *value.Struct, m *Message, seq int) {
	pl := s.LookupStruct("placement")
	r := recordedModel{
		Key: GroupKey{Item: pl.LookupString("item.name"), Room: pl.LookupString("room.name"),
			Surface: pl.LookupString("surface.name"), ReferenceFrameID: pl.LookupString("reference_frame_id")},
		LogTime: m.LogTime, Topic: m.Topic, Seq: seq,
	}
	r.X, _ = pl.LookupFloat("position.x")
	r.Y, _ = pl.LookupFloat("position.y")
	r.Z, _ = pl.LookupFloat("position.z")
	r.Theta, _ = pl.LookupFloat("rotation")
	r.Decision, _ = s.LookupFloat("decision_value")
	r.SX, _ = s.LookupFloat("sigma_x")
	r.SY, _ = s.LookupFloat("sigma_y")
	r.SZ, _ = s.LookupFloat("sigma_z")
	r.STheta, _ = s.LookupFloat("sigma_theta")
	p.recorded = append(p.recorded, r)
}

// Merge implements Analyzer.
func (p *Placements) Merge(other Analyzer) error {
	o, ok := other.(*Placements)
	if !ok {
		return MergeKindError(p.Kind(), other)
	}
	for k, pts := range o.points {
		p.points[k] = append(p.points[k], pts...)
	}
	for k, r := range o.refs {
		if r.earlier(p.refs[k]) {
			p.refs[k] = r
		}
	}
	p.recorded = append(p.recorded, o.recorded...)
	return nil
}

// PlacementGroup holds the statistics of one group.
type PlacementGroup struct {
	GroupKey
	N     int `json:"n"`
	MeanX Num `json:"mean_x"`
	MeanY Num `json:"mean_y"`
	MeanZ Num `json:"mean_z"`
	// SD* are population standard deviations, SDSample* sample ones (NaN
	// for a single placement).
	SDX       Num `json:"sd_x"`
	SDY       Num `json:"sd_y"`
	SDZ       Num `json:"sd_z"`
	SDSampleX Num `json:"sd_sample_x"`
	SDSampleY Num `json:"sd_sample_y"`
	SDSampleZ Num `json:"sd_sample_z"`
	// Rotation statistics are circular (radians).
	RotationMean            Num `json:"rotation_circular_mean"`
	RotationSD              Num `json:"rotation_circular_sd"`
	RotationResultantLength Num `json:"rotation_resultant_length"`
	MinX                    Num `json:"min_x"`
	MaxX                    Num `json:"max_x"`
	MinY                    Num `json:"min_y"`
	MaxY                    Num `json:"max_y"`
	MinZ                    Num `json:"min_z"`
	MaxZ                    Num `json:"max_z"`
	// Spread is sqrt(sd_x^2 + sd_y^2), the RMS distance of the placements
	// from their mean in the plane of the frame.
	Spread Num `json:"spread"`
}

// FrameRank ranks one reference frame of an item: frames with a smaller
// spread explain the item's placements better.
type FrameRank struct {
	GroupKey
	N      int `json:"n"`
	Spread Num `json:"spread"`
	Rank   int `json:"rank"`
}

// RecordedModel is a Model found in the input, compared with the model
// learned for the same group.
type RecordedModel struct {
	GroupKey
	Topic         string         `json:"topic"`
	LogTimeNs     int64          `json:"log_time_ns"`
	Placement     ModelPlacement `json:"placement"`
	DecisionValue Num            `json:"decision_value"`
	SigmaX        Num            `json:"sigma_x"`
	SigmaY        Num            `json:"sigma_y"`
	SigmaZ        Num            `json:"sigma_z"`
	SigmaTheta    Num            `json:"sigma_theta"`
	// Learned tells whether a model with a placement was learned for the
	// group; the Delta fields are learned minus recorded.
	Learned         bool `json:"learned"`
	DeltaX          Num  `json:"delta_x"`
	DeltaY          Num  `json:"delta_y"`
	DeltaRotation   Num  `json:"delta_rotation"`
	DeltaDecision   Num  `json:"delta_decision_value"`
	DeltaSigmaX     Num  `json:"delta_sigma_x"`
	DeltaSigmaY     Num  `json:"delta_sigma_y"`
	DeltaSigmaTheta Num  `json:"delta_sigma_theta"`
}

// PlacementPoint is one placement of a group, in canonical order.
type PlacementPoint struct {
	X, Y, Z, Rotation float64
	LogTime           int64
	Topic             string
}

// PlacementsResult is the result of the placements analysis.
type PlacementsResult struct {
	KindName string `json:"kind"`
	// Placements counts every observed placement (all frames).
	Placements int `json:"placements"`
	// PruneTotal is the placement count the 5% rule is taken of: the
	// placements expressed in their own surface's frame (one per placement
	// event in interactive_world_parser), or all placements when there are
	// none; PruneLimit = floor(fraction x PruneTotal).
	PruneTotal int              `json:"prune_total"`
	PruneLimit int              `json:"prune_limit"`
	Theta      string           `json:"theta"`
	Groups     []PlacementGroup `json:"groups"`
	Frames     []FrameRank      `json:"frame_ranking"`
	Models     []LearnedModel   `json:"models"`
	Recorded   []RecordedModel  `json:"recorded_models"`
	// Points holds each group's placements (same order as Groups).
	Points [][]PlacementPoint `json:"-"`
	refs   []*groupRefs
}

// Kind implements Result.
func (r *PlacementsResult) Kind() string { return "placements" }

// Result implements Analyzer.
func (p *Placements) Result() (Result, error) {
	res := &PlacementsResult{KindName: "placements", Theta: p.opts.Theta.String(),
		Groups: []PlacementGroup{}, Frames: []FrameRank{}, Models: []LearnedModel{}, Recorded: []RecordedModel{}}
	keys := make([]GroupKey, 0, len(p.points))
	surfaceFrame := 0
	for k, pts := range p.points {
		keys = append(keys, k)
		res.Placements += len(pts)
		if k.ReferenceFrameID == k.Surface {
			surfaceFrame += len(pts)
		}
	}
	slices.SortFunc(keys, compareKeys)
	res.PruneTotal = surfaceFrame
	if surfaceFrame == 0 {
		res.PruneTotal = res.Placements
	}
	if f := p.opts.pruneFraction(); f > 0 {
		res.PruneLimit = int(float64(res.PruneTotal) * f)
	}
	var sorted [][]point // each group's points in canonical order
	var todo []int       // the models to learn
	for _, k := range keys {
		pts := slices.Clone(p.points[k])
		slices.SortFunc(pts, comparePoints)
		sorted = append(sorted, pts)
		g := groupStats(k, pts)
		res.Groups = append(res.Groups, g)
		pp := make([]PlacementPoint, len(pts))
		for i, q := range pts {
			pp[i] = PlacementPoint{X: q.X, Y: q.Y, Z: q.Z, Rotation: q.Theta, LogTime: q.LogTime, Topic: q.Topic}
		}
		res.Points = append(res.Points, pp)
		res.refs = append(res.refs, p.refs[k])
		if p.opts.Disable {
			continue
		}
		m := LearnedModel{GroupKey: k, N: len(pts), DecisionValue: Num(math.Inf(1))}
		switch {
		case len(pts) < res.PruneLimit:
			m.Pruned = true
		case len(pts) <= 1:
			m.Skipped = true
		default:
			todo = append(todo, len(res.Models))
		}
		res.Models = append(res.Models, m)
	}
	learnGroups(res.Models, sorted, todo, p.opts)
	learned := map[GroupKey]*LearnedModel{}
	for i := range res.Models {
		learned[res.Models[i].GroupKey] = &res.Models[i]
	}
	res.Frames = rankFrames(res.Groups)
	res.Recorded = p.compareRecorded(learned)
	return res, nil
}

func groupStats(k GroupKey, pts []point) PlacementGroup {
	xs := make([]float64, len(pts))
	ys := make([]float64, len(pts))
	zs := make([]float64, len(pts))
	ts := make([]float64, len(pts))
	for i, q := range pts {
		xs[i], ys[i], zs[i], ts[i] = q.X, q.Y, q.Z, q.Theta
	}
	mx, my, mz := computeMoments(xs), computeMoments(ys), computeMoments(zs)
	c := computeCircular(ts)
	return PlacementGroup{
		GroupKey: k, N: len(pts),
		MeanX: Num(mx.Mean), MeanY: Num(my.Mean), MeanZ: Num(mz.Mean),
		SDX: Num(mx.SD), SDY: Num(my.SD), SDZ: Num(mz.SD),
		SDSampleX: Num(mx.SDSample), SDSampleY: Num(my.SDSample), SDSampleZ: Num(mz.SDSample),
		RotationMean: Num(c.Mean), RotationSD: Num(c.SD), RotationResultantLength: Num(c.R),
		MinX: Num(mx.Min), MaxX: Num(mx.Max), MinY: Num(my.Min), MaxY: Num(my.Max), MinZ: Num(mz.Min), MaxZ: Num(mz.Max),
		Spread: Num(math.Sqrt(mx.SD*mx.SD + my.SD*my.SD)),
	}
}

// rankFrames ranks, for each item, its groups with at least two placements
// by spread (ties by key order).
func rankFrames(groups []PlacementGroup) []FrameRank {
	out := []FrameRank{}
	byItem := map[string][]FrameRank{}
	for _, g := range groups {
		if g.N < 2 {
			continue
		}
		byItem[g.Item] = append(byItem[g.Item], FrameRank{GroupKey: g.GroupKey, N: g.N, Spread: g.Spread})
	}
	for _, item := range SortedKeys(byItem) {
		fr := byItem[item]
		slices.SortStableFunc(fr, func(a, b FrameRank) int {
			return cmp.Or(cmp.Compare(float64(a.Spread), float64(b.Spread)), compareKeys(a.GroupKey, b.GroupKey))
		})
		for i := range fr {
			fr[i].Rank = i + 1
		}
		out = append(out, fr...)
	}
	return out
}

// compareRecordedModels orders recorded models by time, topic and place in the
// message, then by every value, so that only equal ones tie (the same
// model in two files).
func compareRecordedModels(a, b recordedModel) int {
	return cmp.Or(cmp.Compare(a.LogTime, b.LogTime), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Seq, b.Seq),
		compareFloats(a.X, b.X), compareFloats(a.Y, b.Y), compareFloats(a.Z, b.Z), compareFloats(a.Theta, b.Theta),
		compareFloats(a.Decision, b.Decision), compareFloats(a.SX, b.SX), compareFloats(a.SY, b.SY),
		compareFloats(a.SZ, b.SZ), compareFloats(a.STheta, b.STheta))
}

// compareRecorded keeps the latest recorded model per group and compares it
// with the learned one.
func (p *Placements) compareRecorded(learned map[GroupKey]*LearnedModel) []RecordedModel {
	latest := map[GroupKey]recordedModel{}
	for _, r := range p.recorded {
		cur, ok := latest[r.Key]
		if !ok || compareRecordedModels(r, cur) > 0 {
			latest[r.Key] = r
		}
	}
	keys := make([]GroupKey, 0, len(latest))
	for k := range latest {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	out := []RecordedModel{}
	nan := Num(math.NaN())
	for _, k := range keys {
		r := latest[k]
		rm := RecordedModel{GroupKey: k, Topic: r.Topic, LogTimeNs: r.LogTime,
			Placement:     ModelPlacement{Position: Position{X: Num(r.X), Y: Num(r.Y), Z: Num(r.Z)}, Rotation: Num(r.Theta)},
			DecisionValue: Num(r.Decision), SigmaX: Num(r.SX), SigmaY: Num(r.SY), SigmaZ: Num(r.SZ), SigmaTheta: Num(r.STheta),
			DeltaX: nan, DeltaY: nan, DeltaRotation: nan, DeltaDecision: nan, DeltaSigmaX: nan, DeltaSigmaY: nan, DeltaSigmaTheta: nan,
		}
		if l := learned[k]; l != nil && l.HasPlacement {
			rm.Learned = true
			rm.DeltaX = l.Placement.Position.X - Num(r.X)
			rm.DeltaY = l.Placement.Position.Y - Num(r.Y)
			rm.DeltaRotation = l.Placement.Rotation - Num(r.Theta)
			rm.DeltaDecision = l.DecisionValue - Num(r.Decision)
			rm.DeltaSigmaX = l.SigmaX - Num(r.SX)
			rm.DeltaSigmaY = l.SigmaY - Num(r.SY)
			rm.DeltaSigmaTheta = l.SigmaTheta - Num(r.STheta)
		}
		out = append(out, rm)
	}
	return out
}

// Tables implements Result.
func (r *PlacementsResult) Tables() []*Table {
	groups := NewTable("placement_groups", false, "item", "room", "surface", "reference_frame_id", "n:i",
		"mean_x:f", "mean_y:f", "mean_z:f", "sd_x:f", "sd_y:f", "sd_z:f", "sd_sample_x:f", "sd_sample_y:f", "sd_sample_z:f",
		"rotation_circular_mean:f", "rotation_circular_sd:f", "rotation_resultant_length:f",
		"min_x:f", "max_x:f", "min_y:f", "max_y:f", "min_z:f", "max_z:f", "spread:f").
		ShowByDefault("item", "room", "surface", "reference_frame_id", "n", "mean_x", "mean_y", "sd_x", "sd_y",
			"rotation_circular_mean", "rotation_circular_sd", "spread")
	for _, g := range r.Groups {
		groups.Add(g.Item, g.Room, g.Surface, g.ReferenceFrameID, g.N, g.MeanX, g.MeanY, g.MeanZ, g.SDX, g.SDY, g.SDZ,
			g.SDSampleX, g.SDSampleY, g.SDSampleZ, g.RotationMean, g.RotationSD, g.RotationResultantLength,
			g.MinX, g.MaxX, g.MinY, g.MaxY, g.MinZ, g.MaxZ, g.Spread)
	}
	frames := NewTable("frame_ranking", false, "item", "room", "surface", "reference_frame_id", "n:i", "spread:f", "rank:i")
	for _, f := range r.Frames {
		frames.Add(f.Item, f.Room, f.Surface, f.ReferenceFrameID, f.N, f.Spread, f.Rank)
	}
	models := NewTable("models", false, "item", "room", "surface", "reference_frame_id", "n:i", "pruned:b", "skipped:b",
		"clusters:i", "has_placement:b", "x:f", "y:f", "z:f", "rotation:f", "decision_value:f",
		"sigma_x:f", "sigma_y:f", "sigma_z:f", "sigma_theta:f").
		ShowByDefault("item", "surface", "reference_frame_id", "n", "pruned", "skipped", "clusters", "x", "y", "rotation",
			"decision_value", "sigma_x", "sigma_y", "sigma_theta")
	clusters := NewTable("model_clusters", true, "item", "room", "surface", "reference_frame_id", "cluster:i", "n:i",
		"prior:f", "rank:f", "mean_x:f", "mean_y:f", "mean_theta:f", "sigma_x:f", "sigma_y:f", "sigma_theta:f")
	for _, m := range r.Models {
		models.Add(m.Item, m.Room, m.Surface, m.ReferenceFrameID, m.N, m.Pruned, m.Skipped, m.Clusters, m.HasPlacement,
			m.Placement.Position.X, m.Placement.Position.Y, m.Placement.Position.Z, m.Placement.Rotation, m.DecisionValue,
			m.SigmaX, m.SigmaY, m.SigmaZ, m.SigmaTheta)
		for _, c := range m.ClusterStats {
			clusters.Add(m.Item, m.Room, m.Surface, m.ReferenceFrameID, c.Index, c.N, c.Prior, c.Rank,
				c.MeanX, c.MeanY, c.MeanTheta, c.SigmaX, c.SigmaY, c.SigmaTheta)
		}
	}
	recorded := NewTable("recorded_models", false, "item", "room", "surface", "reference_frame_id", "topic", "log_time_ns:i",
		"x:f", "y:f", "rotation:f", "decision_value:f", "sigma_x:f", "sigma_y:f", "sigma_theta:f", "learned:b",
		"delta_x:f", "delta_y:f", "delta_rotation:f", "delta_decision_value:f").
		ShowByDefault("item", "surface", "reference_frame_id", "x", "y", "rotation", "decision_value", "learned",
			"delta_x", "delta_y", "delta_rotation", "delta_decision_value")
	for _, m := range r.Recorded {
		recorded.Add(m.Item, m.Room, m.Surface, m.ReferenceFrameID, m.Topic, m.LogTimeNs, m.Placement.Position.X,
			m.Placement.Position.Y, m.Placement.Rotation, m.DecisionValue, m.SigmaX, m.SigmaY, m.SigmaTheta, m.Learned,
			m.DeltaX, m.DeltaY, m.DeltaRotation, m.DeltaDecision)
	}
	points := NewTable("placements", true, "item", "room", "surface", "reference_frame_id", "log_time_ns:i", "topic",
		"x:f", "y:f", "z:f", "rotation:f", "cluster:i")
	for gi, g := range r.Groups {
		var assign []int
		if gi < len(r.Models) {
			assign = r.Models[gi].Assignments
		}
		for i, q := range r.Points[gi] {
			c := int64(-1)
			if i < len(assign) {
				c = int64(assign[i])
			}
			points.Add(g.Item, g.Room, g.Surface, g.ReferenceFrameID, q.LogTime, q.Topic, q.X, q.Y, q.Z, q.Rotation, c)
		}
	}
	return []*Table{groups, frames, models, clusters, recorded, points}
}

func packageOf(typ string) string {
	for i := 0; i < len(typ); i++ {
		if typ[i] == '/' {
			return typ[:i]
		}
	}
	return typ
}
