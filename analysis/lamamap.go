package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/value"
)

// MapKind is the registry row of the map analysis.
var MapKind = Kind{
	Name: "map",
	New:  func(Options) Analyzer { return NewMap() },
	Summary: "lama_msgs topological maps: vertices, edges, dangling edges, " +
		"components, degrees; crossings; place profile areas.",
	Keys: baseline.Keys{
		{Path: "map.degree_histogram", Table: "degree_histogram", Noun: "degree", Key: []string{"degree"}},
		{Path: "map.vertex_list", Table: "map_nodes", Noun: "map vertex", Nouns: "map vertices", PerObservation: true},
		{Path: "map.edge_list", Table: "map_edges", Noun: "map edge", PerObservation: true},
		{Path: "map.crossings", Table: "crossings", Noun: "crossing", Key: []string{"topic", "log_time_ns"}},
		{Path: "map.place_profiles", Table: "place_profiles", Noun: "place profile", Key: []string{"topic", "log_time_ns"}},
	},
}

const (
	typeLamaObject   = "lama_msgs/LamaObject"
	typeCrossing     = "lama_msgs/Crossing"
	typePlaceProfile = "lama_msgs/PlaceProfile"
	lamaVertex       = 1 // LamaObject.VERTEX
	lamaEdge         = 2 // LamaObject.EDGE
)

// lamaObject is the latest state of one LamaObject id.
type lamaObject struct {
	ID, IDInWorld, Type int64
	Name, Emitter       string
	Refs                [2]int64
	LogTime             int64
	Topic               string
}

func lamaNewer(a, b lamaObject) bool {
	return cmp.Or(cmp.Compare(a.LogTime, b.LogTime), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Type, b.Type),
		cmp.Compare(a.Refs[0], b.Refs[0]), cmp.Compare(a.Refs[1], b.Refs[1]), cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.IDInWorld, b.IDInWorld), cmp.Compare(a.Emitter, b.Emitter)) > 0
}

// CrossingStat describes one lama_msgs/Crossing.
type CrossingStat struct {
	Topic     string `json:"topic"`
	LogTimeNs int64  `json:"log_time_ns"`
	Seq       int    `json:"-"`
	CenterX   Num    `json:"center_x"`
	CenterY   Num    `json:"center_y"`
	Radius    Num    `json:"radius"`
	MaxRange  Num    `json:"max_range"`
	Frontiers int    `json:"frontiers"`
	// MeanFrontierWidth is NaN without frontiers.
	MeanFrontierWidth Num `json:"mean_frontier_width"`
}

// PlaceProfileStat describes one lama_msgs/PlaceProfile polygon.
type PlaceProfileStat struct {
	Topic     string `json:"topic"`
	LogTimeNs int64  `json:"log_time_ns"`
	Seq       int    `json:"-"`
	FrameID   string `json:"frame_id"`
	Points    int    `json:"points"`
	// Area is the shoelace area (absolute) of the polygon in its xy plane,
	// Perimeter its closed length, OpenPerimeter the length without the
	// exclude_segments; Excluded counts the segments excluded (an index
	// given twice once, one naming no segment not at all).
	Area          Num `json:"area"`
	Perimeter     Num `json:"perimeter"`
	OpenPerimeter Num `json:"open_perimeter"`
	Excluded      int `json:"excluded_segments"`
}

// Map accumulates lama_msgs map objects and descriptors.
type Map struct {
	objects   map[int64]lamaObject
	crossings []CrossingStat
	profiles  []PlaceProfileStat
}

// NewMap returns an empty map accumulator.
func NewMap() *Map { return &Map{objects: map[int64]lamaObject{}} }

// Kind implements Analyzer.
func (a *Map) Kind() string { return "map" }

// Wants implements Analyzer.
func (a *Map) Wants(typ string) bool { return packageOf(canonicalType(typ)) == "lama_msgs" }

