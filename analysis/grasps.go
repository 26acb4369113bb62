package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/baglab/baglab/baseline"
)

// GraspsKind is the registry row of the grasps analysis.
var GraspsKind = Kind{
	Name: "grasps",
	New:  func(o Options) Analyzer { return NewGrasps(o.WindowNs) },
	Summary: "rail_pick_and_place grasp models: successes/attempts, success " +
		"rates with Wilson 95% intervals per grasp, model and object " +
		"(untried grasps counted apart); GraspAndStore and " +
		"GetYesNoFeedback attempts and a learning curve over time.",
	Keys: baseline.Keys{
		{Path: "grasps.grasps", Table: "grasps", Noun: "grasp", Key: []string{"model_id", "grasp_id"}},
		{Path: "grasps.models", Table: "grasp_models", Noun: "grasp model", Key: []string{"model_id"}},
		{Path: "grasps.objects", Table: "grasp_objects", Noun: "grasped object", Key: []string{"object_name"}},
		{Path: "grasps.attempts", Table: "attempts", Noun: "grasp attempt", PerObservation: true},
		{Path: "grasps.attempt_rates", Table: "attempt_rates", Noun: "attempt rate", Key: []string{"object_name", "source"}},
		{Path: "grasps.learning_curve", Table: "learning_curve", Noun: "learning-curve window", Key: []string{"object_name", "source", "window"}},
	},
}

// Type names read by the grasps analysis.
const (
	typeGrasp                = "rail_manipulation_msgs/Grasp"
	typeSegmentedObject      = "rail_manipulation_msgs/SegmentedObject"
	typeGraspModel           = "rail_pick_and_place_msgs/GraspModel"
	typeGraspWithSuccessRate = "rail_pick_and_place_msgs/GraspWithSuccessRate"
	typeGraspAndStoreGoal    = "rail_pick_and_place_msgs/GraspAndStoreActionGoal"
	typeGraspAndStoreResult  = "rail_pick_and_place_msgs/GraspAndStoreActionResult"
	typeTrainMetricsGoal     = "rail_pick_and_place_msgs/TrainMetricsActionGoal"
	typeYesNoResult          = "rail_pick_and_place_msgs/GetYesNoFeedbackActionResult"
)

// graspKey identifies a grasp: the model holding it (GraspModel.id or
// SegmentedObject.model_id) and its id (GraspWithSuccessRate.id, else
// Grasp.grasp_id when the layout has it, else its index in the list). A
// grasp outside any model is keyed by its topic.
type graspKey struct {
	Model string
	Grasp string
}

type graspState struct {
	Key       graspKey
	Object    string
	EEF       string
	Successes int64
	Attempts  int64
	LogTime   int64
	Topic     string
}

func graspNewer(a, b graspState) bool {
	return cmp.Or(cmp.Compare(a.LogTime, b.LogTime), cmp.Compare(a.Attempts, b.Attempts),
		cmp.Compare(a.Successes, b.Successes), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Object, b.Object),
		cmp.Compare(a.EEF, b.EEF)) > 0
}

// actionEvent is a goal or result of a grasp action.
type actionEvent struct {
	LogTime int64
	Topic   string
	Kind    string // "goal", "train_goal", "result", "yes_no"
	GoalID  string
	Object  string
	Success bool
	Status  int64
	Text    string
}

func compareEvents(a, b actionEvent) int {
	return cmp.Or(cmp.Compare(a.LogTime, b.LogTime), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.GoalID, b.GoalID), cmp.Compare(a.Object, b.Object), compareBool(a.Success, b.Success),
		cmp.Compare(a.Status, b.Status), cmp.Compare(a.Text, b.Text))
}

// Grasps accumulates grasp success counts and grasp action outcomes.
type Grasps struct {
	windowNs int64
	grasps   map[graspKey]graspState
	events   []actionEvent
}

// NewGrasps returns an empty grasps accumulator; windowNs is the width of a
// learning-curve window (0: a tenth of the attempts' time span).
func NewGrasps(windowNs int64) *Grasps {
	return &Grasps{windowNs: windowNs, grasps: map[graspKey]graspState{}}
}

// Kind implements Analyzer.
func (g *Grasps) Kind() string { return "grasps" }

// Wants implements Analyzer.
func (g *Grasps) Wants(typ string) bool {
	switch packageOf(canonicalType(typ)) {
	case "rail_manipulation_msgs", "rail_pick_and_place_msgs", "interactive_world_msgs":
		return true
	}
	return false
}

