package decode

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// bundleSeparator is the line that separates definitions in a bundle.
var bundleSeparator = strings.Repeat("=", 80)

// dependencies lists the nested types of t, depth first in order of first
// appearance, without t itself.
func dependencies(t *msgdef.Type) []*msgdef.Type {
	var out []*msgdef.Type
	seen := map[*msgdef.Type]bool{t: true}
	var walk func(*msgdef.Type)
	walk = func(t *msgdef.Type) {
		for i := range t.Fields {
			m := t.Fields[i].Msg
			if m == nil || seen[m] {
				continue
			}
			seen[m] = true
			out = append(out, m)
			walk(m)
		}
	}
	walk(t)
	return out
}

// ROS2Bundle renders t and its dependencies as a ros2msg schema bundle, the
// form rosbag2 and MCAP writers store: the main text, then for each
// dependency a separator line, "MSG: pkg/msg/Type" and its text.
func ROS2Bundle(t *msgdef.Type) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(t.Text, "\n"))
	for _, d := range dependencies(t) {
		fmt.Fprintf(&b, "\n%s\nMSG: %s\n%s", bundleSeparator, ros2Name(d.Name), strings.TrimRight(d.Text, "\n"))
	}
	return b.String()
}

func ros2Name(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 && !strings.Contains(name[i+1:], "/") {
		return name[:i] + "/msg/" + name[i+1:]
	}
	return name
}

// ros1Text renders one ROS2 type in the ROS1 dialect with the same wire
// layout in ROS1 terms: wstring and bounded strings become string, bounded
// sequences become T[], byte stays byte, defaults go; builtin_interfaces
// Time and Duration become time and duration and std_msgs/Header gets
// back its seq (written 0), as rosbags converts ROS 2 to ROS1.
func ros1Text(t *msgdef.Type) string {
	if isROS2Header(t) {
		return "uint32 seq\ntime stamp\nstring frame_id\n"
	}
	var b strings.Builder
	for _, c := range t.Constants {
		fmt.Fprintf(&b, "%s %s=%s\n", ros1Prim(c.Kind, c.Prim), c.Name, ros1ConstantValue(c))
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		typ := ""
		switch {
		case f.Kind == msgdef.Struct && ros1Builtin[f.Msg.Name] != "":
			typ = ros1Builtin[f.Msg.Name]
		case f.Kind == msgdef.Struct:
			typ = f.Msg.Name
		default:
			typ = ros1Prim(f.Kind, f.Prim)
		}
		switch f.Array {
		case msgdef.Fixed:
			typ += fmt.Sprintf("[%d]", f.Len)
		case msgdef.Sequence:
			typ += "[]"
		}
		fmt.Fprintf(&b, "%s %s\n", typ, f.Name)
	}
	return b.String()
}

// ros1ConstantValue spells a ROS2 constant's value as genmsg reads it:
// booleans as Python literals (True/False), strings unquoted.
func ros1ConstantValue(c msgdef.Constant) string {
	v := strings.TrimSpace(c.Value)
	switch c.Kind {
	case msgdef.Bool:
		switch strings.ToLower(v) {
		case "true", "1":
			return "True"
		case "false", "0":
			return "False"
		}
	case msgdef.String, msgdef.WString:
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			inner := v[1 : len(v)-1]
			if v[0] == '"' {
				if u, err := strconv.Unquote(v); err == nil {
					return u
				}
			}
			return strings.ReplaceAll(inner, `\'`, "'")
		}
	}
	return v
}

func ros1Prim(k msgdef.Kind, prim string) string {
	switch k {
	case msgdef.WString:
		return "string"
	case msgdef.Uint8:
		if prim == "char" || prim == "byte" {
			return prim // ROS 2's byte (octet) is ROS1's byte on the wire
		}
		return "uint8"
	}
	return k.String()
}

// ros1Builtin are the ROS1 primitives of ROS 2's builtin_interfaces.
var ros1Builtin = map[string]string{"builtin_interfaces/Time": "time", "builtin_interfaces/Duration": "duration"}

// isROS2Header reports whether t is ROS 2's std_msgs/Header (no seq),
// which is ROS1's with seq 0.
func isROS2Header(t *msgdef.Type) bool {
	return t.Dialect == msgdef.ROS2 && t.Name == "std_msgs/Header" && len(t.Fields) == 2 &&
		t.Fields[0].Name == "stamp" && t.Fields[1].Name == "frame_id"
}

// ROS1Equivalent returns a ROS1 type with t's wire layout (for writing ROS2
// data into a ROS1 bag), and the schema a bag connection needs for it.
func ROS1Equivalent(t *msgdef.Type) (*msgdef.Type, *record.Schema, error) {
	if t.Dialect == msgdef.ROS1 {
		return t, &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(t)), MD5: msgdef.MD5(t)}, nil
	}
	var b strings.Builder
	b.WriteString(ros1Text(t))
	for _, d := range dependencies(t) {
		if ros1Builtin[d.Name] != "" {
			continue // a primitive in ROS1
		}
		fmt.Fprintf(&b, "%s\nMSG: %s\n%s", bundleSeparator, d.Name, ros1Text(d))
	}
	r1, err := msgdef.ParseBundle(t.Name, b.String(), msgdef.ROS1, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("ROS1 equivalent of %s: %w", t.Name, err)
	}
	return r1, &record.Schema{Name: r1.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(r1)), MD5: msgdef.MD5(r1)}, nil
}