// Add implements Analyzer.
func (a *Map) Add(m *Message) error {
	if m.Value == nil {
		return nil
	}
	seq := 0
	walk(m.Value, func(n *node) bool {
		switch n.Type {
		case typeLamaObject:
			o := lamaObject{LogTime: m.LogTime, Topic: m.Topic, Name: n.S.LookupString("name"), Emitter: n.S.LookupString("emitter_name")}
			o.ID, _ = n.S.LookupInt("id")
			o.IDInWorld, _ = n.S.LookupInt("id_in_world")
			o.Type, _ = n.S.LookupInt("type")
			for i, r := range n.S.LookupList("references") {
				if i < 2 {
					o.Refs[i], _ = toInt(r)
				}
			}
			if cur, ok := a.objects[o.ID]; !ok || lamaNewer(o, cur) {
				a.objects[o.ID] = o
			}
			return false
		case typeCrossing:
			a.crossings = append(a.crossings, crossingStat(n.S, m, seq))
			seq++
			return false
		case typePlaceProfile:
			a.profiles = append(a.profiles, profileStat(n.S, m, seq))
			seq++
			return false
		}
		return true
	})
	return nil
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		return int64(x), true
	}
	return 0, false
}

func crossingStat(s *value.Struct, m *Message, seq int) CrossingStat {
	c := CrossingStat{Topic: m.Topic, LogTimeNs: m.LogTime, Seq: seq}
	x, _ := s.LookupFloat("center.x")
	y, _ := s.LookupFloat("center.y")
	r, _ := s.LookupFloat("radius")
	mr, _ := s.LookupFloat("max_range")
	c.CenterX, c.CenterY, c.Radius, c.MaxRange = Num(x), Num(y), Num(r), Num(mr)
	fr := s.LookupList("frontiers")
	c.Frontiers = len(fr)
	sum := 0.0
	for _, f := range fr {
		if fs, ok := f.(*value.Struct); ok {
			w, _ := fs.LookupFloat("width")
			sum += w
		}
	}
	c.MeanFrontierWidth = Num(math.NaN())
	if len(fr) > 0 {
		c.MeanFrontierWidth = Num(sum / float64(len(fr)))
	}
	return c
}

func profileStat(s *value.Struct, m *Message, seq int) PlaceProfileStat {
	p := PlaceProfileStat{Topic: m.Topic, LogTimeNs: m.LogTime, Seq: seq, FrameID: s.LookupString("header.frame_id")}
	var xs, ys []float64
	for _, e := range s.LookupList("polygon.points") {
		if ps, ok := e.(*value.Struct); ok {
			x, _ := ps.LookupFloat("x")
			y, _ := ps.LookupFloat("y")
			xs = append(xs, x)
			ys = append(ys, y)
		}
	}
	n := len(xs)
	// segment i runs from point i to i+1, the last back to point 0; an
	// index that names no segment excludes nothing
	excluded := map[int64]bool{}
	for _, e := range s.LookupList("exclude_segments") {
		if i, ok := toInt(e); ok && i >= 0 && i < int64(n) {
			excluded[i] = true
		}
	}
	p.Points, p.Excluded = n, len(excluded)
	var area, per, open float64
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		area += xs[i]*ys[j] - xs[j]*ys[i]
		l := math.Hypot(xs[j]-xs[i], ys[j]-ys[i])
		per += l
		if !excluded[int64(i)] {
			open += l
		}
	}
	p.Area, p.Perimeter, p.OpenPerimeter = Num(math.Abs(area)/2), Num(per), Num(open)
	return p
}

// Merge implements Analyzer.
func (a *Map) Merge(other Analyzer) error {
	o, ok := other.(*Map)
	if !ok {
		return MergeKindError(a.Kind(), other)
	}
	for id, ob := range o.objects {
		if cur, ok := a.objects[id]; !ok || lamaNewer(ob, cur) {
			a.objects[id] = ob
		}
	}
	a.crossings = append(a.crossings, o.crossings...)
	a.profiles = append(a.profiles, o.profiles...)
	return nil
}

