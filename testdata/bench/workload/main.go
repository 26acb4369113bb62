// Command workload writes the recordings of the speed benchmark
// (testdata/bench/compare.sh) as ROS1 bags: placement sets with fact lists
// (the nested-message workload, and the placement groups the learner is
// timed on), point clouds (the blob workload), or one placement group of 6
// clusters (with its points as "x y theta" lines beside it, NAME.txt, in
// the learner's order, for the Weka peer). The 1M small-message bag is written
// by Debian's rosbag (points.py beside this directory).
//
//	go run ./testdata/bench/workload -kind nested -placements 120000 -o nested.bag
//	go run ./testdata/bench/workload -kind blobs -o blobs.bag
//	go run ./testdata/bench/workload -kind group -placements 1500 -o group.bag
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
)

func main() {
	kind := flag.String("kind", "nested", "nested | blobs | group")
	out := flag.String("o", "", "output path (required)")
	placements := flag.Int("placements", 120000, "nested: placements in 5 groups, 3 per PlacementSet; group: points")
	facts := flag.Int("facts", 4000, "nested: FactList messages")
	clouds := flag.Int("clouds", 200, "blobs: point clouds")
	cloudBytes := flag.Int("cloud-bytes", 300_000, "blobs: bytes of data per cloud")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	g := &gen{reg: msgdef.Default(), rng: rand.New(rand.NewPCG(*seed, 0xbe7c4))}
	var err error
	switch *kind {
	case "nested":
		err = g.nested(*out, *placements, *facts)
	case "blobs":
		err = g.blobs(*out, *clouds, *cloudBytes)
	case "group":
		err = g.group(*out, *placements)
		if err == nil {
			err = g.writePoints(strings.TrimSuffix(*out, ".bag") + ".txt")
		}
	default:
		err = fmt.Errorf("unknown -kind %q", *kind)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		os.Exit(1)
	}
}

type gen struct {
	reg *msgdef.Registry
	rng *rand.Rand
	err error
	w   *bag.Writer
	ids map[string]uint32
	seq uint64
	// points are the placements written, in order, when kept.
	points [][3]float64
	keep   bool
}

// start is 2024-01-01T00:00:00Z.
const start = int64(1704067200) * 1e9

func (g *gen) value(typ string, fields map[string]any) *value.Struct {
	t, err := g.reg.Lookup(typ)
	if err != nil {
		g.fail(err)
		return nil
	}
	v := value.New(t)
	for path, x := range fields {
		if err := v.Set(path, x); err != nil {
			g.fail(fmt.Errorf("%s.%s: %w", typ, path, err))
		}
	}
	return v
}

func (g *gen) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

func (g *gen) create(path string) error {
	w, err := bag.Create(path)
	if err != nil {
		return err
	}
	g.w, g.ids = w, map[string]uint32{}
	return nil
}

func (g *gen) put(topic string, t int64, v *value.Struct) {
	if g.err != nil || v == nil {
		return
	}
	id, ok := g.ids[topic]
	if !ok {
		ch := &record.Channel{Topic: topic, MessageEncoding: "ros1",
			Schema:   &record.Schema{Name: v.Type.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(v.Type)), MD5: msgdef.MD5(v.Type)},
			Metadata: map[string]string{"callerid": "/baglab_bench", "latching": "0"}}
		var err error
		if id, err = g.w.AddChannel(ch); err != nil {
			g.fail(err)
			return
		}
		g.ids[topic] = id
	}
	data, err := ros1.Encode(v)
	if err != nil {
		g.fail(err)
		return
	}
	g.fail(g.w.WriteMessage(id, &record.Message{LogTime: t, PublishTime: t, Sequence: g.seq, Data: data}))
	g.seq++
}

func (g *gen) close() error {
	if g.err != nil {
		_ = g.w.Abort()
		return g.err
	}
	return g.w.Close()
}

// cluster is a Gaussian placement cluster on (x, y, theta).
type cluster struct{ x, y, th, sx, sy, st float64 }

// clusters draws k clusters on a 1.6 m x 0.9 m table.
func (g *gen) clusters(k int) []cluster {
	cs := make([]cluster, k)
	for i := range cs {
		cs[i] = cluster{x: 0.2 + 1.2*g.rng.Float64(), y: 0.1 + 0.7*g.rng.Float64(), th: -3 + 6*g.rng.Float64(),
			sx: 0.01 + 0.05*g.rng.Float64(), sy: 0.01 + 0.04*g.rng.Float64(), st: 0.05 + 0.3*g.rng.Float64()}
	}
	return cs
}

func (g *gen) draw(cs []cluster) (x, y, th float64) {
	c := cs[g.rng.IntN(len(cs))]
	return c.x + c.sx*g.rng.NormFloat64(), c.y + c.sy*g.rng.NormFloat64(), c.th + c.st*g.rng.NormFloat64()
}

// group writes one placement group of n points drawn from 6 clusters.
func (g *gen) group(path string, n int) error {
	g.keep = true
	return g.placementSets(path, n, 0, []string{"cup"}, func(int) int { return 6 })
}