// toROS1 returns v, a value of a ROS 2 type, as a value of t, its ROS1
// equivalent (ROS1Equivalent): builtin Time and Duration structs become
// ROS1 times and durations (the same instant, nanoseconds below a second
// as ROS1 keeps them), a Header gets seq 0, a byte
// its signed ROS1 value; everything else is shared with v.
func toROS1(v *value.Struct, t *msgdef.Type) *value.Struct {
	if isROS2Header(v.Type) && len(t.Fields) == 3 {
		return &value.Struct{Type: t, Fields: []any{uint64(0), ros1Field(&t.Fields[1], v.Fields[0]), ros1Field(&t.Fields[2], v.Fields[1])}}
	}
	out := &value.Struct{Type: t, Fields: make([]any, len(t.Fields))}
	src := v.Fields
	for i := range t.Fields {
		out.Fields[i] = ros1Field(&t.Fields[i], src[i])
	}
	return out
}

// ros1Field converts one field value (see toROS1).
func ros1Field(f *msgdef.Field, x any) any {
	if a, ok := x.([]any); ok {
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = ros1Elem(f, e)
		}
		return out
	}
	return ros1Elem(f, x)
}

func ros1Elem(f *msgdef.Field, x any) any {
	switch f.Kind {
	case msgdef.Time, msgdef.Duration:
		s, ok := x.(*value.Struct)
		if !ok || len(s.Fields) != 2 {
			return x
		}
		sec, _ := s.Fields[0].(int64)
		nsec, _ := s.Fields[1].(uint64)
		// ROS1 keeps nsecs in [0, 1e9) (genpy normalises them so): the
		// same instant, normalised, when ROS1 can hold it; else the bits.
		total := sec*1e9 + int64(nsec)
		q, r := total/1e9, total%1e9
		if r < 0 {
			q, r = q-1, r+1e9
		}
		if f.Kind == msgdef.Time {
			if total >= 0 && q <= math.MaxUint32 {
				return value.Time{Sec: q, Nsec: r}
			}
			return value.Time{Sec: int64(uint32(sec)), Nsec: int64(uint32(nsec))}
		}
		if q >= math.MinInt32 && q <= math.MaxInt32 {
			return value.Duration{Sec: q, Nsec: r}
		}
		return value.Duration{Sec: sec, Nsec: int64(int32(uint32(nsec)))}
	case msgdef.Struct:
		if s, ok := x.(*value.Struct); ok {
			return toROS1(s, f.Msg)
		}
	case msgdef.Int8:
		if u, ok := x.(uint64); ok { // ROS 2's byte read unsigned
			return int64(int8(uint8(u)))
		}
	}
	return x
}

// A Conversion re-encodes one message: it appends the new encoding of src
// to dst and returns the extended slice, or dst unchanged in length and an
// error.
type Conversion func(dst, src []byte) ([]byte, error)

// ToROS1 returns the Conversion of messages of a channel into ROS1, and
// the channel to write them on. ROS1 channels pass through unchanged.
func (r *Resolver) ToROS1(ch *record.Channel) (Conversion, *record.Channel, error) {
	if ch.MessageEncoding == "ros1" {
		return func(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }, ch, nil
	}
	dec, err := r.For(ch)
	if err != nil {
		return nil, nil, err
	}
	t1, schema, err := ROS1Equivalent(dec.Type())
	if err != nil {
		return nil, nil, err
	}
	out := &record.Channel{ID: ch.ID, Topic: ch.Topic, MessageEncoding: "ros1", Schema: schema, Metadata: ch.Metadata}
	return func(dst, src []byte) ([]byte, error) {
		v, err := dec.DecodeValue(src)
		if err != nil {
			return dst, err
		}
		return ros1.AppendEncode(dst, toROS1(v, t1))
	}, out, nil
}

// WithDefinition returns ch with its schema filled from the resolved type
// when the file stored no definition (some rosbag2 databases), so that a
// writer can store a complete one.
func (r *Resolver) WithDefinition(ch *record.Channel) (*record.Channel, error) {
	if ch.Schema != nil && len(ch.Schema.Data) > 0 {
		return ch, nil
	}
	if ch.MessageEncoding == "json" {
		return ch, nil
	}
	dec, err := r.For(ch)
	if err != nil {
		return nil, err
	}
	c := *ch
	s := &record.Schema{Name: typeNameOf(ch), Encoding: "ros2msg", Data: []byte(ROS2Bundle(dec.Type()))}
	if ch.MessageEncoding == "ros1" {
		s.Encoding = "ros1msg"
		s.Data = []byte(msgdef.FullText(dec.Type()))
		s.MD5 = msgdef.MD5(dec.Type())
	}
	c.Schema = s
	return &c, nil
}

func typeNameOf(ch *record.Channel) string {
	if ch.Schema != nil {
		return ch.Schema.Name
	}
	return ""
}
