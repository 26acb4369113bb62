package decode

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
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
// dependency a separator line, "MSG: pkg/msg/Type" and its text, every
// text's references to other packages' types in that long form (longRefs).
func ROS2Bundle(t *msgdef.Type) string { return string(ros2Bundle(t, nil)) }

// ros2Bundle is ROS2Bundle with the sections of the dependencies taken
// from sec, as the bytes a schema record holds.
func ros2Bundle(t *msgdef.Type, sec *sections) []byte {
	parts := []string{longRefs(t.Text)}
	size := len(parts[0])
	for _, d := range dependencies(t) {
		part, _ := sec.of(d, func() (string, error) {
			return "\n" + bundleSeparator + "\nMSG: " + ros2Name(d.Name) + "\n" + longRefs(d.Text), nil
		})
		parts = append(parts, part)
		size += len(parts[len(parts)-1])
	}
	out := make([]byte, 0, size) // one allocation of the bundle
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
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
		case f.Kind == msgdef.Struct && ros1Builtin(f.Msg) != "":
			typ = ros1Builtin(f.Msg)
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

// ros1Builtins are the ROS1 primitives of ROS 2's builtin_interfaces.
var ros1Builtins = map[string]string{"builtin_interfaces/Time": "time", "builtin_interfaces/Duration": "duration"}

// ros1Builtin is the ROS1 primitive ("time", "duration") ROS 2 type m
// stands for: builtin_interfaces Time or Duration laid out as ROS 2 has
// them (int32 sec, uint32 nanosec), else "". A recording that defines
// one of those names otherwise keeps it a message of its own fields.
func ros1Builtin(m *msgdef.Type) string {
	prim := ros1Builtins[m.Name]
	if prim == "" || len(m.Fields) != 2 {
		return ""
	}
	sec, nsec := &m.Fields[0], &m.Fields[1]
	if sec.Name != "sec" || sec.Kind != msgdef.Int32 || sec.Array != msgdef.Scalar ||
		nsec.Name != "nanosec" || nsec.Kind != msgdef.Uint32 || nsec.Array != msgdef.Scalar {
		return ""
	}
	return prim
}

// isROS2Header reports whether t is ROS 2's std_msgs/Header (no seq, a
// builtin Time stamp), which is ROS1's with seq 0.
func isROS2Header(t *msgdef.Type) bool {
	if t.Dialect != msgdef.ROS2 || t.Name != "std_msgs/Header" || len(t.Fields) != 2 {
		return false
	}
	stamp, frame := &t.Fields[0], &t.Fields[1]
	return stamp.Name == "stamp" && stamp.Kind == msgdef.Struct && stamp.Array == msgdef.Scalar && ros1Builtin(stamp.Msg) == "time" &&
		frame.Name == "frame_id" && frame.Kind == msgdef.String && frame.Array == msgdef.Scalar
}

// ROS1Equivalent returns a ROS1 type with t's wire layout (for writing ROS2
// data into a ROS1 bag), and the schema a bag connection needs for it.
func ROS1Equivalent(t *msgdef.Type) (*msgdef.Type, *record.Schema, error) {
	return ros1Equivalent(t, nil)
}

// ros1Equivalent is ROS1Equivalent with the ROS1 definitions reg knows
// (built in, --msg-path) written in place of those of t's closure that
// they fit (ros1Known): sensor_msgs/msg/CameraInfo becomes ROS1's own, its
// d written D, with ROS1's md5sum, which a ROS1 subscriber checks.
func ros1Equivalent(t *msgdef.Type, reg *msgdef.Registry) (*msgdef.Type, *record.Schema, error) {
	if t.Dialect == msgdef.ROS1 {
		return t, &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(t)), MD5: msgdef.MD5(t)}, nil
	}
	text := func(d *msgdef.Type) string {
		if k := ros1Known(reg, d); k != nil {
			return strings.TrimRight(k.Text, "\n") + "\n"
		}
		return ros1Text(d)
	}
	var b strings.Builder
	b.WriteString(text(t))
	for _, d := range dependencies(t) {
		if ros1Builtin(d) != "" {
			continue // a primitive in ROS1
		}
		fmt.Fprintf(&b, "%s\nMSG: %s\n%s", bundleSeparator, d.Name, text(d))
	}
	r1, err := msgdef.ParseBundle(t.Name, b.String(), msgdef.ROS1, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("ROS1 equivalent of %s: %w", t.Name, err)
	}
	return r1, &record.Schema{Name: r1.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(r1)), MD5: msgdef.MD5(r1)}, nil
}

