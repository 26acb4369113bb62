package tf

import (
	"math"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/header"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
)

// geometry kinds a Framer expresses in another frame.
const (
	kindPoint     = iota // geometry_msgs/Point: x, y, z
	kindPose             // geometry_msgs/Pose: position, orientation
	kindTransform        // geometry_msgs/Transform: translation, rotation
)

func geometryKind(name string) (int, bool) {
	switch name {
	case "geometry_msgs/Point":
		return kindPoint, true
	case "geometry_msgs/Pose":
		return kindPose, true
	case "geometry_msgs/Transform":
		return kindTransform, true
	}
	return 0, false
}

// Framer adds to each message that has a std_msgs/Header and poses,
// points or transforms (outside arrays) the same values expressed in
// Frame, looked up at the header's stamp from header.frame_id: one more
// field, "in_<Frame>", mirroring the paths of those fields
// (in_map.pose.position.x). Where no transform exists at that stamp the
// values are NaN.
type Framer struct {
	buf   *Buffer
	Frame string
}

// NewFramer returns a Framer to frame over the transforms of b.
func NewFramer(b *Buffer, frame string) *Framer {
	return &Framer{buf: b, Frame: strings.TrimPrefix(frame, "/")}
}

// node is one struct field on the way to a geometry field.
type node struct {
	name     string
	children []*node
	kind     int // for a leaf: its geometry kind
	leaf     bool
	slot     int // a leaf's index among the values
	t        *msgdef.Type
	out      *msgdef.Field // the node's field in the added struct
}