// Add implements Analyzer.
func (g *Grasps) Add(m *Message) error {
	if m.Value == nil {
		return nil
	}
	switch messageType(m) {
	case typeGraspAndStoreGoal:
		g.events = append(g.events, actionEvent{LogTime: m.LogTime, Topic: m.Topic, Kind: "goal",
			GoalID: m.Value.LookupString("goal_id.id"), Object: m.Value.LookupString("goal.object_name")})
	case typeTrainMetricsGoal:
		g.events = append(g.events, actionEvent{LogTime: m.LogTime, Topic: m.Topic, Kind: "train_goal",
			GoalID: m.Value.LookupString("goal_id.id"), Object: m.Value.LookupString("goal.object_name")})
	case typeGraspAndStoreResult:
		ok, _ := m.Value.LookupBool("result.success")
		st, _ := m.Value.LookupInt("status.status")
		g.events = append(g.events, actionEvent{LogTime: m.LogTime, Topic: m.Topic, Kind: "result",
			GoalID: m.Value.LookupString("status.goal_id.id"), Success: ok, Status: st, Text: m.Value.LookupString("status.text")})
	case typeYesNoResult:
		ok, _ := m.Value.LookupBool("result.yes")
		st, _ := m.Value.LookupInt("status.status")
		g.events = append(g.events, actionEvent{LogTime: m.LogTime, Topic: m.Topic, Kind: "yes_no",
			GoalID: m.Value.LookupString("status.goal_id.id"), Success: ok, Status: st, Text: m.Value.LookupString("status.text")})
	}
	walk(m.Value, func(n *node) bool {
		if n.Type != typeGrasp {
			return true
		}
		st := graspState{LogTime: m.LogTime, Topic: m.Topic, EEF: n.S.LookupString("eef_frame_id")}
		st.Successes, _ = n.S.LookupInt("successes")
		st.Attempts, _ = n.S.LookupInt("attempts")
		holder := n
		if w := n.ancestor(typeGraspWithSuccessRate); w != nil {
			holder = w
			id, _ := w.S.LookupInt("id")
			st.Key.Grasp = strconv.FormatInt(id, 10)
		} else if n.S.Has("grasp_id") {
			id, _ := n.S.LookupInt("grasp_id")
			st.Key.Grasp = strconv.FormatInt(id, 10)
		} else {
			st.Key.Grasp = "#" + strconv.Itoa(n.Index)
		}
		if gm := holder.ancestor(typeGraspModel); gm != nil {
			id, _ := gm.S.LookupInt("id")
			st.Key.Model = strconv.FormatInt(id, 10)
			st.Object = gm.S.LookupString("object_name")
		} else if so := n.ancestor(typeSegmentedObject); so != nil {
			id, _ := so.S.LookupInt("model_id")
			st.Key.Model = strconv.FormatInt(id, 10)
			st.Object = so.S.LookupString("name")
		} else {
			st.Key.Model = "topic:" + m.Topic
		}
		if cur, ok := g.grasps[st.Key]; !ok || graspNewer(st, cur) {
			g.grasps[st.Key] = st
		}
		return false
	})
	return nil
}

// Merge implements Analyzer.
func (g *Grasps) Merge(other Analyzer) error {
	o, ok := other.(*Grasps)
	if !ok {
		return MergeKindError(g.Kind(), other)
	}
	for k, st := range o.grasps {
		if cur, ok := g.grasps[k]; !ok || graspNewer(st, cur) {
			g.grasps[k] = st
		}
	}
	g.events = append(g.events, o.events...)
	return nil
}

// Rate is a success count with its rate and Wilson 95% interval. Untried
// (zero attempts) has NaN rate and interval.
type Rate struct {
	Successes   int64 `json:"successes"`
	Attempts    int64 `json:"attempts"`
	SuccessRate Num   `json:"success_rate"`
	WilsonLow   Num   `json:"wilson_low"`
	WilsonHigh  Num   `json:"wilson_high"`
}

func newRate(k, n int64) Rate {
	lo, hi := wilson(k, n)
	return Rate{Successes: k, Attempts: n, SuccessRate: Num(ratio(k, n)), WilsonLow: Num(lo), WilsonHigh: Num(hi)}
}

// GraspStat is the last observed state of one grasp.
type GraspStat struct {
	ModelID    string `json:"model_id"`
	GraspID    string `json:"grasp_id"`
	ObjectName string `json:"object_name"`
	EEFFrameID string `json:"eef_frame_id"`
	Rate
	Untried   bool   `json:"untried"`
	LogTimeNs int64  `json:"log_time_ns"`
	Topic     string `json:"topic"`
}

