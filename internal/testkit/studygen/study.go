package studygen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// StartNs is the log time of the first message of a study:
// 2024-05-01T12:00:00Z.
const StartNs int64 = 1714564800e9

// Event is one message of a study.
type Event struct {
	Topic   string
	LogTime int64
	Value   *value.Struct
}

// Cluster is a Gaussian placement cluster on (x, y, θ).
type Cluster struct {
	X, Y, Theta                float64
	SigmaX, SigmaY, SigmaTheta float64
	Weight                     float64
}

// PlacementGroup is the truth of one (item, room, surface, frame) group.
type PlacementGroup struct {
	Item, Room, Surface, Frame string
	Topic                      string
	// True is set for the frame the placements were drawn in; other frames
	// see the same placements shifted by a per-session offset.
	True     bool
	Clusters []Cluster `json:",omitempty"`
	N        int
}

// GraspTruth is the success probability a grasp's outcomes were drawn from.
type GraspTruth struct {
	ModelID     uint32
	Object      string
	GraspID     uint32
	P           float64
	Successes   uint32
	Attempts    uint32
	Untried     bool
	Description string `json:",omitempty"`
}

// FactTruth is one interval a fact holds for.
type FactTruth struct {
	Subject, Property, Target string
	StartNs, EndNs            int64
	Confidence                float64
}

// QueryTruth summarises the remap query service events.
type QueryTruth struct {
	Requests, Successes int
	MeanLatencyNs       float64
}

// Truth is the ground truth a study was drawn from.
type Truth struct {
	Seed       uint64
	StartNs    int64
	EndNs      int64
	Placements []PlacementGroup
	Grasps     []GraspTruth
	Facts      []FactTruth
	Vertices   int
	Edges      int
	Dangling   int
	Queries    QueryTruth
}

// Study is a generated study: its ROS1 and ROS2 messages in log time order,
// one seeded-random message of every type of the native packages (kept
// apart so that they do not disturb the analyses), and the truth behind
// the study.
type Study struct {
	ROS1    []Event
	ROS2    []Event
	AllROS1 []Event
	AllROS2 []Event
	Truth   Truth
}

// Options size a study.
type Options struct {
	Seed     uint64
	Sessions int // crowdsourcing sessions (default 30)
	// Media gives the grasp demonstrations a picture of their object and
	// the demonstrations and grasp models a cloud of its shape (media.go),
	// instead of blank 4x4 images and random bytes; off for the pinned
	// samples, whose bytes it would change.
	Media bool
}

type builder struct {
	reg   *msgdef.Registry
	rng   *rand.Rand
	study *Study
	err   error
}

func (b *builder) newValue(typeName string) *value.Struct {
	t, err := b.reg.Lookup(typeName)
	if err != nil {
		b.fail(err)
		return nil
	}
	return value.New(t)
}

func (b *builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *builder) set(v *value.Struct, path string, x any) {
	if v == nil {
		return
	}
	if err := v.Set(path, x); err != nil {
		b.fail(fmt.Errorf("%s.%s: %w", v.Type.Name, path, err))
	}
}

func (b *builder) emit(ros2 bool, topic string, t int64, v *value.Struct) {
	if v == nil {
		return
	}
	e := Event{Topic: topic, LogTime: t, Value: v}
	if strings.HasPrefix(topic, "/all_types/") {
		if ros2 {
			b.study.AllROS2 = append(b.study.AllROS2, e)
		} else {
			b.study.AllROS1 = append(b.study.AllROS1, e)
		}
		return
	}
	if ros2 {
		b.study.ROS2 = append(b.study.ROS2, e)
	} else {
		b.study.ROS1 = append(b.study.ROS1, e)
	}
}

// Generate builds a study.
func Generate(reg *msgdef.Registry, o Options) (*Study, error) {
	if o.Sessions <= 0 {
		o.Sessions = 30
	}
	b := &builder{reg: reg, rng: rand.New(rand.NewPCG(o.Seed, 0x5eed)), study: &Study{}}
	b.study.Truth.Seed = o.Seed
	b.study.Truth.StartNs = StartNs
	b.placements(o.Sessions)
	b.grasps()
	b.facts()
	b.lamaMap()
	b.queries()
	b.everyType()
	if o.Media {
		b.media()
	}
	if b.err != nil {
		return nil, b.err
	}
	for _, evs := range [][]Event{b.study.ROS1, b.study.ROS2} {
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].LogTime < evs[j].LogTime })
	}
	end := StartNs
	for _, evs := range [][]Event{b.study.ROS1, b.study.ROS2} {
		if n := len(evs); n > 0 && evs[n-1].LogTime > end {
			end = evs[n-1].LogTime
		}
	}
	b.study.Truth.EndNs = end
	return b.study, nil
}

