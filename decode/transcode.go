package decode

import (
	"fmt"
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
// sequences become T[], ROS2 byte (octet) becomes uint8, defaults go.
func ros1Text(t *msgdef.Type) string {
	var b strings.Builder
	for _, c := range t.Constants {
		fmt.Fprintf(&b, "%s %s=%s\n", ros1Prim(c.Kind, c.Prim), c.Name, ros1ConstantValue(c))
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		typ := ""
		if f.Kind == msgdef.Struct {
			typ = f.Msg.Name
		} else {
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
		if prim == "char" {
			return "char"
		}
		return "uint8"
	}
	return k.String()
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
		fmt.Fprintf(&b, "%s\nMSG: %s\n%s", bundleSeparator, d.Name, ros1Text(d))
	}
	r1, err := msgdef.ParseBundle(t.Name, b.String(), msgdef.ROS1, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("ROS1 equivalent of %s: %w", t.Name, err)
	}
	return r1, &record.Schema{Name: r1.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(r1)), MD5: msgdef.MD5(r1)}, nil
}

// retype points every struct of v at the matching type of t, which has the
// same layout (see ROS1Equivalent).
func retype(v *value.Struct, t *msgdef.Type) {
	v.Type = t
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Kind != msgdef.Struct {
			continue
		}
		switch x := v.Fields[i].(type) {
		case *value.Struct:
			retype(x, f.Msg)
		case []any:
			for _, e := range x {
				if s, ok := e.(*value.Struct); ok {
					retype(s, f.Msg)
				}
			}
		}
	}
}

// ToROS1 returns a function that re-encodes messages of a channel as ROS1,
// and the channel to write them on. ROS1 channels pass through unchanged.
func (r *Resolver) ToROS1(ch *record.Channel) (func([]byte) ([]byte, error), *record.Channel, error) {
	if ch.MessageEncoding == "ros1" {
		return func(b []byte) ([]byte, error) { return b, nil }, ch, nil
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
	return func(b []byte) ([]byte, error) {
		v, err := dec.DecodeValue(b)
		if err != nil {
			return nil, err
		}
		retype(v, t1)
		return ros1.Encode(v)
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