// ros1Known returns the ROS1 definition reg knows of ROS 2 type t's name
// when it fits t field for field (ros1Definition, nothing left out), else
// nil.
func ros1Known(reg *msgdef.Registry, t *msgdef.Type) *msgdef.Type {
	if k, paths, _ := ros1Definition(reg, t); len(paths) == 0 {
		return k
	}
	return nil
}

// kindAlike reports whether ROS1 field f1 and ROS 2 field f2 hold values
// of one kind, laid out alike on the wire: time and duration as
// builtin_interfaces Time and Duration, ROS1's byte as ROS 2's octet, f1's
// message (named name2 in ROS 2) as f2's, any other kind as itself.
func kindAlike(f1, f2 *msgdef.Field, name2 string) bool {
	switch {
	case f2.Kind == msgdef.Struct && ros1Builtin(f2.Msg) != "":
		return f1.Kind.String() == ros1Builtin(f2.Msg)
	case f2.Kind == msgdef.Struct:
		return f1.Kind == msgdef.Struct && name2 == f2.Msg.Name
	case f1.Prim == "byte":
		return f2.Kind == msgdef.Uint8
	}
	return f1.Kind == f2.Kind
}

// ros1Time is a builtin_interfaces Time or Duration (k msgdef.Time or
// msgdef.Duration) as the ROS1 time or duration rosbags writes: the same
// instant with nanoseconds below a second, as ROS1 keeps them (genpy
// normalises them so), when ROS1 can hold it; else the same bits.
func ros1Time(k msgdef.Kind, sec int64, nsec uint64) (int64, int64) {
	total := sec*1e9 + int64(nsec)
	q, r := total/1e9, total%1e9
	if r < 0 {
		q, r = q-1, r+1e9
	}
	if k == msgdef.Time {
		if total >= 0 && q <= math.MaxUint32 {
			return q, r
		}
		return int64(uint32(sec)), int64(uint32(nsec))
	}
	if q >= math.MinInt32 && q <= math.MaxInt32 {
		return q, r
	}
	return sec, int64(int32(uint32(nsec)))
}

// TranscodeROS2 returns the Conversion of messages of a ROS 2 type (dec
// compiled for it, CDR) into the ROS1 wire format of its ROS1Equivalent:
// one pass of dec straight into a ROS1 encoder, each Header given seq 0,
// each builtin_interfaces Time and Duration written as a ROS1 time or
// duration (ros1Time), a wstring as a string. It is not for concurrent
// use.
func TranscodeROS2(dec Decoder) Conversion {
	s := &addSeq{}
	return func(dst, src []byte) ([]byte, error) {
		s.enc.Start(dst)
		s.time = nil
		if err := dec.Decode(src, s); err != nil {
			return dst, err
		}
		return s.enc.Out(), nil
	}
}

// seqField is the seq a ROS 2 Header gets back in ROS1.
var seqField = &msgdef.Field{Name: "seq", Kind: msgdef.Uint32, Prim: "uint32"}

// addSeq passes a ROS 2 message's events to the ROS1 encoder: seq 0 before
// the fields of each Header, and the two fields of each builtin Time or
// Duration as one ROS1 time or duration.
type addSeq struct {
	enc  ros1.Encoder
	time *msgdef.Field // the builtin Time or Duration being read, or nil
	kind msgdef.Kind   // its ROS1 kind
	sec  int64
	nsec uint64
}