// ---- placements -------------------------------------------------------

type surfaceSpec struct {
	room, surface string
	w, h          float64
}

type itemSpec struct {
	name      string
	w, h      float64
	where     surfaceSpec
	clusters  []Cluster
	topic     string // how it is recorded
	otherFrms []string
}

func (b *builder) item(typeName string, it itemSpec) *value.Struct {
	v := b.newValue(typeName)
	b.set(v, "name", it.name)
	b.set(v, "width", it.w)
	b.set(v, "height", it.h)
	return v
}

func (b *builder) room(s surfaceSpec) *value.Struct {
	v := b.newValue("interactive_world_msgs/Room")
	b.set(v, "name", s.room)
	b.set(v, "width", 6.0)
	b.set(v, "height", 4.5)
	b.set(v, "pose.orientation.w", 1.0)
	return v
}

func (b *builder) surface(s surfaceSpec) *value.Struct {
	v := b.newValue("interactive_world_msgs/Surface")
	b.set(v, "name", s.surface)
	b.set(v, "width", s.w)
	b.set(v, "height", s.h)
	b.set(v, "pose.position.x", 1.5)
	b.set(v, "pose.position.y", 2.0)
	b.set(v, "pose.position.z", 0.74)
	b.set(v, "pose.orientation.w", 1.0)
	poi := b.newValue("interactive_world_msgs/PointOfInterest")
	b.set(poi, "name", s.surface+"_center")
	b.set(poi, "width", 0.2)
	b.set(poi, "height", 0.2)
	b.set(poi, "pose.position.x", s.w/2)
	b.set(poi, "pose.position.y", s.h/2)
	b.set(poi, "pose.orientation.w", 1.0)
	b.set(v, "pois", []*value.Struct{poi})
	return v
}

func (b *builder) placement(it itemSpec, frame string, x, y, z, theta float64) *value.Struct {
	p := b.newValue("interactive_world_msgs/Placement")
	b.set(p, "item", b.item("interactive_world_msgs/Item", it))
	b.set(p, "room", b.room(it.where))
	b.set(p, "surface", b.surface(it.where))
	b.set(p, "reference_frame_id", frame)
	b.set(p, "position.x", x)
	b.set(p, "position.y", y)
	b.set(p, "position.z", z)
	b.set(p, "rotation", theta)
	return p
}

func (b *builder) draw(cs []Cluster) Cluster {
	u := b.rng.Float64()
	for _, c := range cs {
		if u < c.Weight {
			return Cluster{
				X:     c.X + b.rng.NormFloat64()*c.SigmaX,
				Y:     c.Y + b.rng.NormFloat64()*c.SigmaY,
				Theta: c.Theta + b.rng.NormFloat64()*c.SigmaTheta,
			}
		}
		u -= c.Weight
	}
	return cs[len(cs)-1]
}