// MapVertex is one vertex with its degree and component.
type MapVertex struct {
	ID        int64  `json:"id"`
	IDInWorld int64  `json:"id_in_world"`
	Name      string `json:"name"`
	Degree    int    `json:"degree"`
	Component int    `json:"component"`
}

// MapEdge is one edge; Dangling when a reference names no known vertex.
type MapEdge struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	From     int64  `json:"from"`
	To       int64  `json:"to"`
	Dangling bool   `json:"dangling"`
}

// DegreeCount is one bar of the degree histogram.
type DegreeCount struct {
	Degree   int `json:"degree"`
	Vertices int `json:"vertices"`
}

// MapResult is the result of the map analysis.
type MapResult struct {
	KindName      string             `json:"kind"`
	Vertices      int                `json:"vertices"`
	Edges         int                `json:"edges"`
	OtherObjects  int                `json:"other_objects"`
	Components    int                `json:"components"`
	ComponentSize []int              `json:"component_sizes"`
	Dangling      int                `json:"dangling_edges"`
	Degrees       []DegreeCount      `json:"degree_histogram"`
	VertexList    []MapVertex        `json:"vertex_list"`
	EdgeList      []MapEdge          `json:"edge_list"`
	Crossings     []CrossingStat     `json:"crossings"`
	PlaceProfiles []PlaceProfileStat `json:"place_profiles"`
}

// Kind implements Result.
func (r *MapResult) Kind() string { return "map" }

// Result implements Analyzer. Degrees count the non-dangling edges at a
// vertex (a loop counts twice); components are those of the undirected
// graph of vertices and non-dangling edges, numbered by their smallest
// vertex id.
func (a *Map) Result() (Result, error) {
	res := &MapResult{KindName: "map", ComponentSize: []int{}, Degrees: []DegreeCount{}, VertexList: []MapVertex{},
		EdgeList: []MapEdge{}, Crossings: []CrossingStat{}, PlaceProfiles: []PlaceProfileStat{}}
	ids := make([]int64, 0, len(a.objects))
	for id := range a.objects {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	index := map[int64]int{}
	for _, id := range ids {
		if o := a.objects[id]; o.Type == lamaVertex {
			index[id] = len(res.VertexList)
			res.VertexList = append(res.VertexList, MapVertex{ID: id, IDInWorld: o.IDInWorld, Name: o.Name})
		}
	}
	parent := make([]int, len(res.VertexList))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, id := range ids {
		o := a.objects[id]
		switch o.Type {
		case lamaVertex:
		case lamaEdge:
			e := MapEdge{ID: id, Name: o.Name, From: o.Refs[0], To: o.Refs[1]}
			i, ok1 := index[e.From]
			j, ok2 := index[e.To]
			if !ok1 || !ok2 {
				e.Dangling = true
				res.Dangling++
			} else {
				res.VertexList[i].Degree++
				res.VertexList[j].Degree++
				if ri, rj := find(i), find(j); ri != rj {
					if ri < rj {
						parent[rj] = ri
					} else {
						parent[ri] = rj
					}
				}
			}
			res.EdgeList = append(res.EdgeList, e)
		default:
			res.OtherObjects++
		}
	}
	res.Vertices, res.Edges = len(res.VertexList), len(res.EdgeList)
	comp := map[int]int{}
	hist := map[int]int{}
	for i := range res.VertexList {
		r := find(i)
		c, ok := comp[r]
		if !ok {
			c = len(comp)
			comp[r] = c
			res.ComponentSize = append(res.ComponentSize, 0)
		}
		res.VertexList[i].Component = c
		res.ComponentSize[c]++
		hist[res.VertexList[i].Degree]++
	}
	res.Components = len(comp)
	for d, n := range hist {
		res.Degrees = append(res.Degrees, DegreeCount{Degree: d, Vertices: n})
	}
	slices.SortFunc(res.Degrees, func(a, b DegreeCount) int { return cmp.Compare(a.Degree, b.Degree) })
	res.Crossings = append(res.Crossings, a.crossings...)
	slices.SortFunc(res.Crossings, compareCrossings)
	res.PlaceProfiles = append(res.PlaceProfiles, a.profiles...)
	slices.SortFunc(res.PlaceProfiles, compareProfiles)
	return res, nil
}

// compareCrossings orders crossings by time, topic and place in the
// message, then by every value, so that only equal ones tie (the same
// message in two files).
func compareCrossings(a, b CrossingStat) int {
	return cmp.Or(cmp.Compare(a.LogTimeNs, b.LogTimeNs), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Seq, b.Seq),
		compareFloats(float64(a.CenterX), float64(b.CenterX)), compareFloats(float64(a.CenterY), float64(b.CenterY)),
		compareFloats(float64(a.Radius), float64(b.Radius)), compareFloats(float64(a.MaxRange), float64(b.MaxRange)),
		cmp.Compare(a.Frontiers, b.Frontiers), compareFloats(float64(a.MeanFrontierWidth), float64(b.MeanFrontierWidth)))
}