func (s *addSeq) BeginMessage(t *msgdef.Type) {
	if isROS2Header(t) {
		s.enc.Uint(seqField, 0)
	}
}
func (s *addSeq) EndMessage() {}
func (s *addSeq) BeginStruct(f *msgdef.Field) {
	switch ros1Builtin(f.Msg) {
	case "time":
		s.time, s.kind, s.sec, s.nsec = f, msgdef.Time, 0, 0
	case "duration":
		s.time, s.kind, s.sec, s.nsec = f, msgdef.Duration, 0, 0
	default:
		if isROS2Header(f.Msg) {
			s.enc.Uint(seqField, 0)
		}
	}
}
func (s *addSeq) EndStruct() {
	if s.time != nil {
		sec, nsec := ros1Time(s.kind, s.sec, s.nsec)
		s.enc.Time(s.time, sec, nsec)
		s.time = nil
	}
}
func (s *addSeq) BeginArray(f *msgdef.Field, n int) { s.enc.BeginArray(f, n) }
func (s *addSeq) EndArray()                         { s.enc.EndArray() }
func (s *addSeq) Bool(f *msgdef.Field, v bool)      { s.enc.Bool(f, v) }
func (s *addSeq) Int(f *msgdef.Field, v int64) {
	if s.time != nil {
		s.sec = v
		return
	}
	s.enc.Int(f, v)
}
func (s *addSeq) Uint(f *msgdef.Field, v uint64) {
	if s.time != nil {
		s.nsec = v
		return
	}
	s.enc.Uint(f, v)
}
func (s *addSeq) Float(f *msgdef.Field, v float64)      { s.enc.Float(f, v) }
func (s *addSeq) String(f *msgdef.Field, v []byte)      { s.enc.String(f, v) }
func (s *addSeq) Bytes(f *msgdef.Field, v []byte)       { s.enc.Bytes(f, v) }
func (s *addSeq) Time(f *msgdef.Field, sec, nsec int64) { s.enc.Time(f, sec, nsec) }

var _ sink.Sink = (*addSeq)(nil)

// A Conversion re-encodes one message: it appends the new encoding of src
// to dst and returns the extended slice, or dst unchanged in length and an
// error.
type Conversion func(dst, src []byte) ([]byte, error)

// ToROS1 returns the Conversion of messages of a channel into ROS1, not
// for concurrent use, and the channel to write them on. ROS1 channels pass
// through unchanged (nil Conversion). A ROS 2 type goes under the ROS1
// definition baglab knows of its name when that definition fits it
// (ros1Equivalent, the bytes transcoded as TranscodeROS2 does); unless
// keepROS2Fields, also when the definition can take its values by
// ros1_bridge's pairing although ROS 2 added fields (Marker's texture):
// the added fields are left out of the one pass, and the returned Left
// says which and counts the messages that held data in them (nil when
// nothing is left out). Otherwise the type keeps its own fields, under a
// ROS1 definition made of them.
func (r *Resolver) ToROS1(ch *record.Channel, keepROS2Fields bool) (Conversion, *record.Channel, *Left, error) {
	if ch.MessageEncoding == "ros1" {
		return nil, ch, nil, nil
	}
	dec, err := r.For(ch)
	if err != nil {
		return nil, nil, nil, err
	}
	out := &record.Channel{ID: ch.ID, Topic: ch.Topic, MessageEncoding: "ros1", Metadata: ch.Metadata}
	if k, paths, left := ros1Definition(r.reg, dec.Type()); len(paths) > 0 && !keepROS2Fields {
		out.Schema = &record.Schema{Name: k.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(k)), MD5: msgdef.MD5(k)}
		l := &Left{Type: dec.Type().FullName, As: k.Name, Fields: paths}
		return pairedConversion(dec, left, l), out, l, nil
	}
	if _, out.Schema, err = ros1Equivalent(dec.Type(), r.reg); err != nil {
		return nil, nil, nil, err
	}
	return TranscodeROS2(dec), out, nil, nil
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
