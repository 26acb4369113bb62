package analysis

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// resultBytes is a result's JSON and every table's rows (the --out and
// text output), to compare two results whole.
func resultBytes(t *testing.T, a Analyzer) []byte {
	t.Helper()
	r, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	b := resultJSON(t, a)
	for _, tb := range r.Tables() {
		b = fmt.Appendf(b, "\n%s %v", tb.Name, tb.Rows)
	}
	return b
}

// TestMergeOrderTies: one observation in two files that agree on all the
// analysis orders them by before (time, topic, place in the message) but
// differ in another value gives one result whichever file is merged
// first. Before, the first merged won the tie (or kept its place in an
// unstable order) for each of these cases.
func TestMergeOrderTies(t *testing.T) {
	grasp := func(eef string) *value.Struct {
		return mk(t, "rail_pick_and_place_msgs/GraspModel", map[string]any{"id": 1, "object_name": "cup",
			"grasps": []*value.Struct{mk(t, "rail_pick_and_place_msgs/GraspWithSuccessRate", map[string]any{
				"id": 7, "grasp.successes": 2, "grasp.attempts": 3, "grasp.eef_frame_id": eef})}})
	}
	result := func(ok bool, status int) *value.Struct {
		return mk(t, "rail_pick_and_place_msgs/GraspAndStoreActionResult",
			map[string]any{"status.goal_id.id": "g1", "status.status": status, "result.success": ok})
	}
	lama := func(world int64) *value.Struct {
		return mk(t, "lama_msgs/LamaObject", map[string]any{"id": 3, "id_in_world": world, "type": lamaVertex})
	}
	crossing := func(radius float64) *value.Struct {
		return mk(t, "lama_msgs/Crossing", map[string]any{"radius": radius})
	}
	profile := func(frame string) *value.Struct {
		return mk(t, "lama_msgs/PlaceProfile", map[string]any{"header.frame_id": frame})
	}
	placement := func(x float64) *value.Struct {
		return mk(t, "interactive_world_msgs/Placement", map[string]any{"item.name": "cup", "surface.name": "table",
			"reference_frame_id": "table", "position.x": x, "position.y": 0.5})
	}
	model := func(decision float64) *value.Struct {
		return mk(t, "interactive_world_msgs/Model", map[string]any{"placement.item.name": "cup",
			"placement.surface.name": "table", "placement.reference_frame_id": "table", "decision_value": decision})
	}
	for _, c := range []struct {
		name  string
		new   func() Analyzer
		topic string
		a, b  *value.Struct
	}{
		{"grasp eef_frame_id", func() Analyzer { return NewGrasps(0) }, "/grasp_models", grasp("left"), grasp("right")},
		{"grasp action result", func() Analyzer { return NewGrasps(0) }, "/grasp_and_store/result", result(true, 3), result(false, 4)},
		{"lama object id_in_world", func() Analyzer { return NewMap() }, "/lama_objects", lama(1), lama(2)},
		{"crossing", func() Analyzer { return NewMap() }, "/crossing", crossing(1), crossing(2)},
		{"place profile", func() Analyzer { return NewMap() }, "/place_profile", profile("a"), profile("b")},
		{"placement -0", func() Analyzer { return NewPlacements(LearnOptions{Disable: true}) }, "/placement", placement(0), placement(math.Copysign(0, -1))},
		{"recorded model", func() Analyzer { return NewPlacements(LearnOptions{Disable: true}) }, "/model", model(1), model(2)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []byte
			for _, flip := range []bool{false, true} {
				a, b := c.new(), c.new()
				for _, x := range []struct {
					an Analyzer
					v  *value.Struct
				}{{a, c.a}, {b, c.b}} {
					if err := x.an.Add(msgOf(c.topic, 5e9, x.v)); err != nil {
						t.Fatal(err)
					}
				}
				if flip {
					a, b = b, a
				}
				if err := a.Merge(b); err != nil {
					t.Fatal(err)
				}
				got := resultBytes(t, a)
				if !flip {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Fatalf("merged the other way round:\n%s\nwant\n%s", got, want)
				}
			}
		})
	}
}

// TestCompareIDsTotal: ids that are the same number in other spellings
// still have an order, so sorting grasps never meets a tie.
func TestCompareIDsTotal(t *testing.T) {
	for _, p := range [][2]string{{"1", "01"}, {"+1", "01"}, {"7", "x"}, {"2", "10"}} {
		if compareIDs(p[0], p[1]) >= 0 || compareIDs(p[1], p[0]) <= 0 {
			t.Errorf("compareIDs(%q, %q) = %d, reversed %d; want <0, >0", p[0], p[1], compareIDs(p[0], p[1]), compareIDs(p[1], p[0]))
		}
	}
}

// TestModelsOutTies: two files whose first placement of a group ties (same
// log time, topic, place in the message and position) but differ in the
// surface recorded with it write the same models (--models-out) whichever
// file is read first, whether one accumulator reads both or each file has
// its own (--jobs), merged either way round, directly or through a
// partial state. Before, the details of the placement read or merged
// first were written.
func TestModelsOutTies(t *testing.T) {
	placement := func(height float64) *value.Struct {
		return mk(t, "interactive_world_msgs/Placement", map[string]any{"item.name": "cup", "surface.name": "table",
			"surface.height": height, "reference_frame_id": "table", "position.x": 0.25, "position.y": 0.5})
	}
	file := func(name string, height float64) []*Message {
		var msgs []*Message
		for i := range 3 { // the first placement ties; the others are the file's own
			m := msgOf("/placement", 5e9+int64(i)*int64(height*1e9), placement(height))
			m.Source = name
			msgs = append(msgs, m)
		}
		return msgs
	}
	a, b := file("a.bag", 0.8), file("b.bag", 0.9)
	add := func(an Analyzer, msgs ...[]*Message) Analyzer {
		for _, ms := range msgs {
			for _, m := range ms {
				if err := an.Add(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		return an
	}
	fresh := func() Analyzer { return NewPlacements(LearnOptions{}) }
	merged := func(x, y []*Message, viaState bool) Analyzer {
		first, second := add(fresh(), x), add(fresh(), y)
		if viaState {
			for i, an := range []*Analyzer{&first, &second} {
				st, err := (*an).(Partial).MarshalState()
				if err != nil {
					t.Fatal(err)
				}
				back := fresh()
				if err := back.(Partial).UnmarshalState(st); err != nil {
					t.Fatalf("state %d: %v", i, err)
				}
				*an = back
			}
		}
		if err := first.Merge(second); err != nil {
			t.Fatal(err)
		}
		return first
	}
	var want []byte
	for _, c := range []struct {
		name string
		an   Analyzer
	}{
		{"one accumulator, a then b", add(fresh(), a, b)},
		{"one accumulator, b then a", add(fresh(), b, a)},
		{"a merged with b", merged(a, b, false)},
		{"b merged with a", merged(b, a, false)},
		{"states of a and b", merged(a, b, true)},
		{"states of b and a", merged(b, a, true)},
	} {
		r, err := c.an.Result()
		if err != nil {
			t.Fatal(err)
		}
		var w memWriter
		if n, err := WriteModels(&w, []Result{r}, msgdef.Default(), "/models", 1e9); err != nil || n != 1 {
			t.Fatalf("%s: wrote %d models: %v", c.name, n, err)
		}
		got := w.msgs[0].Data
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s: models differ from the first case's:\n%s", c.name, testenv.FirstDiff(fmt.Sprintf("% x", got), fmt.Sprintf("% x", want)))
		}
	}
}