// GraspGroupStat sums the tried grasps of a model or an object.
type GraspGroupStat struct {
	ModelID    string `json:"model_id,omitempty"`
	ObjectName string `json:"object_name"`
	// Source is the action stream of attempt rates ("grasp_and_store" or
	// "yes_no_feedback"); empty for grasp models and objects.
	Source  string `json:"source,omitempty"`
	Grasps  int    `json:"grasps"`
	Untried int    `json:"untried"`
	Rate
	// Best and Worst are the grasp ids with the highest and lowest success
	// rate among tried grasps (ties: higher/lower Wilson bound, then id).
	Best  string `json:"best_grasp"`
	Worst string `json:"worst_grasp"`
}

// Attempt is one grasp attempt outcome from an action stream.
type Attempt struct {
	LogTimeNs  int64  `json:"log_time_ns"`
	ObjectName string `json:"object_name"`
	Source     string `json:"source"`
	GoalID     string `json:"goal_id"`
	Success    bool   `json:"success"`
	Status     int64  `json:"status"`
}

// WindowRate is the success rate of one object's attempts from one source
// in one time window.
type WindowRate struct {
	ObjectName string `json:"object_name"`
	Source     string `json:"source"`
	Window     int    `json:"window"`
	StartNs    int64  `json:"start_ns"`
	EndNs      int64  `json:"end_ns"`
	Rate
}

// GraspsResult is the result of the grasps analysis.
type GraspsResult struct {
	KindName string           `json:"kind"`
	Grasps   []GraspStat      `json:"grasps"`
	Models   []GraspGroupStat `json:"models"`
	Objects  []GraspGroupStat `json:"objects"`
	Attempts []Attempt        `json:"attempts"`
	// AttemptRates sums Attempts per object and source: a GraspAndStore
	// result and the yes/no answer verifying it are two views of one
	// attempt, so the sources are never added together.
	AttemptRates []GraspGroupStat `json:"attempt_rates"`
	WindowNs     int64            `json:"window_ns"`
	Curve        []WindowRate     `json:"learning_curve"`
	// Pending counts GraspAndStore goals without a result.
	Pending int `json:"pending_goals"`
	// Notes are the warnings about the data (see Warnings).
	Notes []string `json:"warnings,omitempty"`
}

// Kind implements Result.
func (r *GraspsResult) Kind() string { return "grasps" }

// Result implements Analyzer.
func (g *Grasps) Result() (Result, error) {
	res := &GraspsResult{KindName: "grasps", Grasps: []GraspStat{}, Models: []GraspGroupStat{}, Objects: []GraspGroupStat{},
		Attempts: []Attempt{}, AttemptRates: []GraspGroupStat{}, Curve: []WindowRate{}}
	states := make([]graspState, 0, len(g.grasps))
	for _, st := range g.grasps {
		states = append(states, st)
	}
	slices.SortFunc(states, func(a, b graspState) int {
		return cmp.Or(compareIDs(a.Key.Model, b.Key.Model), compareIDs(a.Key.Grasp, b.Key.Grasp))
	})
	models := map[string]*groupAcc{}
	objects := map[string]*groupAcc{}
	for _, st := range states {
		gs := GraspStat{ModelID: st.Key.Model, GraspID: st.Key.Grasp, ObjectName: st.Object, EEFFrameID: st.EEF,
			Rate: newRate(st.Successes, st.Attempts), Untried: st.Attempts == 0, LogTimeNs: st.LogTime, Topic: st.Topic}
		if st.Successes > st.Attempts {
			res.Notes = append(res.Notes, fmt.Sprintf("grasp %s/%s: %d successes in %d attempts", st.Key.Model, st.Key.Grasp, st.Successes, st.Attempts))
		}
		res.Grasps = append(res.Grasps, gs)
		accFor(models, st.Key.Model, st.Object).add(gs)
		accFor(objects, st.Object, st.Object).add(gs)
	}
	for _, k := range sortedIDs(models) {
		s := models[k].stat()
		s.ModelID = k
		res.Models = append(res.Models, s)
	}
	for _, k := range SortedKeys(objects) {
		res.Objects = append(res.Objects, objects[k].stat())
	}
	g.attempts(res)
	return res, nil
}

type groupAcc struct {
	object  string
	grasps  int
	untried int
	k, n    int64
	tried   []GraspStat
}

