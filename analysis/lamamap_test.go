package analysis

import (
	"testing"

	"github.com/baglab/baglab/decode/value"
)

func TestMap(t *testing.T) {
	m := NewMap()
	obj := func(id, typ int64, refs ...int32) *Message {
		r := []int32{0, 0}
		copy(r, refs)
		return msgOf("/lama_objects", id, mk(t, "lama_msgs/LamaObject", map[string]any{"id": id, "type": typ, "references": r}))
	}
	// two components {1,2,3} and {4,5}, vertex 6 isolated, edge 13 dangling
	for _, id := range []int64{1, 2, 3, 4, 5, 6} {
		m.Add(obj(id, lamaVertex))
	}
	m.Add(obj(10, lamaEdge, 1, 2))
	m.Add(obj(11, lamaEdge, 2, 3))
	m.Add(obj(12, lamaEdge, 4, 5))
	m.Add(obj(13, lamaEdge, 5, 99))
	square := mk(t, "lama_msgs/PlaceProfile", map[string]any{"polygon.points": []*value.Struct{
		mk(t, "geometry_msgs/Point32", map[string]any{"x": 0, "y": 0}), mk(t, "geometry_msgs/Point32", map[string]any{"x": 2, "y": 0}),
		mk(t, "geometry_msgs/Point32", map[string]any{"x": 2, "y": 2}), mk(t, "geometry_msgs/Point32", map[string]any{"x": 0, "y": 2}),
	}, "exclude_segments": []int32{1}})
	m.Add(msgOf("/place_profile", 5, square))
	cr := mk(t, "lama_msgs/Crossing", map[string]any{"radius": 1.5, "frontiers": []*value.Struct{
		mk(t, "lama_msgs/Frontier", map[string]any{"width": 1.0}), mk(t, "lama_msgs/Frontier", map[string]any{"width": 2.0}),
	}})
	m.Add(msgOf("/crossing", 6, cr))
	r, _ := m.Result()
	res := r.(*MapResult)
	if res.Vertices != 6 || res.Edges != 4 || res.Components != 3 || res.Dangling != 1 {
		t.Fatalf("summary: %+v", res)
	}
	wantSizes := []int{3, 2, 1}
	for i, s := range res.ComponentSize {
		if s != wantSizes[i] {
			t.Errorf("component sizes %v", res.ComponentSize)
		}
	}
	wantHist := map[int]int{0: 1, 1: 4, 2: 1}
	for _, d := range res.Degrees {
		if wantHist[d.Degree] != d.Vertices {
			t.Errorf("degree %d: %d vertices", d.Degree, d.Vertices)
		}
	}
	p := res.PlaceProfiles[0]
	if p.Area != 4 || p.Perimeter != 8 || p.OpenPerimeter != 6 {
		t.Errorf("profile %+v", p)
	}
	if c := res.Crossings[0]; c.Frontiers != 2 || c.MeanFrontierWidth != 1.5 {
		t.Errorf("crossing %+v", c)
	}
}

// TestPlaceProfileExcludedOutOfRange: exclude_segments that name a segment
// twice, or no segment (-1, n), count it once and the others not at all.
// Before, a square with [1, 1, 4, -1] had 3 excluded segments.
func TestPlaceProfileExcludedOutOfRange(t *testing.T) {
	m := NewMap()
	pt := func(x, y float64) *value.Struct {
		return mk(t, "geometry_msgs/Point32", map[string]any{"x": x, "y": y})
	}
	m.Add(msgOf("/place_profile", 5, mk(t, "lama_msgs/PlaceProfile", map[string]any{
		"polygon.points":   []*value.Struct{pt(0, 0), pt(2, 0), pt(2, 2), pt(0, 2)},
		"exclude_segments": []int32{1, 1, 4, -1}})))
	r, _ := m.Result()
	p := r.(*MapResult).PlaceProfiles[0]
	if p.Excluded != 1 || p.Perimeter != 8 || p.OpenPerimeter != 6 {
		t.Errorf("profile %+v, want 1 excluded segment, perimeter 8, open perimeter 6", p)
	}
}