func (b *builder) placements(sessions int) {
	kitchenTable := surfaceSpec{"kitchen", "kitchen_table", 1.6, 0.9}
	counter := surfaceSpec{"kitchen", "counter", 2.4, 0.6}
	shelf := surfaceSpec{"living_room", "bookshelf", 1.0, 0.35}
	coffee := surfaceSpec{"living_room", "coffee_table", 1.1, 0.6}
	items := []itemSpec{
		{name: "cup", w: 0.08, h: 0.08, where: kitchenTable, topic: "/interactive_world/placement_sets",
			clusters:  []Cluster{{X: 0.40, Y: 0.25, Theta: 0.0, SigmaX: 0.03, SigmaY: 0.02, SigmaTheta: 0.10, Weight: 0.6}, {X: 1.20, Y: 0.25, Theta: 1.57, SigmaX: 0.03, SigmaY: 0.02, SigmaTheta: 0.10, Weight: 0.4}},
			otherFrms: []string{"plate", "world"}},
		{name: "plate", w: 0.26, h: 0.26, where: kitchenTable, topic: "/interactive_world/placement_sets",
			clusters:  []Cluster{{X: 0.80, Y: 0.30, Theta: 0.0, SigmaX: 0.04, SigmaY: 0.03, SigmaTheta: 0.20, Weight: 1}},
			otherFrms: []string{"world"}},
		{name: "spoon", w: 0.18, h: 0.03, where: counter, topic: "/interactive_world/placement_sets",
			clusters:  []Cluster{{X: 0.60, Y: 0.20, Theta: 0.78, SigmaX: 0.05, SigmaY: 0.02, SigmaTheta: 0.15, Weight: 1}},
			otherFrms: []string{"world"}},
		{name: "book", w: 0.15, h: 0.22, where: shelf, topic: "/interactive_world/training_data",
			clusters:  []Cluster{{X: 0.30, Y: 0.15, Theta: 1.57, SigmaX: 0.06, SigmaY: 0.01, SigmaTheta: 0.05, Weight: 1}},
			otherFrms: []string{"world"}},
		{name: "remote", w: 0.05, h: 0.17, where: coffee, topic: "/interactive_world/placement",
			clusters: []Cluster{{X: 0.55, Y: 0.30, Theta: -0.5, SigmaX: 0.10, SigmaY: 0.08, SigmaTheta: 0.40, Weight: 1}}},
	}
	// Each session places every item 1-3 times; frames other than the true
	// one are offset by where that session's reference object stood.
	type setKey struct{ item, frame string }
	sets := map[setKey][]*value.Struct{}
	counts := map[setKey]int{}
	t := StartNs + 1e9
	for s := 0; s < sessions; s++ {
		offsets := map[string][2]float64{}
		for _, it := range items {
			for _, fr := range it.otherFrms {
				if _, ok := offsets[fr]; !ok {
					offsets[fr] = [2]float64{0.2 + b.rng.Float64()*0.6, 0.1 + b.rng.Float64()*0.4}
				}
			}
		}
		for _, it := range items {
			reps := 1 + b.rng.IntN(3)
			for r := 0; r < reps; r++ {
				d := b.draw(it.clusters)
				t += int64(200e6 + b.rng.IntN(800e6))
				frames := append([]string{it.where.surface}, it.otherFrms...)
				for _, fr := range frames {
					x, y := d.X, d.Y
					if fr != it.where.surface {
						off := offsets[fr]
						x, y = x-off[0], y-off[1]
					}
					p := b.placement(it, fr, x, y, 0.74, d.Theta)
					k := setKey{it.name, fr}
					counts[k]++
					if it.topic == "/interactive_world/placement" {
						b.emit(false, it.topic, t, p)
						continue
					}
					sets[k] = append(sets[k], p)
				}
			}
			// PlacementSets are published at the end of each session.
			if it.topic == "/interactive_world/placement_sets" {
				for _, fr := range append([]string{it.where.surface}, it.otherFrms...) {
					k := setKey{it.name, fr}
					if len(sets[k]) == 0 {
						continue
					}
					t += 5e6
					b.emit(false, it.topic, t, b.placementSet(it, fr, sets[k]))
					sets[k] = nil
				}
			}
		}
		t += 2e9
	}
	// The training data of the shelf task arrives once, at the end.
	var data []*value.Struct
	for _, it := range items {
		if it.topic != "/interactive_world/training_data" {
			continue
		}
		for _, fr := range append([]string{it.where.surface}, it.otherFrms...) {
			data = append(data, b.placementSet(it, fr, sets[setKey{it.name, fr}]))
		}
	}
	td := b.newValue("interactive_world_msgs/TaskTrainingData")
	b.set(td, "data", data)
	b.emit(false, "/interactive_world/training_data", t, td)

	// The configuration of the study and the models the lab's learner had
	// recorded (the true cluster means of each group's main cluster).
	conf := b.newValue("interactive_world_msgs/Configuration")
	b.set(conf, "task", "set the table for breakfast")
	var its []*value.Struct
	for _, it := range items {
		its = append(its, b.item("interactive_world_msgs/Item", it))
	}
	b.set(conf, "items", its)
	b.set(conf, "rooms", []*value.Struct{b.room(kitchenTable), b.room(shelf)})
	b.emit(false, "/interactive_world/configuration", StartNs, conf)

	var models []*value.Struct
	for _, it := range items {
		c := it.clusters[0]
		m := b.newValue("interactive_world_msgs/Model")
		b.set(m, "placement", b.placement(it, it.where.surface, c.X, c.Y, 0, c.Theta))
		b.set(m, "decision_value", 0.05)
		b.set(m, "sigma_x", c.SigmaX)
		b.set(m, "sigma_y", c.SigmaY)
		b.set(m, "sigma_z", 0.0)
		b.set(m, "sigma_theta", c.SigmaTheta)
		models = append(models, m)
	}
	tm := b.newValue("interactive_world_msgs/TaskModels")
	b.set(tm, "models", models)
	b.emit(false, "/interactive_world/models", t+1e9, tm)

	for _, it := range items {
		for i, fr := range append([]string{it.where.surface}, it.otherFrms...) {
			g := PlacementGroup{Item: it.name, Room: it.where.room, Surface: it.where.surface, Frame: fr,
				Topic: it.topic, True: i == 0, N: counts[setKey{it.name, fr}]}
			if i == 0 {
				g.Clusters = it.clusters
			}
			b.study.Truth.Placements = append(b.study.Truth.Placements, g)
		}
	}
}