func accFor(m map[string]*groupAcc, key, object string) *groupAcc {
	a := m[key]
	if a == nil {
		a = &groupAcc{object: object}
		m[key] = a
	}
	return a
}

func (a *groupAcc) add(g GraspStat) {
	a.grasps++
	if g.Untried {
		a.untried++
		return
	}
	a.k += g.Successes
	a.n += g.Attempts
	a.tried = append(a.tried, g)
}

func (a *groupAcc) stat() GraspGroupStat {
	s := GraspGroupStat{ObjectName: a.object, Grasps: a.grasps, Untried: a.untried, Rate: newRate(a.k, a.n)}
	if len(a.tried) == 0 {
		return s
	}
	better := func(x, y GraspStat) int { // >0 when x is better than y
		return cmp.Or(cmp.Compare(float64(x.SuccessRate), float64(y.SuccessRate)),
			cmp.Compare(float64(x.WilsonLow), float64(y.WilsonLow)), -compareIDs(x.GraspID, y.GraspID))
	}
	worse := func(x, y GraspStat) int { // >0 when x is worse than y
		return cmp.Or(cmp.Compare(float64(y.SuccessRate), float64(x.SuccessRate)),
			cmp.Compare(float64(y.WilsonHigh), float64(x.WilsonHigh)), -compareIDs(x.GraspID, y.GraspID))
	}
	best, worst := a.tried[0], a.tried[0]
	for _, g := range a.tried[1:] {
		if better(g, best) > 0 {
			best = g
		}
		if worse(g, worst) > 0 {
			worst = g
		}
	}
	s.Best, s.Worst = best.ModelID+"/"+best.GraspID, worst.ModelID+"/"+worst.GraspID
	if a.object != "" && best.ModelID == worst.ModelID {
		s.Best, s.Worst = best.GraspID, worst.GraspID
	}
	return s
}

// compareIDs orders numeric ids numerically ("1" before "01" when equal),
// then other ids as strings.
func compareIDs(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Or(cmp.Compare(x, y), cmp.Compare(len(a), len(b)), cmp.Compare(a, b))
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

func sortedIDs[V any](m map[string]V) []string {
	keys := SortedKeys(m)
	slices.SortFunc(keys, compareIDs)
	return keys
}

// attempts pairs GraspAndStore goals and results by goal id and attributes
// each GetYesNoFeedback answer to the object of the latest GraspAndStore or
// TrainMetrics goal before it.
func (g *Grasps) attempts(res *GraspsResult) {
	evs := slices.Clone(g.events)
	slices.SortFunc(evs, compareEvents)
	goals := map[string]actionEvent{}
	answered := map[string]bool{}
	lastObject := ""
	for _, e := range evs {
		switch e.Kind {
		case "goal", "train_goal":
			goals[e.GoalID] = e
			lastObject = e.Object
		case "result":
			goal, ok := goals[e.GoalID]
			obj := goal.Object
			t := e.LogTime
			if ok {
				t = goal.LogTime
			}
			answered[e.GoalID] = true
			res.Attempts = append(res.Attempts, Attempt{LogTimeNs: t, ObjectName: obj, Source: "grasp_and_store",
				GoalID: e.GoalID, Success: e.Success, Status: e.Status})
		case "yes_no":
			res.Attempts = append(res.Attempts, Attempt{LogTimeNs: e.LogTime, ObjectName: lastObject, Source: "yes_no_feedback",
				GoalID: e.GoalID, Success: e.Success, Status: e.Status})
		}
	}
	for id, e := range goals {
		if e.Kind == "goal" && !answered[id] {
			res.Pending++
		}
	}
	slices.SortStableFunc(res.Attempts, func(a, b Attempt) int { return cmp.Compare(a.LogTimeNs, b.LogTimeNs) })
	if len(res.Attempts) == 0 {
		return
	}
	type src struct{ obj, source string }
	compareSrc := func(a, b src) int { return cmp.Or(cmp.Compare(a.obj, b.obj), cmp.Compare(a.source, b.source)) }
	per := map[src]*groupAcc{}
	for _, a := range res.Attempts {
		k := src{a.ObjectName, a.Source}
		acc := per[k]
		if acc == nil {
			acc = &groupAcc{object: a.ObjectName}
			per[k] = acc
		}
		acc.grasps++
		acc.n++
		if a.Success {
			acc.k++
		}
	}
	srcs := make([]src, 0, len(per))
	for k := range per {
		srcs = append(srcs, k)
	}
	slices.SortFunc(srcs, compareSrc)
	for _, k := range srcs {
		a := per[k]
		res.AttemptRates = append(res.AttemptRates, GraspGroupStat{ObjectName: k.obj, Source: k.source, Grasps: a.grasps, Rate: newRate(a.k, a.n)})
	}
	first, last := res.Attempts[0].LogTimeNs, res.Attempts[len(res.Attempts)-1].LogTimeNs
	w := g.windowNs
	if w <= 0 {
		w = int64(math.Ceil(float64(last-first)/10/1e9)) * 1e9
		if w < 1e9 {
			w = 1e9
		}
	}
	res.WindowNs = w
	type wk struct {
		src
		win int
	}
	counts := map[wk][2]int64{}
	for _, a := range res.Attempts {
		k := wk{src{a.ObjectName, a.Source}, int((a.LogTimeNs - first) / w)}
		c := counts[k]
		c[1]++
		if a.Success {
			c[0]++
		}
		counts[k] = c
	}
	keys := make([]wk, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b wk) int { return cmp.Or(compareSrc(a.src, b.src), cmp.Compare(a.win, b.win)) })
	for _, k := range keys {
		c := counts[k]
		start := first + int64(k.win)*w
		res.Curve = append(res.Curve, WindowRate{ObjectName: k.obj, Source: k.source, Window: k.win, StartNs: start, EndNs: start + w, Rate: newRate(c[0], c[1])})
	}
}

