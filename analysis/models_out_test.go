package analysis

import (
	"encoding/json"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
)

func TestTaskModels(t *testing.T) {
	r := placementsResult(t, LearnOptions{}, placementStudy(t, 3))
	typ := lookupType(t, "interactive_world_msgs/TaskModels")
	tm, err := r.TaskModels(typ)
	if err != nil {
		t.Fatal(err)
	}
	// Through the wire format and back: what a robot would load.
	data, err := ros1.Encode(tm)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ros1.Compile(typ)
	if err != nil {
		t.Fatal(err)
	}
	back, err := dec.DecodeValue(data)
	if err != nil {
		t.Fatal(err)
	}
	var want []LearnedModel
	for _, m := range r.Models {
		if m.HasPlacement {
			want = append(want, m)
		}
	}
	if len(want) == 0 || len(want) == len(r.Models) {
		t.Fatalf("%d of %d models have a placement; the study should have both kinds", len(want), len(r.Models))
	}
	n, _ := back.Len("models")
	if n != len(want) {
		t.Fatalf("%d models written, want %d", n, len(want))
	}
	for i, m := range want {
		s, err := back.Struct("models[" + itoa(int64(i)) + "]")
		if err != nil {
			t.Fatal(err)
		}
		str := func(p string) string { v, _ := s.Text(p); return v }
		num := func(p string) float64 { v, _ := s.Float(p); return v }
		if str("placement.item.name") != m.Item || str("placement.room.name") != m.Room || str("placement.surface.name") != m.Surface ||
			str("placement.reference_frame_id") != m.ReferenceFrameID {
			t.Errorf("model %d names: %s/%s/%s/%s, want %s", i, str("placement.item.name"), str("placement.room.name"),
				str("placement.surface.name"), str("placement.reference_frame_id"), m.GroupKey)
		}
		for _, c := range []struct {
			path string
			want Num
		}{{"placement.position.x", m.Placement.Position.X}, {"placement.position.y", m.Placement.Position.Y},
			{"placement.position.z", m.Placement.Position.Z}, {"placement.rotation", m.Placement.Rotation},
			{"decision_value", m.DecisionValue}, {"sigma_x", m.SigmaX}, {"sigma_y", m.SigmaY}, {"sigma_z", m.SigmaZ},
			{"sigma_theta", m.SigmaTheta}} {
			if got := num(c.path); got != float64(c.want) {
				t.Errorf("model %d %s = %v, want %v", i, c.path, got, c.want)
			}
		}
		// The item, room and surface are the recorded ones, not just names.
		if num("placement.item.width") != 0.1 || num("placement.room.width") != 5 || num("placement.surface.height") != 0.8 {
			t.Errorf("model %d: item/room/surface not copied from the placements: %v %v %v", i,
				num("placement.item.width"), num("placement.room.width"), num("placement.surface.height"))
		}
	}

	// A result read back from JSON has no placements to copy from: names only.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON PlacementsResult
	if err := json.Unmarshal(b, &fromJSON); err != nil {
		t.Fatal(err)
	}
	tm2, err := fromJSON.TaskModels(typ)
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := tm2.Float("models[0].placement.item.width"); w != 0 {
		t.Errorf("item width %v without placements", w)
	}
	if name, _ := tm2.Text("models[0].placement.item.name"); name != want[0].Item {
		t.Errorf("item name %q, want %q", name, want[0].Item)
	}
	if _, err := fromJSON.TaskModels(lookupType(t, "interactive_world_msgs/Item")); err == nil {
		t.Error("TaskModels into a type without models[] succeeded")
	}
}

// TestCopyByName copies between two layouts of a type: renamed, retyped,
// missing and extra fields, nested arrays.
func TestCopyByName(t *testing.T) {
	src, err := msgdef.ParseBundle("test_msgs/Surface", `string name
float32 width
int8 extra
test_msgs/POI[] pois
================================================================================
MSG: test_msgs/POI
string name
uint16 height
`, msgdef.ROS1, registry)
	if err != nil {
		t.Fatal(err)
	}
	s := mk(t, src, map[string]any{"name": "table", "width": 1.5, "extra": -3})
	poi := mk(t, src.Field("pois").Msg, map[string]any{"name": "center", "height": 7})
	if err := s.Set("pois", []*value.Struct{poi, poi}); err != nil {
		t.Fatal(err)
	}
	dst := value.New(lookupType(t, "interactive_world_msgs/Surface"))
	copyByName(dst, s)
	name, _ := dst.Text("name")
	width, _ := dst.Float("width")
	height, _ := dst.Float("height")
	n, _ := dst.Len("pois")
	pname, _ := dst.Text("pois[1].name")
	pheight, _ := dst.Float("pois[1].height")
	if name != "table" || width != 1.5 || height != 0 || n != 2 || pname != "center" || pheight != 7 {
		t.Errorf("copied: name %q width %v height %v, %d pois, poi %q height %v", name, width, height, n, pname, pheight)
	}
	// nil and mismatched values leave the zero message.
	copyByName(dst, nil)
	copyByName(nil, s)
}
