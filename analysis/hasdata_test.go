package analysis

import "testing"

func TestHasData(t *testing.T) {
	if !HasData(placementsResult(t, LearnOptions{Disable: true}, placementStudy(t, 1))) {
		t.Error("placements: no data")
	}
	m := NewMap()
	obj := mk(t, "lama_msgs/LamaObject", map[string]any{"id": 4, "type": 1})
	if err := m.Add(msgOf("/lama/objects", 1, obj)); err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Result(); !HasData(r) {
		t.Error("map with a vertex: no data")
	}
	if HasData(nil) {
		t.Error("nil result has data")
	}
}