// Tables implements Result.
func (r *GraspsResult) Tables() []*Table {
	grasps := NewTable("grasps", false, "model_id", "grasp_id", "object_name", "eef_frame_id", "successes:i", "attempts:i",
		"untried:b", "success_rate:f", "wilson_low:f", "wilson_high:f", "log_time_ns:i", "topic").
		ShowByDefault("model_id", "grasp_id", "object_name", "successes", "attempts", "untried", "success_rate", "wilson_low", "wilson_high")
	for _, g := range r.Grasps {
		grasps.Add(g.ModelID, g.GraspID, g.ObjectName, g.EEFFrameID, g.Successes, g.Attempts, g.Untried, g.SuccessRate,
			g.WilsonLow, g.WilsonHigh, g.LogTimeNs, g.Topic)
	}
	// An object sums the grasps of every model of it: it has no model id.
	group := func(name string, byModel bool, rows []GraspGroupStat) *Table {
		cols := []string{"object_name", "grasps:i", "untried:i", "successes:i", "attempts:i",
			"success_rate:f", "wilson_low:f", "wilson_high:f", "best_grasp", "worst_grasp"}
		if byModel {
			cols = append([]string{"model_id"}, cols...)
		}
		t := NewTable(name, false, cols...)
		for _, s := range rows {
			vals := []any{s.ObjectName, s.Grasps, s.Untried, s.Successes, s.Attempts, s.SuccessRate, s.WilsonLow,
				s.WilsonHigh, s.Best, s.Worst}
			if byModel {
				vals = append([]any{s.ModelID}, vals...)
			}
			t.Add(vals...)
		}
		return t
	}
	attempts := NewTable("attempts", true, "log_time_ns:i", "object_name", "source", "goal_id", "success:b", "status:i")
	for _, a := range r.Attempts {
		attempts.Add(a.LogTimeNs, a.ObjectName, a.Source, a.GoalID, a.Success, a.Status)
	}
	rates := NewTable("attempt_rates", false, "object_name", "source", "attempts:i", "successes:i", "success_rate:f",
		"wilson_low:f", "wilson_high:f")
	for _, s := range r.AttemptRates {
		rates.Add(s.ObjectName, s.Source, s.Attempts, s.Successes, s.SuccessRate, s.WilsonLow, s.WilsonHigh)
	}
	curve := NewTable("learning_curve", false, "object_name", "source", "window:i", "start_ns:i", "end_ns:i", "successes:i",
		"attempts:i", "success_rate:f", "wilson_low:f", "wilson_high:f").
		ShowByDefault("object_name", "source", "window", "successes", "attempts", "success_rate", "wilson_low", "wilson_high")
	for _, c := range r.Curve {
		curve.Add(c.ObjectName, c.Source, c.Window, c.StartNs, c.EndNs, c.Successes, c.Attempts, c.SuccessRate, c.WilsonLow, c.WilsonHigh)
	}
	return []*Table{grasps, group("grasp_models", true, r.Models), group("grasp_objects", false, r.Objects), attempts, rates, curve}
}
