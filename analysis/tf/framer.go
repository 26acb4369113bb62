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
	kindVector           // a geometry_msgs/Vector3 that is a direction: x, y, z, rotated only
)

// maxPlanDepth bounds how deep plan looks for geometry.
const maxPlanDepth = 8

// geometryKind is the kind of field f of type parent, if it is geometry
// tf2_geometry_msgs transforms: a Point, Pose or Transform anywhere, and a
// Vector3 as the vector of a Vector3Stamped (do_transform_vector3) or the
// force or torque of a Wrench (do_transform_wrench). Other Vector3s
// (velocities, accelerations) are left alone: tf2 has no transform for
// them.
func geometryKind(parent *msgdef.Type, f *msgdef.Field) (int, bool) {
	switch f.Msg.Name {
	case "geometry_msgs/Point":
		return kindPoint, true
	case "geometry_msgs/Pose":
		return kindPose, true
	case "geometry_msgs/Transform":
		return kindTransform, true
	case "geometry_msgs/Vector3":
		if parent.Name == "geometry_msgs/Vector3Stamped" || parent.Name == "geometry_msgs/Wrench" {
			return kindVector, true
		}
	}
	return 0, false
}

// isHeader reports whether f is a std_msgs/Header.
func isHeader(f *msgdef.Field) bool {
	return f.Kind == msgdef.Struct && f.Array == msgdef.Scalar && f.Msg != nil && f.Msg.Name == "std_msgs/Header"
}

// Framer adds to each message that has a std_msgs/Header and poses,
// points, transforms or tf2_geometry_msgs' vectors (Vector3Stamped,
// Wrench) the same values expressed in Frame: one more field,
// "in_<Frame>", mirroring the paths of those fields
// (in_map.pose.position.x), arrays included, element by element
// (in_map.poses of a PoseArray). Each value is transformed from the
// frame_id at the stamp of the innermost header around it: the
// message's, or an element's own (each PoseStamped of a nav_msgs/Path),
// as tf2_geometry_msgs transforms each such element.
//
// Where no transform exists at that stamp the values are absent: their
// fields are marked msgdef.Field.Nullable and a sink that implements
// sink.Nuller gets Null for each (export: null cells, empty in CSV; JSON:
// null), other sinks (a value tree) NaN. A NaN otherwise is a NaN of the
// input carried through the transform.
type Framer struct {
	buf   *Buffer
	Frame string
}

// NewFramer returns a Framer to frame over the transforms of b.
func NewFramer(b *Buffer, frame string) *Framer {
	return &Framer{buf: b, Frame: strings.TrimPrefix(frame, "/")}
}

// FieldName is the name of the field a Framer into frame adds: in_<frame>,
// without a leading slash.
func FieldName(frame string) string { return "in_" + strings.TrimPrefix(frame, "/") }