// writePoints writes the kept placements as "x y theta" lines.
func (g *gen) writePoints(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, p := range g.points {
		fmt.Fprintf(w, "%s %s %s\n", strconv.FormatFloat(p[0], 'g', -1, 64), strconv.FormatFloat(p[1], 'g', -1, 64), strconv.FormatFloat(p[2], 'g', -1, 64))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// nested writes n placements of 5 items (groups of 2 to 6 clusters) as
// PlacementSets of 3, interleaved with facts FactLists of 2 to 8 facts.
func (g *gen) nested(path string, n, facts int) error {
	return g.placementSets(path, n, facts, []string{"cup", "plate", "spoon", "book", "remote"}, func(i int) int { return 2 + i })
}

// placementSets writes n placements of the items (item i drawn from
// clusters(i) clusters) as PlacementSets of 3, round robin, and facts
// FactLists spread among them.
func (g *gen) placementSets(path string, n, facts int, items []string, clusters func(int) int) error {
	if err := g.create(path); err != nil {
		return err
	}
	type groupSpec struct {
		item, room, surface *value.Struct
		name                string
		cs                  []cluster
	}
	var groups []groupSpec
	for i, name := range items {
		groups = append(groups, groupSpec{
			name:    name,
			item:    g.value("interactive_world_msgs/Item", map[string]any{"name": name, "width": 0.08, "height": 0.1}),
			room:    g.value("interactive_world_msgs/Room", map[string]any{"name": "kitchen", "width": 6.0, "height": 4.5, "pose.orientation.w": 1.0}),
			surface: g.value("interactive_world_msgs/Surface", map[string]any{"name": "kitchen_table", "width": 1.6, "height": 0.9, "pose.position.z": 0.74, "pose.orientation.w": 1.0}),
			cs:      g.clusters(clusters(i)),
		})
	}
	sets := n / 3
	t := start
	factEvery := max(1, sets/max(1, facts))
	props := []string{"IsLookingAt", "IsNextTo", "IsOn", "IsInHand", "IsReachableBy"}
	agents := []string{"PR2_ROBOT", "HERAKLES_HUMAN1", "CUP", "PLATE", "KITCHEN_TABLE"}
	written := 0
	for s := 0; s < sets; s++ {
		gs := groups[s%len(groups)]
		var ps []*value.Struct
		for range 3 {
			x, y, th := g.draw(gs.cs)
			if g.keep {
				g.points = append(g.points, [3]float64{x, y, th})
			}
			ps = append(ps, g.value("interactive_world_msgs/Placement", map[string]any{
				"item": gs.item, "room": gs.room, "surface": gs.surface, "reference_frame_id": "kitchen_table",
				"position.x": x, "position.y": y, "position.z": 0.74, "rotation": th}))
		}
		t += 5e6
		g.put("/interactive_world/placement_sets", t, g.value("interactive_world_msgs/PlacementSet", map[string]any{
			"item": gs.item, "room": gs.room, "surface": gs.surface, "reference_frame_id": "kitchen_table", "placements": ps}))
		if facts > 0 && s%factEvery == 0 && written < facts {
			written++
			var fl []*value.Struct
			for j := range 2 + g.rng.IntN(7) {
				fl = append(fl, g.value("toaster_msgs/Fact", map[string]any{
					"property": props[(s+j)%len(props)], "propertyType": "state",
					"subjectId": agents[j%len(agents)], "targetId": agents[(j+2)%len(agents)],
					"factObservability": 1.0, "stringValue": "true", "confidence": g.rng.Float64(),
					"time": uint64(t), "timeStart": uint64(t - 1e9)}))
			}
			g.put("/agent_monitor/factList", t+1, g.value("toaster_msgs/FactList", map[string]any{"factList": fl}))
		}
		if g.err != nil {
			break
		}
	}
	return g.close()
}

// blobs writes n sensor_msgs/PointCloud2 of size bytes each at 10 Hz.
func (g *gen) blobs(path string, n, size int) error {
	if err := g.create(path); err != nil {
		return err
	}
	var fields []*value.Struct
	for i, name := range []string{"x", "y", "z"} {
		fields = append(fields, g.value("sensor_msgs/PointField", map[string]any{"name": name, "offset": 4 * i, "datatype": 7, "count": 1}))
	}
	data := make([]byte, size/12*12)
	for i := 0; i < n && g.err == nil; i++ {
		for j := range data {
			data[j] = byte(g.rng.Uint32())
		}
		t := start + int64(i)*100e6
		g.put("/camera/depth/points", t, g.value("sensor_msgs/PointCloud2", map[string]any{
			"header.seq": i, "header.stamp": value.Time{Sec: t / 1e9, Nsec: t % 1e9}, "header.frame_id": "camera_depth_optical_frame",
			"height": 1, "width": len(data) / 12, "fields": fields, "point_step": 12, "row_step": len(data),
			"data": data, "is_dense": true}))
	}
	return g.close()
}