func (n *node) child(name string) *node {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// plan finds the geometry fields of t outside arrays, depth first.
func plan(t *msgdef.Type, n *node, slots *int, depth int) {
	if depth > 8 {
		return
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Kind != msgdef.Struct || f.Array != msgdef.Scalar || f.Msg == nil || f.Name == "header" {
			continue
		}
		if k, ok := geometryKind(f.Msg.Name); ok {
			n.children = append(n.children, &node{name: f.Name, kind: k, leaf: true, slot: *slots, t: f.Msg})
			*slots++
			continue
		}
		c := &node{name: f.Name}
		plan(f.Msg, c, slots, depth+1)
		if len(c.children) > 0 {
			n.children = append(n.children, c)
		}
	}
}

// outType builds the type of the added field: the nodes' paths, each leaf
// of its own geometry type.
func outType(n *node, name string) *msgdef.Type {
	t := &msgdef.Type{Name: "baglab/" + name, FullName: "baglab/" + name, Dialect: msgdef.ROS1}
	for _, c := range n.children {
		m := c.t
		if !c.leaf {
			m = outType(c, name+"_"+c.name)
		}
		t.Fields = append(t.Fields, msgdef.Field{Name: c.name, Kind: msgdef.Struct, Msg: m, TypeName: m.Name})
	}
	for i, c := range n.children {
		c.out = &t.Fields[i]
	}
	return t
}

// Wrap returns a decoder of dec's messages with the added field, and
// false when dec's type has no header or no geometry to express.
func (f *Framer) Wrap(dec decode.Decoder) (decode.Decoder, bool) {
	t := dec.Type()
	if !header.Has(t) {
		return nil, false
	}
	root := &node{}
	slots := 0
	plan(t, root, &slots, 0)
	if slots == 0 {
		return nil, false
	}
	name := "in_" + f.Frame
	ext := *t
	ext.Fields = append(append([]msgdef.Field(nil), t.Fields...), msgdef.Field{Name: name, Kind: msgdef.Struct, Msg: outType(root, "In"+strings.ReplaceAll(f.Frame, "/", "_")), TypeName: "baglab/In"})
	return &framed{Decoder: dec, f: f, t: &ext, root: root, slots: slots, field: &ext.Fields[len(ext.Fields)-1]}, true
}

// framed is a wrapped decoder: its type and Decode add the field; the
// UTF-8 checks are the wrapped decoder's.
type framed struct {
	decode.Decoder
	f     *Framer
	t     *msgdef.Type
	root  *node
	slots int
	field *msgdef.Field
}

func (d *framed) Type() *msgdef.Type { return d.t }

// DecodeValue decodes data, with the added field, into a value tree.
func (d *framed) DecodeValue(data []byte) (*value.Struct, error) {
	b := value.NewBuilder()
	if err := d.Decode(data, b); err != nil {
		return nil, err
	}
	return b.Result(), nil
}

func (d *framed) Decode(data []byte, s sink.Sink) error {
	c := capture{out: s, vals: make([]Transform, d.slots), stack: []*node{d.root}}
	if err := d.Decoder.Decode(data, &c); err != nil {
		return err
	}
	h, _ := c.hs.Header()
	tr, _, err := d.f.buf.Lookup(d.f.Frame, strings.TrimPrefix(h.FrameID, "/"), h.Stamp)
	if err != nil {
		nan := math.NaN()
		tr = Transform{Vec3{nan, nan, nan}, Quat{nan, nan, nan, nan}}
	}
	s.BeginStruct(d.field)
	d.emit(d.root, &c, tr, s)
	s.EndStruct()
	s.EndMessage()
	return nil
}

func (d *framed) emit(n *node, c *capture, tr Transform, s sink.Sink) {
	for _, ch := range n.children {
		s.BeginStruct(ch.out)
		if !ch.leaf {
			d.emit(ch, c, tr, s)
			s.EndStruct()
			continue
		}
		v := tr.Compose(c.vals[ch.slot])
		ft := ch.t.Fields
		switch ch.kind {
		case kindPoint:
			vec(s, ft, v.Translation)
		default: // pose and transform: a point and a quaternion
			s.BeginStruct(&ft[0])
			vec(s, ft[0].Msg.Fields, v.Translation)
			s.EndStruct()
			s.BeginStruct(&ft[1])
			q := ft[1].Msg.Fields
			s.Float(&q[0], v.Rotation.X)
			s.Float(&q[1], v.Rotation.Y)
			s.Float(&q[2], v.Rotation.Z)
			s.Float(&q[3], v.Rotation.W)
			s.EndStruct()
		}
		s.EndStruct()
	}
}

func vec(s sink.Sink, f []msgdef.Field, v Vec3) {
	s.Float(&f[0], v.X)
	s.Float(&f[1], v.Y)
	s.Float(&f[2], v.Z)
}

// capture passes every event on to out except EndMessage, and keeps the
// header and the geometry values of the plan.
type capture struct {
	out   sink.Sink
	hs    header.Sink
	stack []*node // the plan node of each open struct, nil off the plan
	arr   int     // open arrays
	vals  []Transform
	cur   *node // the geometry leaf inside, or nil
	part  int   // 0 translation/position, 1 rotation/orientation
}

func (c *capture) BeginMessage(t *msgdef.Type) { c.out.BeginMessage(t); c.hs.BeginMessage(t) }
func (c *capture) EndMessage()                 { c.hs.EndMessage() }

func (c *capture) BeginStruct(f *msgdef.Field) {
	c.out.BeginStruct(f)
	c.hs.BeginStruct(f)
	var next *node
	if top := c.stack[len(c.stack)-1]; top != nil && c.arr == 0 {
		next = top.child(f.Name)
		if top.leaf {
			next = nil
			if f.Name == "orientation" || f.Name == "rotation" {
				c.part = 1
			} else {
				c.part = 0
			}
		}
	}
	if next != nil && next.leaf {
		c.cur = next
		c.vals[next.slot] = Transform{Rotation: Identity}
	}
	c.stack = append(c.stack, next)
}

func (c *capture) EndStruct() {
	c.out.EndStruct()
	c.hs.EndStruct()
	if n := c.stack[len(c.stack)-1]; n != nil && n == c.cur {
		c.cur = nil
	}
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *capture) BeginArray(f *msgdef.Field, n int) {
	c.out.BeginArray(f, n)
	c.hs.BeginArray(f, n)
	c.arr++
}

func (c *capture) EndArray() {
	c.out.EndArray()
	c.hs.EndArray()
	c.arr--
}

func (c *capture) Bool(f *msgdef.Field, v bool)   { c.out.Bool(f, v) }
func (c *capture) Int(f *msgdef.Field, v int64)   { c.out.Int(f, v); c.hs.Int(f, v) }
func (c *capture) Uint(f *msgdef.Field, v uint64) { c.out.Uint(f, v); c.hs.Uint(f, v) }
func (c *capture) String(f *msgdef.Field, v []byte) {
	c.out.String(f, v)
	c.hs.String(f, v)
}
func (c *capture) Bytes(f *msgdef.Field, v []byte) { c.out.Bytes(f, v) }
func (c *capture) Time(f *msgdef.Field, sec, nsec int64) {
	c.out.Time(f, sec, nsec)
	c.hs.Time(f, sec, nsec)
}

func (c *capture) Float(f *msgdef.Field, v float64) {
	c.out.Float(f, v)
	if c.cur == nil || c.arr > 0 {
		return
	}
	t := &c.vals[c.cur.slot]
	inLeaf := c.stack[len(c.stack)-1] == c.cur
	if c.cur.kind == kindPoint || !inLeaf && c.part == 0 {
		switch f.Name {
		case "x":
			t.Translation.X = v
		case "y":
			t.Translation.Y = v
		case "z":
			t.Translation.Z = v
		}
		return
	}
	if !inLeaf && c.part == 1 {
		switch f.Name {
		case "x":
			t.Rotation.X = v
		case "y":
			t.Rotation.Y = v
		case "z":
			t.Rotation.Z = v
		case "w":
			t.Rotation.W = v
		}
	}
}