// node is one struct field on the way to a geometry field.
type node struct {
	name     string
	in       *msgdef.Field // the field in the input type
	kind     int           // for a leaf: its geometry kind
	leaf     bool
	scoped   bool // its type has a std_msgs/Header of its own, which governs the geometry in it
	children []*node
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

// plan finds the geometry fields of t, depth first.
func plan(t *msgdef.Type, n *node, depth int) {
	if depth > maxPlanDepth {
		return
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Kind != msgdef.Struct || f.Msg == nil || isHeader(f) {
			continue
		}
		c := &node{name: f.Name, in: f}
		if k, ok := geometryKind(t, f); ok {
			c.kind, c.leaf = k, true
		} else {
			c.scoped = header.Has(f.Msg)
			plan(f.Msg, c, depth+1)
			if len(c.children) == 0 {
				continue
			}
		}
		n.children = append(n.children, c)
	}
}

// outType builds the type of the added field: the nodes' paths (arrays as
// in the input), each leaf of its own geometry type with nullable numbers
// (nullable).
func outType(n *node, name string, memo map[*msgdef.Type]*msgdef.Type) *msgdef.Type {
	t := &msgdef.Type{Name: "baglab/" + name, FullName: "baglab/" + name, Dialect: msgdef.ROS1}
	for _, c := range n.children {
		var m *msgdef.Type
		if c.leaf {
			m = nullable(c.in.Msg, memo)
		} else {
			m = outType(c, name+"_"+c.name, memo)
		}
		t.Fields = append(t.Fields, msgdef.Field{Name: c.name, Kind: msgdef.Struct, Msg: m, TypeName: m.Name, Array: c.in.Array, Len: c.in.Len})
	}
	for i, c := range n.children {
		c.out = &t.Fields[i]
	}
	return t
}

// nullable is a copy of geometry type t whose scalar fields, at any depth,
// are marked Nullable (memo keeps the copies made).
func nullable(t *msgdef.Type, memo map[*msgdef.Type]*msgdef.Type) *msgdef.Type {
	if c, ok := memo[t]; ok {
		return c
	}
	c := *t
	c.Fields = append([]msgdef.Field(nil), t.Fields...)
	memo[t] = &c
	for i := range c.Fields {
		f := &c.Fields[i]
		switch {
		case f.Kind == msgdef.Struct && f.Msg != nil:
			f.Msg = nullable(f.Msg, memo)
		case f.Kind != msgdef.Struct && f.Array == msgdef.Scalar:
			f.Nullable = true
		}
	}
	return &c
}

// Wrap returns a decoder of dec's messages with the added field, and
// false when dec's type has no header or no geometry to express.
func (f *Framer) Wrap(dec decode.Decoder) (decode.Decoder, bool) {
	t := dec.Type()
	if !header.Has(t) {
		return nil, false
	}
	root := &node{}
	plan(t, root, 0)
	if len(root.children) == 0 {
		return nil, false
	}
	name := FieldName(f.Frame)
	ext := *t
	out := outType(root, "In"+strings.ReplaceAll(f.Frame, "/", "_"), map[*msgdef.Type]*msgdef.Type{})
	ext.Fields = append(append([]msgdef.Field(nil), t.Fields...), msgdef.Field{Name: name, Kind: msgdef.Struct, Msg: out, TypeName: "baglab/In"})
	return &framed{Decoder: dec, f: f, t: &ext, root: root, field: &ext.Fields[len(ext.Fields)-1]}, true
}

// framed is a wrapped decoder: its type and Decode add the field; the
// UTF-8 checks are the wrapped decoder's.
type framed struct {
	decode.Decoder
	f     *Framer
	t     *msgdef.Type
	root  *node
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
	c := capture{out: s, typ: d.t, root: d.root}
	if err := d.Decoder.Decode(data, &c); err != nil {
		return err
	}
	e := emitter{f: d.f, c: &c, trs: make([]lookup, len(c.headers))}
	e.null, _ = s.(sink.Nuller)
	s.BeginStruct(d.field)
	e.children(d.root, s)
	s.EndStruct()
	s.EndMessage()
	return nil
}

// emitter writes the added field from what capture kept, walking the plan
// in the order the values were decoded.
type emitter struct {
	f      *Framer
	c      *capture
	vi, ai int         // the next value and array length
	trs    []lookup    // the transform of each header, once looked up
	null   sink.Nuller // the sink, when it takes absent values
}

// lookup is the transform of one header.
type lookup struct {
	tr         Transform
	done, isOK bool
}

var nanTransform = Transform{Vec3{math.NaN(), math.NaN(), math.NaN()}, Quat{math.NaN(), math.NaN(), math.NaN(), math.NaN()}}

// transform is the transform from header h's frame into the Framer's at
// its stamp, and false (with NaNs) where there is none.
func (e *emitter) transform(h int) (Transform, bool) {
	if h < 0 || h >= len(e.trs) {
		return nanTransform, false
	}
	if l := &e.trs[h]; !l.done {
		hd := e.c.headers[h]
		tr, _, err := e.f.buf.Lookup(e.f.Frame, strings.TrimPrefix(string(hd.frameID), "/"), hd.sec*1e9+hd.nsec)
		if err != nil {
			tr = nanTransform
		}
		*l = lookup{tr: tr, done: true, isOK: err == nil}
	}
	return e.trs[h].tr, e.trs[h].isOK
}

func (e *emitter) children(n *node, s sink.Sink) {
	for _, ch := range n.children {
		if ch.in.Array == msgdef.Scalar {
			e.one(ch, s)
			continue
		}
		cnt := 0
		if e.ai < len(e.c.counts) {
			cnt = e.c.counts[e.ai]
		}
		e.ai++
		s.BeginArray(ch.out, cnt)
		for range cnt {
			e.one(ch, s)
		}
		s.EndArray()
	}
}

func (e *emitter) one(n *node, s sink.Sink) {
	s.BeginStruct(n.out)
	if n.leaf {
		e.leaf(n, s)
	} else {
		e.children(n, s)
	}
	s.EndStruct()
}

// leaf writes one geometry value in the Framer's frame, with n's out
// fields (Nullable): null where there is no transform and the sink takes
// absent values.
func (e *emitter) leaf(n *node, s sink.Sink) {
	gv := geomValue{v: nanTransform, hdr: -1}
	if e.vi < len(e.c.vals) {
		gv = e.c.vals[e.vi]
	}
	e.vi++
	tr, ok := e.transform(gv.hdr)
	w := floats{s: s}
	if !ok {
		w.null = e.null
	}
	ft := n.out.Msg.Fields
	switch n.kind {
	case kindPoint:
		w.vec(ft, tr.Apply(gv.v.Translation))
	case kindVector: // do_transform_vector3: the translation set to 0
		w.vec(ft, tr.Rotation.rotate(gv.v.Translation))
	default: // pose and transform: a point and a quaternion
		v := tr.Compose(gv.v)
		s.BeginStruct(&ft[0])
		w.vec(ft[0].Msg.Fields, v.Translation)
		s.EndStruct()
		s.BeginStruct(&ft[1])
		q := ft[1].Msg.Fields
		w.put(&q[0], v.Rotation.X)
		w.put(&q[1], v.Rotation.Y)
		w.put(&q[2], v.Rotation.Z)
		w.put(&q[3], v.Rotation.W)
		s.EndStruct()
	}
}

// floats writes the numbers of one geometry value: to s, or as nulls to
// null when it is set (the value is absent).
type floats struct {
	s    sink.Sink
	null sink.Nuller
}

func (w floats) put(f *msgdef.Field, v float64) {
	if w.null != nil {
		w.null.Null(f)
		return
	}
	w.s.Float(f, v)
}

func (w floats) vec(f []msgdef.Field, v Vec3) {
	w.put(&f[0], v.X)
	w.put(&f[1], v.Y)
	w.put(&f[2], v.Z)
}

// What an open struct or array of the input is, for capture.
const (
	stOff    = iota // off the plan
	stStruct        // a struct whose fields node plans (the root or a branch)
	stArray         // an array of node's elements
	stLeaf          // a geometry value
	stPart          // a pose's position or orientation (a transform's translation or rotation)
	stHeader        // the std_msgs/Header of a scope
	stStamp         // its ROS2 stamp
)

type open struct {
	n    *node
	st   uint8
	part uint8 // stPart: 0 position/translation, 1 orientation/rotation
}

// geomValue is one geometry value of the input and the header it is in.
type geomValue struct {
	v   Transform
	hdr int
}

// capturedHeader is one std_msgs/Header of the input.
type capturedHeader struct {
	sec, nsec int64
	frameID   []byte
}

// capture passes every event on to out except EndMessage, and keeps the
// geometry values of the plan, the lengths of its arrays and the headers
// that govern them, each in the order decoded.
type capture struct {
	out     sink.Sink
	typ     *msgdef.Type // the type with the added field, for out
	root    *node
	stack   []open
	vals    []geomValue
	counts  []int
	headers []capturedHeader
	scope   []int // the header governing what is being decoded
}

func (c *capture) top() open { return c.stack[len(c.stack)-1] }

func (c *capture) BeginMessage(*msgdef.Type) {
	c.out.BeginMessage(c.typ)
	c.stack = append(c.stack[:0], open{n: c.root, st: stStruct})
	c.vals, c.counts = c.vals[:0], c.counts[:0]
	c.headers = append(c.headers[:0], capturedHeader{})
	c.scope = append(c.scope[:0], 0)
}

func (c *capture) EndMessage() {}

// enter opens a struct of node n: a leaf starts a value in the header in
// scope, a scoped branch a header of its own.
func (c *capture) enter(n *node) open {
	if n.leaf {
		c.vals = append(c.vals, geomValue{v: Transform{Rotation: Identity}, hdr: c.scope[len(c.scope)-1]})
		return open{n: n, st: stLeaf}
	}
	if n.scoped {
		c.headers = append(c.headers, capturedHeader{})
		c.scope = append(c.scope, len(c.headers)-1)
	}
	return open{n: n, st: stStruct}
}

func (c *capture) BeginStruct(f *msgdef.Field) {
	c.out.BeginStruct(f)
	next := open{st: stOff}
	switch top := c.top(); top.st {
	case stStruct:
		if isHeader(f) && (top.n == c.root || top.n.scoped) {
			next = open{st: stHeader}
		} else if ch := top.n.child(f.Name); ch != nil && ch.in.Array == msgdef.Scalar {
			next = c.enter(ch)
		}
	case stArray:
		next = c.enter(top.n)
	case stLeaf:
		if top.n.kind == kindPose || top.n.kind == kindTransform {
			next = open{n: top.n, st: stPart}
			if f.Name == "orientation" || f.Name == "rotation" {
				next.part = 1
			}
		}
	case stHeader:
		if f.Name == "stamp" {
			next = open{st: stStamp}
		}
	}
	c.stack = append(c.stack, next)
}

func (c *capture) EndStruct() {
	c.out.EndStruct()
	if top := c.top(); top.st == stStruct && top.n.scoped && len(c.scope) > 1 {
		c.scope = c.scope[:len(c.scope)-1]
	}
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *capture) BeginArray(f *msgdef.Field, n int) {
	c.out.BeginArray(f, n)
	next := open{st: stOff}
	if top := c.top(); top.st == stStruct && f.Kind == msgdef.Struct {
		if ch := top.n.child(f.Name); ch != nil && ch.in.Array != msgdef.Scalar {
			c.counts = append(c.counts, n)
			next = open{n: ch, st: stArray}
		}
	}
	c.stack = append(c.stack, next)
}

func (c *capture) EndArray() {
	c.out.EndArray()
	c.stack = c.stack[:len(c.stack)-1]
}

// header is the header being decoded.
func (c *capture) header() *capturedHeader { return &c.headers[c.scope[len(c.scope)-1]] }

func (c *capture) Bool(f *msgdef.Field, v bool) { c.out.Bool(f, v) }

func (c *capture) Int(f *msgdef.Field, v int64) {
	c.out.Int(f, v)
	if c.top().st == stStamp && f.Name == "sec" {
		c.header().sec = v
	}
}

func (c *capture) Uint(f *msgdef.Field, v uint64) {
	c.out.Uint(f, v)
	if c.top().st == stStamp && f.Name == "nanosec" {
		c.header().nsec = int64(v)
	}
}

func (c *capture) String(f *msgdef.Field, v []byte) {
	c.out.String(f, v)
	if c.top().st == stHeader && f.Name == "frame_id" {
		h := c.header()
		h.frameID = append(h.frameID[:0], v...)
	}
}

func (c *capture) Bytes(f *msgdef.Field, v []byte) { c.out.Bytes(f, v) }

func (c *capture) Time(f *msgdef.Field, sec, nsec int64) {
	c.out.Time(f, sec, nsec)
	if c.top().st == stHeader && f.Name == "stamp" && f.Kind == msgdef.Time {
		h := c.header()
		h.sec, h.nsec = sec, nsec
	}
}

func (c *capture) Float(f *msgdef.Field, v float64) {
	c.out.Float(f, v)
	top := c.top()
	if top.st != stLeaf && top.st != stPart {
		return
	}
	t := &c.vals[len(c.vals)-1].v
	if top.st == stLeaf && (top.n.kind == kindPoint || top.n.kind == kindVector) || top.st == stPart && top.part == 0 {
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
	if top.st == stPart {
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