func (b *builder) placementSet(it itemSpec, frame string, ps []*value.Struct) *value.Struct {
	v := b.newValue("interactive_world_msgs/PlacementSet")
	b.set(v, "item", b.item("interactive_world_msgs/Item", it))
	b.set(v, "room", b.room(it.where))
	b.set(v, "surface", b.surface(it.where))
	b.set(v, "reference_frame_id", frame)
	b.set(v, "placements", ps)
	return v
}

// ---- grasps -----------------------------------------------------------

func (b *builder) header(v *value.Struct, path string, seq uint32, t int64, frame string) {
	b.set(v, path+".seq", seq)
	b.set(v, path+".stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
	b.set(v, path+".frame_id", frame)
}

func (b *builder) pointCloud(v *value.Struct, path string, n int, t int64) {
	if path != "" {
		path += "."
	}
	b.header(v, path+"header", 0, t, "base_link")
	b.set(v, path+"height", 1)
	b.set(v, path+"width", n)
	var fields []*value.Struct
	for i, name := range []string{"x", "y", "z"} {
		f := b.newValue("sensor_msgs/PointField")
		b.set(f, "name", name)
		b.set(f, "offset", 4*i)
		b.set(f, "datatype", 7) // FLOAT32
		b.set(f, "count", 1)
		fields = append(fields, f)
	}
	b.set(v, path+"fields", fields)
	b.set(v, path+"point_step", 12)
	b.set(v, path+"row_step", 12*n)
	data := make([]byte, 12*n)
	for i := range data {
		data[i] = byte(b.rng.Uint32())
	}
	b.set(v, path+"data", data)
	b.set(v, path+"is_dense", true)
}

func (b *builder) grasp(t int64, successes, attempts uint32) *value.Struct {
	g := b.newValue("rail_manipulation_msgs/Grasp")
	b.header(g, "grasp_pose.header", 0, t, "base_link")
	b.set(g, "grasp_pose.pose.position.x", 0.5+b.rng.Float64()*0.1)
	b.set(g, "grasp_pose.pose.position.y", -0.1+b.rng.Float64()*0.2)
	b.set(g, "grasp_pose.pose.position.z", 0.8)
	b.set(g, "grasp_pose.pose.orientation.w", 1.0)
	b.set(g, "eef_frame_id", "jaco_link_eef")
	b.set(g, "successes", successes)
	b.set(g, "attempts", attempts)
	return g
}

func (b *builder) grasps() {
	objects := []struct {
		name string
		ps   []float64
	}{
		{"cup", []float64{0.9, 0.7, 0.4, 0.15, -1}},
		{"bowl", []float64{0.8, 0.5, 0.2, -1}},
		{"spoon", []float64{0.6, 0.3, 0.05}},
	}
	t := StartNs + 3e9
	gid := uint32(1)
	for mi, obj := range objects {
		model := b.newValue("rail_pick_and_place_msgs/GraspModel")
		b.set(model, "id", mi+1)
		b.set(model, "object_name", obj.name)
		var gs []*value.Struct
		for _, p := range obj.ps {
			gt := GraspTruth{ModelID: uint32(mi + 1), Object: obj.name, GraspID: gid, P: p}
			if p < 0 {
				gt.Untried = true
				gt.P = 0
			} else {
				gt.Attempts = uint32(10 + b.rng.IntN(30))
				for a := uint32(0); a < gt.Attempts; a++ {
					if b.rng.Float64() < p {
						gt.Successes++
					}
				}
			}
			w := b.newValue("rail_pick_and_place_msgs/GraspWithSuccessRate")
			b.set(w, "id", gid)
			b.set(w, "grasp", b.grasp(t, gt.Successes, gt.Attempts))
			b.set(w, "created", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
			gs = append(gs, w)
			b.study.Truth.Grasps = append(b.study.Truth.Grasps, gt)
			gid++
		}
		b.set(model, "grasps", gs)
		b.pointCloud(model, "point_cloud", 64, t)
		b.set(model, "created", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
		b.emit(false, "/rail_pick_and_place/grasp_models", t, model)

		demo := b.newValue("rail_pick_and_place_msgs/GraspDemonstration")
		b.set(demo, "id", mi+1)
		b.set(demo, "object_name", obj.name)
		b.header(demo, "grasp_pose.header", uint32(mi), t, "base_link")
		b.set(demo, "grasp_pose.pose.orientation.w", 1.0)
		b.set(demo, "eef_frame_id", "jaco_link_eef")
		b.pointCloud(demo, "point_cloud", 32, t)
		b.set(demo, "image.height", 4)
		b.set(demo, "image.width", 4)
		b.set(demo, "image.encoding", "rgb8")
		b.set(demo, "image.step", 12)
		b.set(demo, "image.data", make([]byte, 48))
		b.set(demo, "created", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
		b.emit(false, "/rail_pick_and_place/grasp_demonstrations", t-5e8, demo)
		t += 1e9
	}

	// GraspAndStore attempts over time: each object's success probability
	// grows as the robot learns (a learning curve).
	t = StartNs + 10e9
	for attempt := 0; attempt < 60; attempt++ {
		obj := objects[attempt%len(objects)].name
		p := 0.3 + 0.6*float64(attempt)/60
		ok := b.rng.Float64() < p
		id := fmt.Sprintf("/grasp_and_store-%d-%d.%03d", attempt+1, t/1e9, (t/1e6)%1000)
		goal := b.newValue("rail_pick_and_place_msgs/GraspAndStoreActionGoal")
		b.header(goal, "header", uint32(attempt), t, "")
		b.set(goal, "goal_id.stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
		b.set(goal, "goal_id.id", id)
		b.set(goal, "goal.lift", true)
		b.set(goal, "goal.verify", attempt%2 == 0)
		b.set(goal, "goal.object_name", obj)
		b.emit(false, "/rail_pick_and_place/grasp_and_store/goal", t, goal)

		te := t + int64(4e9+b.rng.IntN(3e9))
		res := b.newValue("rail_pick_and_place_msgs/GraspAndStoreActionResult")
		b.header(res, "header", uint32(attempt), te, "")
		b.set(res, "status.goal_id.stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
		b.set(res, "status.goal_id.id", id)
		status, text := uint8(3), "grasp stored"
		if !ok {
			status, text = 4, "grasp failed: object slipped"
		}
		b.set(res, "status.status", status)
		b.set(res, "status.text", text)
		if ok {
			b.set(res, "result.id", attempt+100)
		}
		b.set(res, "result.success", ok)
		b.emit(false, "/rail_pick_and_place/grasp_and_store/result", te, res)

		st := b.newValue("actionlib_msgs/GoalStatusArray")
		b.header(st, "header", uint32(attempt), te, "")
		gs := b.newValue("actionlib_msgs/GoalStatus")
		b.set(gs, "goal_id.id", id)
		b.set(gs, "status", status)
		b.set(st, "status_list", []*value.Struct{gs})
		b.emit(false, "/rail_pick_and_place/grasp_and_store/status", te+1e6, st)

		fb := b.newValue("rail_pick_and_place_msgs/GetYesNoFeedbackActionResult")
		b.header(fb, "header", uint32(attempt), te+5e8, "")
		b.set(fb, "status.goal_id.id", fmt.Sprintf("/yes_no-%d", attempt+1))
		b.set(fb, "status.status", 3)
		b.set(fb, "result.yes", ok)
		b.emit(false, "/rail_pick_and_place/get_yes_no_feedback/result", te+5e8, fb)
		t = te + int64(2e9+b.rng.IntN(2e9))
	}
}

// ---- facts --------------------------------------------------------------

func (b *builder) facts() {
	truths := []FactTruth{
		{Subject: "PR2_ROBOT", Property: "IsLookingAt", Target: "CUP", StartNs: 2e9, EndNs: 14e9, Confidence: 0.9},
		{Subject: "HERAKLES_HUMAN1", Property: "IsNextTo", Target: "KITCHEN_TABLE", StartNs: 0, EndNs: 30e9, Confidence: 0.75},
		{Subject: "HERAKLES_HUMAN1", Property: "IsLookingAt", Target: "PR2_ROBOT", StartNs: 5e9, EndNs: 9e9, Confidence: 0.6},
		{Subject: "HERAKLES_HUMAN1", Property: "IsLookingAt", Target: "PR2_ROBOT", StartNs: 18e9, EndNs: 25e9, Confidence: 0.8},
		{Subject: "CUP", Property: "IsOn", Target: "KITCHEN_TABLE", StartNs: 0, EndNs: 20e9, Confidence: 1},
		{Subject: "CUP", Property: "IsInHand", Target: "PR2_ROBOT", StartNs: 20e9, EndNs: 30e9, Confidence: 0.95},
	}
	base := StartNs + 1e9
	const period = 500e6
	for t := int64(0); t < 30e9; t += period {
		var facts []*value.Struct
		for _, f := range truths {
			if t < f.StartNs || t >= f.EndNs {
				continue
			}
			v := b.newValue("toaster_msgs/Fact")
			b.set(v, "property", f.Property)
			b.set(v, "propertyType", "state")
			b.set(v, "subjectId", f.Subject)
			b.set(v, "targetId", f.Target)
			b.set(v, "valueType", false)
			b.set(v, "factObservability", 1.0)
			b.set(v, "doubleValue", 0.0)
			b.set(v, "stringValue", "true")
			b.set(v, "confidence", f.Confidence)
			b.set(v, "time", uint64(base+t))
			b.set(v, "timeStart", uint64(base+f.StartNs))
			facts = append(facts, v)
		}
		fl := b.newValue("toaster_msgs/FactList")
		b.set(fl, "factList", facts)
		b.emit(false, "/agent_monitor/factList", base+t, fl)
	}
	for _, f := range truths {
		f.StartNs += base
		f.EndNs += base
		b.study.Truth.Facts = append(b.study.Truth.Facts, f)
	}
}

// ---- LaMa map -----------------------------------------------------------

func (b *builder) lamaMap() {
	t := StartNs + 2e9
	vertices := []int32{1, 2, 3, 4, 5, 6}
	edges := [][2]int32{{1, 2}, {2, 3}, {3, 1}, {4, 5}, {5, 99}}
	id := int32(1)
	for _, vtx := range vertices {
		o := b.newValue("lama_msgs/LamaObject")
		b.set(o, "id", vtx)
		b.set(o, "id_in_world", vtx)
		b.set(o, "name", fmt.Sprintf("place_%d", vtx))
		b.set(o, "emitter_id", 1)
		b.set(o, "emitter_name", "explorer")
		b.set(o, "type", 1)
		b.emit(false, "/lama/objects", t, o)
		t += 1e8
		id = max(id, vtx)
	}
	for _, e := range edges {
		id++
		o := b.newValue("lama_msgs/LamaObject")
		b.set(o, "id", id)
		b.set(o, "name", fmt.Sprintf("edge_%d_%d", e[0], e[1]))
		b.set(o, "emitter_id", 1)
		b.set(o, "emitter_name", "explorer")
		b.set(o, "type", 2)
		b.set(o, "references", []int32{e[0], e[1]})
		b.emit(false, "/lama/objects", t, o)
		t += 1e8
	}
	b.study.Truth.Vertices, b.study.Truth.Edges, b.study.Truth.Dangling = len(vertices), len(edges), 1

	for i := 0; i < 3; i++ {
		c := b.newValue("lama_msgs/Crossing")
		b.set(c, "center.x", float64(i))
		b.set(c, "radius", 0.5)
		b.set(c, "max_range", 5.0)
		var fs []*value.Struct
		for k := 0; k <= i; k++ {
			f := b.newValue("lama_msgs/Frontier")
			a := float64(k) * math.Pi / 2
			b.set(f, "p1.x", math.Cos(a))
			b.set(f, "p1.y", math.Sin(a))
			b.set(f, "p2.x", math.Cos(a)+0.3)
			b.set(f, "p2.y", math.Sin(a)+0.3)
			b.set(f, "width", 0.9)
			b.set(f, "angle", a)
			fs = append(fs, f)
		}
		b.set(c, "frontiers", fs)
		b.emit(false, "/lama/crossings", t, c)

		pp := b.newValue("lama_msgs/PlaceProfile")
		b.header(pp, "header", uint32(i), t, "map")
		side := float64(i + 1) // squares of area 1, 4, 9
		var pts []*value.Struct
		for _, xy := range [][2]float64{{0, 0}, {side, 0}, {side, side}, {0, side}} {
			p := b.newValue("geometry_msgs/Point32")
			b.set(p, "x", xy[0])
			b.set(p, "y", xy[1])
			pts = append(pts, p)
		}
		b.set(pp, "polygon.points", pts)
		b.emit(false, "/lama/place_profiles", t, pp)
		t += 1e9
	}
}

// ---- remap queries (ROS2) -------------------------------------------------

func (b *builder) queries() {
	evType, err := msgdef.ServiceEvent("remap_msgs/srv/Query_Event", mustText(b.reg, "remap_msgs/srv/Query"), b.reg)
	if err != nil {
		b.fail(err)
		return
	}
	t := StartNs + 1e9
	var total float64
	for i := 0; i < 20; i++ {
		gid := make([]byte, 16)
		gid[0] = byte(1 + i%3)
		patterns := []string{"?o rdf:type Cup", "?o isOn ?s", "?s rdf:type Table"}[i%3 : i%3+1]
		ok := i%5 != 4
		lat := int64(20e6 + b.rng.IntN(80e6))
		for _, kind := range []uint8{0, 1, 2, 3} {
			ev := value.New(evType)
			at := t
			if kind >= 2 {
				at = t + lat
			}
			b.set(ev, "info.event_type", kind)
			b.set(ev, "info.stamp.sec", at/1e9)
			b.set(ev, "info.stamp.nanosec", at%1e9)
			b.set(ev, "info.client_gid", gid)
			b.set(ev, "info.sequence_number", int64(i+1))
			if kind < 2 {
				req := value.New(evType.Field("request").Msg)
				b.set(req, "patterns", patterns)
				b.set(req, "vars", []string{"?o"})
				b.set(req, "models", []string{})
				b.set(req, "dynamic", false)
				b.set(req, "duration.sec", 0)
				b.set(req, "frequency.sec", 1)
				b.set(req, "publish_tf", i%2 == 0)
				b.set(req, "id", fmt.Sprintf("query_%d", i%4))
				b.set(ev, "request", []*value.Struct{req})
			} else {
				resp := value.New(evType.Field("response").Msg)
				b.set(resp, "success", ok)
				if ok {
					b.set(resp, "json", `[{"?o": "cup_1"}]`)
				} else {
					b.set(resp, "error_msg", "unknown predicate in pattern")
				}
				b.set(ev, "response", []*value.Struct{resp})
			}
			if kind == 1 || kind == 2 {
				continue // a bag recorded on the client side sees REQUEST_SENT and RESPONSE_RECEIVED
			}
			b.emit(true, "/remap/query/_service_event", at, ev)
		}
		b.study.Truth.Queries.Requests++
		if ok {
			b.study.Truth.Queries.Successes++
		}
		total += float64(lat)
		t += 1e9
	}
	b.study.Truth.Queries.MeanLatencyNs = total / float64(b.study.Truth.Queries.Requests)
}

func mustText(reg *msgdef.Registry, name string) string {
	s, _ := reg.Text(name)
	return s
}

// ---- one of every type ----------------------------------------------------

// NativePackages are the message families baglab knows natively.
var NativePackages = []string{"interactive_world_msgs", "rail_pick_and_place_msgs", "rail_manipulation_msgs", "toaster_msgs", "lama_msgs", "remap_msgs"}

func (b *builder) everyType() {
	t := StartNs + 500e6
	for _, name := range b.reg.Names() {
		pkg, _, _ := strings.Cut(name, "/")
		native := false
		for _, p := range NativePackages {
			native = native || p == pkg
		}
		if !native {
			continue
		}
		typ, err := b.reg.Lookup(name)
		if err != nil {
			b.fail(err)
			return
		}
		v := Random(typ, b.rng, StartNs)
		b.emit(typ.Dialect == msgdef.ROS2, "/all_types/"+strings.ReplaceAll(typ.Name, "/", "/"), t, v)
		t += 1e6
	}
}