// compareProfiles orders place profiles as compareCrossings orders
// crossings.
func compareProfiles(a, b PlaceProfileStat) int {
	return cmp.Or(cmp.Compare(a.LogTimeNs, b.LogTimeNs), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Seq, b.Seq),
		cmp.Compare(a.FrameID, b.FrameID), cmp.Compare(a.Points, b.Points), compareFloats(float64(a.Area), float64(b.Area)),
		compareFloats(float64(a.Perimeter), float64(b.Perimeter)),
		compareFloats(float64(a.OpenPerimeter), float64(b.OpenPerimeter)), cmp.Compare(a.Excluded, b.Excluded))
}

// Tables implements Result.
func (r *MapResult) Tables() []*Table {
	summary := NewTable("map_summary", false, "vertices:i", "edges:i", "other_objects:i", "components:i", "dangling_edges:i")
	summary.Add(r.Vertices, r.Edges, r.OtherObjects, r.Components, r.Dangling)
	deg := NewTable("degree_histogram", false, "degree:i", "vertices:i")
	for _, d := range r.Degrees {
		deg.Add(d.Degree, d.Vertices)
	}
	nodes := NewTable("map_nodes", true, "id:i", "id_in_world:i", "name", "degree:i", "component:i")
	for _, v := range r.VertexList {
		nodes.Add(v.ID, v.IDInWorld, v.Name, v.Degree, v.Component)
	}
	edges := NewTable("map_edges", true, "id:i", "name", "from:i", "to:i", "dangling:b")
	for _, e := range r.EdgeList {
		edges.Add(e.ID, e.Name, e.From, e.To, e.Dangling)
	}
	cr := NewTable("crossings", false, "topic", "log_time_ns:i", "center_x:f", "center_y:f", "radius:f", "max_range:f",
		"frontiers:i", "mean_frontier_width:f").
		ShowByDefault("topic", "center_x", "center_y", "radius", "max_range", "frontiers", "mean_frontier_width")
	for _, c := range r.Crossings {
		cr.Add(c.Topic, c.LogTimeNs, c.CenterX, c.CenterY, c.Radius, c.MaxRange, c.Frontiers, c.MeanFrontierWidth)
	}
	pp := NewTable("place_profiles", false, "topic", "log_time_ns:i", "frame_id", "points:i", "area:f", "perimeter:f",
		"open_perimeter:f", "excluded_segments:i").
		ShowByDefault("topic", "frame_id", "points", "area", "perimeter", "open_perimeter", "excluded_segments")
	for _, p := range r.PlaceProfiles {
		pp.Add(p.Topic, p.LogTimeNs, p.FrameID, p.Points, p.Area, p.Perimeter, p.OpenPerimeter, p.Excluded)
	}
	return []*Table{summary, deg, nodes, edges, cr, pp}
}
