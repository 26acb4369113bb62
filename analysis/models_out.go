package analysis

import (
	"fmt"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// TaskModels returns the learned models of r as one message of type t, an
// interactive_world_msgs/TaskModels definition, the message the
// interactive_world learner publishes and a robot loads. Only models with
// a placement are included (pruned and skipped groups, and groups where no
// cluster has two members, are left out), in the canonical group order of
// r.Models. Each model's item, room and surface are copied field by field
// (by name) from the group's earliest observed placement, so they carry the
// widths, poses and POIs the study recorded (of placements that tie on log
// time, topic, place in the message and position, the one whose item, room
// and surface come first in their ROS1 bytes: groupRefs.earlier); the
// position, rotation, decision value and sigmas are those of r.Models.
//
// It returns an error when t lacks the fields of TaskModels. A result read
// back from JSON has no observed placements: the item, room and surface
// then carry only their names.
func (r *PlacementsResult) TaskModels(t *msgdef.Type) (*value.Struct, error) {
	tm := value.New(t)
	f := t.Field("models")
	if f == nil || f.Msg == nil || f.Array != msgdef.Sequence {
		return nil, fmt.Errorf("%w: %s has no models[] field", ErrKind, t.Name)
	}
	refs := map[GroupKey]*groupRefs{}
	for i, g := range r.Groups {
		if i < len(r.refs) && r.refs[i] != nil {
			refs[g.GroupKey] = r.refs[i]
		}
	}
	models := []*value.Struct{}
	for _, m := range r.Models {
		if !m.HasPlacement {
			continue
		}
		mv := value.New(f.Msg)
		if err := fillModel(mv, &m, refs[m.GroupKey]); err != nil {
			return nil, fmt.Errorf("model of %s: %w", m.GroupKey, err)
		}
		models = append(models, mv)
	}
	if err := tm.Set("models", models); err != nil {
		return nil, err
	}
	return tm, nil
}

func fillModel(mv *value.Struct, m *LearnedModel, ref *groupRefs) error {
	if ref != nil {
		for _, part := range []struct {
			path string
			src  *value.Struct
		}{{"placement.item", ref.item}, {"placement.room", ref.room}, {"placement.surface", ref.surface}} {
			dst, err := mv.Struct(part.path)
			if err != nil {
				return err
			}
			copyByName(dst, part.src)
		}
	}
	sets := []struct {
		path string
		v    any
	}{
		{"placement.item.name", m.Item},
		{"placement.room.name", m.Room},
		{"placement.surface.name", m.Surface},
		{"placement.reference_frame_id", m.ReferenceFrameID},
		{"placement.position.x", float64(m.Placement.Position.X)},
		{"placement.position.y", float64(m.Placement.Position.Y)},
		{"placement.position.z", float64(m.Placement.Position.Z)},
		{"placement.rotation", float64(m.Placement.Rotation)},
		{"decision_value", float64(m.DecisionValue)},
		{"sigma_x", float64(m.SigmaX)},
		{"sigma_y", float64(m.SigmaY)},
		{"sigma_z", float64(m.SigmaZ)},
		{"sigma_theta", float64(m.SigmaTheta)},
	}
	for _, s := range sets {
		if err := mv.Set(s.path, s.v); err != nil {
			return err
		}
	}
	return nil
}

// copyByName copies the fields of src into dst by name, converting numbers
// between widths; fields src lacks, or whose values do not fit dst's
// definition, keep their zero value. Nested messages are copied the same
// way, so src may come from another layout of the type (another version of
// the package, or its ROS2 form).
func copyByName(dst, src *value.Struct) {
	if dst == nil || src == nil || dst.Type == nil || src.Type == nil {
		return
	}
	for i := range dst.Type.Fields {
		f := &dst.Type.Fields[i]
		v, ok := src.Lookup(f.Name)
		if !ok || i >= len(dst.Fields) {
			continue
		}
		switch {
		case f.Kind == msgdef.Struct && f.Array == msgdef.Scalar:
			d, _ := dst.Fields[i].(*value.Struct)
			s, _ := v.(*value.Struct)
			copyByName(d, s)
		case f.Kind == msgdef.Struct:
			l, _ := v.([]any)
			out := make([]*value.Struct, 0, len(l))
			for _, e := range l {
				d := value.New(f.Msg)
				s, _ := e.(*value.Struct)
				copyByName(d, s)
				out = append(out, d)
			}
			_ = dst.Set(f.Name, out) // a length outside the bound keeps the zero value
		default:
			_ = dst.Set(f.Name, v) // a value that does not fit keeps the zero value
		}
	}
}
