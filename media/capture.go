package media

import (
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
)

// HasMedia reports whether messages of type t hold an image or cloud, as
// the type itself or in a field at any depth.
func HasMedia(t *msgdef.Type) bool { return hasMedia(t, map[*msgdef.Type]bool{}) }

func hasMedia(t *msgdef.Type, seen map[*msgdef.Type]bool) bool {
	if kindOf(t.Name) != 0 {
		return true
	}
	if v, ok := seen[t]; ok {
		return v
	}
	seen[t] = false
	for i := range t.Fields {
		if f := &t.Fields[i]; f.Kind == msgdef.Struct && f.Msg != nil && hasMedia(f.Msg, seen) {
			seen[t] = true
			return true
		}
	}
	return false
}

// Capture is a sink.Sink that keeps the images and clouds of one decoded
// message, and nothing else: for each, its header, layout and one copy of
// its data. Reset it before each message.
type Capture struct {
	// Frames are the media of the last message, in field order.
	Frames []*Frame
	stack  []level
	cur    *Frame
	root   int    // len(stack) when cur's struct began
	part   string // the struct being read inside cur: "header", "stamp", "fields"
	// alloc returns a buffer of n bytes for a frame's data.
	alloc func(n int) []byte
}

// level is one open struct or array of the message.
type level struct {
	f     *msgdef.Field
	array bool
	index int
}

// NewCapture returns a Capture that takes the buffers for the frames'
// data from alloc (make when nil).
func NewCapture(alloc func(n int) []byte) *Capture {
	if alloc == nil {
		alloc = func(n int) []byte { return make([]byte, n) }
	}
	return &Capture{alloc: alloc}
}

// Reset forgets the frames of the last message.
func (c *Capture) Reset() {
	c.Frames = c.Frames[:0]
	c.stack = c.stack[:0]
	c.cur = nil
}

// path is the field path of the open structs: "views[2].image".
func (c *Capture) path() string {
	var b strings.Builder
	for _, l := range c.stack {
		if l.f == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(l.f.Name)
		if l.array {
			b.WriteString("[")
			b.WriteString(strconv.Itoa(l.index))
			b.WriteString("]")
		}
	}
	return b.String()
}

// BeginMessage starts a message; a message that is itself an image or
// cloud is a frame with the field path "".
func (c *Capture) BeginMessage(t *msgdef.Type) {
	if k := kindOf(t.Name); k != 0 {
		c.begin(k)
	}
}

func (c *Capture) begin(k Kind) {
	c.cur = &Frame{Kind: k, Field: c.path()}
	c.root = len(c.stack)
	c.Frames = append(c.Frames, c.cur)
}

// EndMessage ends the message.
func (c *Capture) EndMessage() { c.cur = nil }

// BeginStruct opens a nested message (an array element when the array
// open last is f).
func (c *Capture) BeginStruct(f *msgdef.Field) {
	if n := len(c.stack); n > 0 && c.stack[n-1].array && c.stack[n-1].f == f {
		c.stack[n-1].index++
		c.stack = append(c.stack, level{})
	} else {
		c.stack = append(c.stack, level{f: f})
	}
	if c.cur == nil {
		if k := kindOf(f.Msg.Name); k != 0 {
			c.begin(k)
		}
		return
	}
	switch depth := len(c.stack) - c.root; {
	case depth == 1 && f.Name == "header":
		c.part = "header"
	case depth == 2 && f.Name == "fields" && c.stack[c.root].array:
		c.part = "fields"
		c.cur.Fields = append(c.cur.Fields, PointField{})
	case depth == 2 && c.part == "header" && f.Name == "stamp":
		c.part = "stamp"
	}
}

// EndStruct closes a nested message.
func (c *Capture) EndStruct() {
	c.stack = c.stack[:len(c.stack)-1]
	if c.cur == nil {
		return
	}
	switch depth := len(c.stack) - c.root; {
	case depth < 0:
		c.cur = nil
	case depth == 0:
		c.part = ""
	case depth == 1 && c.part == "stamp":
		c.part = "header"
	}
}

// BeginArray opens an array of f.
func (c *Capture) BeginArray(f *msgdef.Field, n int) {
	c.stack = append(c.stack, level{f: f, array: true, index: -1})
	if c.cur != nil && f.Name == "fields" && len(c.stack)-c.root == 1 {
		c.cur.Fields = make([]PointField, 0, min(n, 64))
	}
}

// EndArray closes an array.
func (c *Capture) EndArray() { c.stack = c.stack[:len(c.stack)-1] }

// Bool is a bool field: a cloud's is_dense.
func (c *Capture) Bool(f *msgdef.Field, v bool) {
	if c.cur != nil && len(c.stack) == c.root && f.Name == "is_dense" {
		c.cur.IsDense = v
	}
}

// Int is a signed integer field: a ROS 2 stamp's seconds.
func (c *Capture) Int(f *msgdef.Field, v int64) {
	if c.cur != nil && c.part == "stamp" && f.Name == "sec" {
		c.cur.Stamp += v * 1e9
	}
}

// Uint is an unsigned integer field: the layout of an image or cloud.
func (c *Capture) Uint(f *msgdef.Field, v uint64) {
	fr := c.cur
	if fr == nil {
		return
	}
	depth := len(c.stack) - c.root
	switch {
	case depth == 0:
		switch f.Name {
		case "height":
			fr.Height = uint32(v)
		case "width":
			fr.Width = uint32(v)
		case "step", "row_step":
			fr.Step = uint32(v)
		case "point_step":
			fr.PointStep = uint32(v)
		case "is_bigendian":
			fr.BigEndian = v != 0
		}
	case c.part == "stamp" && f.Name == "nanosec":
		fr.Stamp += int64(v)
	case c.part == "fields" && depth == 2 && len(fr.Fields) > 0:
		pf := &fr.Fields[len(fr.Fields)-1]
		switch f.Name {
		case "offset":
			pf.Offset = uint32(v)
		case "datatype":
			pf.Datatype = uint8(v)
		case "count":
			pf.Count = uint32(v)
		}
	}
}

// Float is a float field (none is media's).
func (c *Capture) Float(*msgdef.Field, float64) {}

// String is a string field: an encoding, format, frame id or field name.
func (c *Capture) String(f *msgdef.Field, v []byte) {
	fr := c.cur
	if fr == nil {
		return
	}
	depth := len(c.stack) - c.root
	switch {
	case depth == 0 && (f.Name == "encoding" || f.Name == "format"):
		fr.Encoding = string(v)
	case depth == 1 && c.part == "header" && f.Name == "frame_id":
		fr.FrameID = string(v)
	case depth == 2 && c.part == "fields" && f.Name == "name" && len(fr.Fields) > 0:
		fr.Fields[len(fr.Fields)-1].Name = string(v)
	}
}

// Bytes is a byte array: an image's or cloud's data, copied.
func (c *Capture) Bytes(f *msgdef.Field, v []byte) {
	if c.cur != nil && len(c.stack) == c.root && f.Name == "data" {
		c.cur.Data = c.alloc(len(v))
		copy(c.cur.Data, v)
	}
}

// Time is a ROS 1 time: a header's stamp.
func (c *Capture) Time(f *msgdef.Field, sec, nsec int64) {
	if c.cur != nil && c.part == "header" && f.Name == "stamp" && f.Kind == msgdef.Time {
		c.cur.Stamp = sec*1e9 + nsec
	}
}

var _ sink.Sink = (*Capture)(nil)
