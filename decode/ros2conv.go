package decode

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
	"gopkg.in/yaml.v3"
)

// Renames are the ROS 2 names of ROS1 types, in ros1_bridge's
// mapping_rules.yaml form: a rule names a package (every type of it moves)
// or one message, and may map fields (fields_1_to_2: ROS1 field selection
// to ROS 2 field selection, each a path through nested messages).
type Renames struct {
	pkgs   map[string]string      // ros1 package -> ros2 package
	types  map[string]string      // ros1 pkg/Type -> ros2 pkg/Type
	fields map[string][]fieldRule // ros1 pkg/Type -> its fields_1_to_2
	native bool                   // see Native
}

// Native returns rn (which may be nil) with the ROS1 types whose ROS 2
// names the registry defines (a chosen distribution, --msg-path) written
// in those definitions' layouts, as ros1_bridge converts them: fields
// paired by the rules, then by name in lower case (CameraInfo's D is
// d); ROS 2 fields nothing pairs are zero. A type with a field that has
// no place in its ROS 2 definition keeps its ROS1 fields, and ToROS2
// says why. Without Native, types keep their ROS1 fields as
// rosbags-convert keeps them.
func (rn *Renames) Native() *Renames {
	out := &Renames{native: true}
	if rn != nil {
		out.pkgs, out.types, out.fields = rn.pkgs, rn.types, rn.fields
	}
	return out
}

// ErrRules is the error of renames that do not fit a recording's types:
// a rule's field selection that names no field of the ROS1 type or of its
// ROS 2 definition, or two types of a closure renamed to one ROS 2 name in
// two layouts (a bundle holds one definition per name). The recording is
// not at fault: the rules are.
var ErrRules = errors.New("mapping rules do not fit the recording")

// staticRenames are the renames rosbags-convert makes without rules.
var staticRenames = map[string]string{"tf/tfMessage": "tf2_msgs/TFMessage"}

// ParseMappingRules reads rules in ros1_bridge's mapping_rules.yaml format:
// a list of entries with ros1_package_name and ros2_package_name, and
// optionally ros1_message_name, ros2_message_name and fields_1_to_2, whose
// keys and values are field selections ("header.stamp": field names
// through nested messages). Service rules (ros1_service_name) do not
// apply to recordings and are left out.
//
// A message with fields_1_to_2 whose ROS 2 definition is known (a
// built-in distribution, --msg-path) is written in that layout as
// ros1_bridge converts it: each ROS 2 selection gets the value of its ROS1
// selection, fields no selection names are left out (ROS1) or zero (ROS 2);
// wherever the type appears, in arrays of messages too. Without the ROS 2
// definition only top-level renames apply, to the ROS1 layout.
func ParseMappingRules(data []byte) (*Renames, error) {
	var rules []struct {
		ROS1Package string            `yaml:"ros1_package_name"`
		ROS1Message string            `yaml:"ros1_message_name"`
		ROS1Service string            `yaml:"ros1_service_name"`
		ROS2Package string            `yaml:"ros2_package_name"`
		ROS2Message string            `yaml:"ros2_message_name"`
		Fields      map[string]string `yaml:"fields_1_to_2"`
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		return nil, &record.Error{Offset: -1, Err: record.ErrFormat, Detail: "mapping rules: " + err.Error()}
	}
	rn := &Renames{pkgs: map[string]string{}, types: map[string]string{}, fields: map[string][]fieldRule{}}
	for i, r := range rules {
		bad := func(why string) error {
			return &record.Error{Offset: -1, Field: fmt.Sprintf("rule %d", i+1), Err: record.ErrFormat, Detail: why}
		}
		switch {
		case r.ROS1Service != "":
			continue
		case r.ROS1Package == "" || r.ROS2Package == "":
			return nil, bad("ros1_package_name and ros2_package_name are required")
		case (r.ROS1Message == "") != (r.ROS2Message == ""):
			return nil, bad("ros1_message_name and ros2_message_name go together")
		case !msgdef.IsIdent(r.ROS1Package) || !msgdef.IsIdent(r.ROS2Package) ||
			(r.ROS1Message != "" && (!msgdef.IsIdent(r.ROS1Message) || !msgdef.IsIdent(r.ROS2Message))):
			return nil, bad(fmt.Sprintf("%s/%s → %s/%s: package and message names are letters, digits and _, a letter first", r.ROS1Package, r.ROS1Message, r.ROS2Package, r.ROS2Message))
		case r.ROS1Message == "":
			if len(r.Fields) > 0 {
				return nil, bad("fields_1_to_2 needs a message rule")
			}
			rn.pkgs[r.ROS1Package] = r.ROS2Package
			continue
		}
		from := r.ROS1Package + "/" + r.ROS1Message
		rn.types[from] = r.ROS2Package + "/" + r.ROS2Message
		to := map[string]bool{}
		for _, f1 := range slices.Sorted(maps.Keys(r.Fields)) {
			f2 := r.Fields[f1]
			p1, p2 := selection(f1), selection(f2)
			switch {
			case p1 == nil || p2 == nil:
				return nil, bad(fmt.Sprintf("fields_1_to_2 %q: %q: want field names joined by dots", f1, f2))
			case to[f2]:
				return nil, bad(fmt.Sprintf("fields_1_to_2: two fields go to %s", f2))
			}
			to[f2] = true
			rn.fields[from] = append(rn.fields[from], fieldRule{from: p1, to: p2})
		}
	}
	return rn, nil
}

// selection splits a field selection ("header.stamp") into field names,
// nil when it is not one.
func selection(s string) []string {
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if !msgdef.IsIdent(p) {
			return nil
		}
	}
	return parts
}

// ros2Name is the canonical ROS 2 name ("pkg/Type") of ROS1 type name.
func (rn *Renames) ros2Name(name string) string {
	if rn != nil {
		if n, ok := rn.types[name]; ok {
			return n
		}
	}
	if n, ok := staticRenames[name]; ok {
		return n
	}
	if rn != nil {
		pkg, base, _ := strings.Cut(name, "/")
		if p, ok := rn.pkgs[pkg]; ok {
			return p + "/" + base
		}
	}
	return name
}

// ros2Builtin are the texts of the ROS 2 types ROS1 primitives become.
var ros2Builtin = map[string]string{
	"builtin_interfaces/Time":     "int32 sec\nuint32 nanosec\n",
	"builtin_interfaces/Duration": "int32 sec\nuint32 nanosec\n",
	ros1.HeaderType:               "builtin_interfaces/msg/Time stamp\nstring frame_id\n",
}

// ROS2Equivalent returns the ROS 2 type rosbags-convert makes of ROS1 type
// t: pkg/Type becomes pkg/msg/Type (renamed by rn, which may be nil, and
// tf/tfMessage by tf2_msgs/TFMessage), std_msgs/Header loses seq, time
// and duration become builtin_interfaces/msg/Time and Duration, byte stays
// byte (ROS 2's octet, as common_interfaces has it: one byte on the wire,
// read unsigned) and char is uint8. Apart from Header.seq the wire
// layout is the ROS1 one, field for field, so that TranscodeROS1 can write
// the CDR as the ROS1 message is read.
func ROS2Equivalent(t *msgdef.Type, rn *Renames) (*msgdef.Type, error) {
	return new(ros2Maker).equivalent(t, rn, nil)
}

// ros2Maker makes ROS 2 equivalents, each type of them once: the ROS1
// types of a recording are shared by its connections (msgdef interns
// them), and so are the ROS 2 types made of them. What it makes is what
// msgdef.ParseBundle reads from the bundle of the equivalent (ros2Bundle):
// each type parsed from its ROS 2 text, its nested fields taking the types
// the bundle's sections of their names give. It is safe for concurrent use.
type ros2Maker struct {
	mu    sync.Mutex
	types map[ros2TypeKey]*msgdef.Type
	names map[typeRenames][]string // namesOf's
}

// ros2TypeKey names a ROS 2 type made of type t (ROS1, or the ROS 2
// definition a ROS1 type is mapped to): the renames, and the names of t's
// closure that the bundle takes from ROS 2 definitions ("pkg/Type\n"
// each), the only other things its ROS 2 type depends on.
type ros2TypeKey struct {
	t     *msgdef.Type
	rn    *Renames
	given string
}

// typeRenames names a type under renames.
type typeRenames struct {
	t  *msgdef.Type
	rn *Renames
}

// ros2Scope is what the types of one equivalent's closure are made under:
// the renames, and the ROS 2 definitions that its bundle holds in place
// of its ROS1 types, by canonical name: the types mapped to them
// (mappedTypes) and their dependencies.
type ros2Scope struct {
	rn    *Renames
	given map[string]*msgdef.Type
}

// equivalent returns the ROS 2 equivalent of ROS1 type t, with the types
// of its closure in m (which may be nil) written as their ROS 2
// definitions, with those definitions' dependencies, in place of their
// ROS1 layout.
func (mk *ros2Maker) equivalent(t *msgdef.Type, rn *Renames, m *mapping) (*msgdef.Type, error) {
	if t.Dialect != msgdef.ROS1 {
		return nil, fmt.Errorf("%s: not a ROS1 type", t.Name)
	}
	s := &ros2Scope{rn: rn}
	if m != nil {
		if t2 := m.types[t.Name]; t2 != nil {
			return t2, nil
		}
		_, given := splitMapped(t, m.types)
		s.given = make(map[string]*msgdef.Type, len(given))
		for _, d := range given {
			if s.given[d.Name] == nil { // a bundle's first section of a name is the one read
				s.given[d.Name] = d
			}
		}
	}
	mk.mu.Lock()
	defer mk.mu.Unlock()
	t2, err := mk.of(t, s)
	if err == nil {
		err = oneTypePerName(t2)
	}
	if err != nil {
		return nil, fmt.Errorf("ROS 2 equivalent of %s: %w", t.Name, err)
	}
	return t2, nil
}

// of returns the ROS 2 type of t under s: of a ROS1 type, its ROS 2 text
// (ros2Text) named as rn renames it; of a ROS 2 definition, its text with
// long references (longRefs). Each nested field takes the type of its
// ROS 2 name: the ROS 2 definition s gives for it, else the ROS 2 type of
// the field's own type (builtin_interfaces Time and Duration for ROS1 time
// and duration).
func (mk *ros2Maker) of(t *msgdef.Type, s *ros2Scope) (*msgdef.Type, error) {
	key := ros2TypeKey{t: t, rn: s.rn}
	if len(s.given) > 0 {
		var b strings.Builder
		for _, n := range mk.namesOf(t, s.rn) {
			if s.given[n] != nil {
				b.WriteString(n)
				b.WriteByte('\n')
			}
		}
		key.given = b.String()
	}
	if t2 := mk.types[key]; t2 != nil {
		return t2, nil
	}
	own := t.Name // the canonical ROS 2 name of t
	if t.Dialect == msgdef.ROS1 {
		own = s.rn.ros2Name(t.Name)
	}
	deps := map[string]*msgdef.Type{}
	from := map[string]*msgdef.Type{} // the type each of deps is made of (nil: a builtin)
	// add makes the type of a nested field whose ROS 2 name is name, of
	// src (nil: a builtin); two types of one name must make one type.
	add := func(name string, src *msgdef.Type) error {
		if g := s.given[name]; g != nil {
			src = g
		}
		if prev, ok := from[name]; ok && prev == src {
			return nil
		}
		if name == own && src != t {
			return fmt.Errorf("%w: %s and %s both become ROS 2 type %s, in two layouts", ErrRules, t.Name, typeName(src, name), ros2Name(name))
		}
		var d *msgdef.Type
		var err error
		if src == nil {
			d, err = mk.builtin(name)
		} else {
			d, err = mk.of(src, s)
		}
		if err != nil {
			return err
		}
		if prev, ok := deps[name]; ok && prev != d && !reflect.DeepEqual(prev, d) {
			return fmt.Errorf("%w: %s and %s both become ROS 2 type %s, in two layouts", ErrRules, typeName(from[name], name), typeName(src, name), ros2Name(name))
		}
		if _, ok := deps[name]; !ok {
			deps[name], from[name] = d, src
		}
		return nil
	}
	var name, text string
	if t.Dialect == msgdef.ROS2 {
		name, text = ros2Name(t.Name), longRefs(t.Text)
		for i := range t.Fields {
			if m := t.Fields[i].Msg; m != nil {
				if err := add(m.Name, m); err != nil {
					return nil, err
				}
			}
		}
	} else {
		name, text = ros2Name(s.rn.ros2Name(t.Name)), strings.TrimSuffix(ros2Text(t, s.rn), "\n")
		for _, b := range builtinsOf(t) {
			if err := add(b, nil); err != nil {
				return nil, err
			}
		}
		for i := range t.Fields {
			if m := t.Fields[i].Msg; m != nil && t.Name != ros1.HeaderType {
				if err := add(s.rn.ros2Name(m.Name), m); err != nil {
					return nil, err
				}
			}
		}
	}
	return mk.parse(key, name, text, deps)
}

// parse makes the ROS 2 type of text, named name, whose nested fields
// take the types of deps, and keeps it under key.
func (mk *ros2Maker) parse(key ros2TypeKey, name, text string, deps map[string]*msgdef.Type) (*msgdef.Type, error) {
	t, err := msgdef.ParseWithTypes(name, text, msgdef.ROS2, deps)
	if err != nil {
		return nil, err
	}
	if mk.types == nil {
		mk.types = map[ros2TypeKey]*msgdef.Type{}
	}
	mk.types[key] = t
	return t, nil
}

// builtinsOf lists the builtin_interfaces types ROS1 type t's own ROS 2
// text names: Time for std_msgs/Header and time fields, Duration for
// duration fields.
func builtinsOf(t *msgdef.Type) []string {
	if t.Name == ros1.HeaderType {
		return []string{"builtin_interfaces/Time"}
	}
	var out []string
	for i := range t.Fields {
		var n string
		switch t.Fields[i].Kind {
		case msgdef.Time:
			n = "builtin_interfaces/Time"
		case msgdef.Duration:
			n = "builtin_interfaces/Duration"
		default:
			continue
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// builtin returns the ROS 2 type of builtin_interfaces type name.
func (mk *ros2Maker) builtin(name string) (*msgdef.Type, error) {
	key := ros2TypeKey{given: name} // no type: the builtin of that name
	if t := mk.types[key]; t != nil {
		return t, nil
	}
	return mk.parse(key, ros2Name(name), strings.TrimSuffix(ros2Builtin[name], "\n"), nil)
}

// namesOf returns the ROS 2 names (as rn renames them) of t and every
// type of its closure, builtin_interfaces types included, sorted: the
// names whose definitions its ROS 2 type can take from a bundle's
// sections.
func (mk *ros2Maker) namesOf(t *msgdef.Type, rn *Renames) []string {
	key := typeRenames{t, rn}
	if n, ok := mk.names[key]; ok {
		return n
	}
	set := []string{t.Name}
	if t.Dialect == msgdef.ROS1 {
		set = append(builtinsOf(t), rn.ros2Name(t.Name))
	}
	for i := range t.Fields {
		if m := t.Fields[i].Msg; m != nil {
			set = append(set, mk.namesOf(m, rn)...)
		}
	}
	slices.Sort(set)
	set = slices.Compact(set)
	if mk.names == nil {
		mk.names = map[typeRenames][]string{}
	}
	mk.names[key] = set
	return set
}

// typeName names the type src for an error: its name, or the builtin
// name.
func typeName(src *msgdef.Type, builtin string) string {
	if src == nil {
		return builtin
	}
	return src.Name
}

// oneTypePerName checks that no two types of t's closure share a name: a
// bundle holds one definition per name, so two ROS1 types that become one
// ROS 2 name (by renames) must become one ROS 2 type.
func oneTypePerName(t *msgdef.Type) error {
	seen := map[string]*msgdef.Type{t.Name: t}
	for _, d := range dependencies(t) {
		if other := seen[d.Name]; other == nil {
			seen[d.Name] = d
		} else if !reflect.DeepEqual(other, d) {
			return fmt.Errorf("%w: two types become ROS 2 type %s, in two layouts", ErrRules, d.FullName)
		}
	}
	return nil
}

// ros2Text is the ROS 2 .msg text of one ROS1 type (see ROS2Equivalent).
func ros2Text(t *msgdef.Type, rn *Renames) string {
	if t.Name == ros1.HeaderType {
		return ros2Builtin[ros1.HeaderType]
	}
	fields := rn.renamesOf(t.Name)
	var b strings.Builder
	for _, c := range t.Constants {
		v := c.Value
		if c.Kind == msgdef.String {
			v = strconv.Quote(v)
		}
		b.WriteString(ros2Prim(c.Kind))
		b.WriteByte(' ')
		b.WriteString(c.Name)
		b.WriteByte('=')
		b.WriteString(v)
		b.WriteByte('\n')
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		typ := ros2Prim(f.Kind)
		if f.Prim == "byte" {
			typ = "byte" // ROS 2's octet, as common_interfaces write ROS1's byte fields
		}
		if f.Kind == msgdef.Struct {
			typ = ros2Name(rn.ros2Name(f.Msg.Name))
		}
		switch f.Array {
		case msgdef.Fixed:
			typ += "[" + strconv.Itoa(f.Len) + "]"
		case msgdef.Sequence:
			typ += "[]"
		}
		name := f.Name
		if n, ok := fields[name]; ok {
			name = n
		}
		b.WriteString(typ)
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('\n')
	}
	return b.String()
}

// ros2Prim is the ROS 2 name of the ROS1 primitive kind k, with the same
// wire size and signedness.
func ros2Prim(k msgdef.Kind) string {
	switch k {
	case msgdef.Time:
		return "builtin_interfaces/msg/Time"
	case msgdef.Duration:
		return "builtin_interfaces/msg/Duration"
	}
	return k.String() // uint8 for ROS1 char
}

// TranscodeROS1 returns the Conversion of messages of ROS1 type t1 into
// CDR of t2 = ROS2Equivalent(t1), dropping every Header's seq; ROS1 time
// and duration are the two 4-byte words of builtin_interfaces Time and
// Duration (a ROS1 time past 2038 keeps its bits). A ROS1 decoder's
// messages are copied field runs at a time (ros1.ToCDR); those it declines
// (errors to report, strings to repair) take one pass of dec straight into
// a CDR encoder (decodeROS1). It is not for concurrent use.
func TranscodeROS1(dec Decoder) Conversion {
	slow := decodeROS1(dec)
	d, ok := dec.(*ros1.Decoder)
	if !ok {
		return slow
	}
	fast := d.ToCDR()
	return func(dst, src []byte) ([]byte, error) {
		if out, ok := fast.Append(dst, src); ok {
			return out, nil
		}
		return slow(dst, src)
	}
}

// decodeROS1 is TranscodeROS1 by one pass of dec into a CDR encoder
// through dropSeq.
func decodeROS1(dec Decoder) Conversion {
	s := &dropSeq{}
	return func(dst, src []byte) ([]byte, error) {
		s.enc.Start(dst)
		if err := dec.Decode(src, s); err != nil {
			return dst, err
		}
		return s.enc.Out(), nil
	}
}

// dropSeq passes a ROS1 message's events to the CDR encoder, without the
// seq of each std_msgs/Header.
type dropSeq struct {
	enc    cdr.Encoder
	header []bool // per open struct: is it a Header
	first  bool   // the next field is the first of a Header
}

func (s *dropSeq) BeginMessage(t *msgdef.Type) {
	s.enc.BeginMessage(t)
	s.header = append(s.header[:0], t.Name == ros1.HeaderType)
	s.first = t.Name == ros1.HeaderType
}
func (s *dropSeq) EndMessage() { s.enc.EndMessage() }
func (s *dropSeq) BeginStruct(f *msgdef.Field) {
	s.first = false
	s.enc.BeginStruct(f)
	h := f.Msg.Name == ros1.HeaderType
	s.header = append(s.header, h)
	s.first = h
}
func (s *dropSeq) EndStruct() {
	s.first = false
	s.header = s.header[:len(s.header)-1]
	s.enc.EndStruct()
}
func (s *dropSeq) BeginArray(f *msgdef.Field, n int) { s.first = false; s.enc.BeginArray(f, n) }
func (s *dropSeq) EndArray()                         { s.enc.EndArray() }
func (s *dropSeq) Bool(f *msgdef.Field, v bool)      { s.first = false; s.enc.Bool(f, v) }
func (s *dropSeq) Int(f *msgdef.Field, v int64)      { s.first = false; s.enc.Int(f, v) }
func (s *dropSeq) Uint(f *msgdef.Field, v uint64) {
	if s.first && f.Name == "seq" {
		s.first = false
		return
	}
	s.first = false
	s.enc.Uint(f, v)
}
func (s *dropSeq) Float(f *msgdef.Field, v float64)      { s.first = false; s.enc.Float(f, v) }
func (s *dropSeq) String(f *msgdef.Field, v []byte)      { s.first = false; s.enc.String(f, v) }
func (s *dropSeq) Bytes(f *msgdef.Field, v []byte)       { s.first = false; s.enc.Bytes(f, v) }
func (s *dropSeq) Time(f *msgdef.Field, sec, nsec int64) { s.first = false; s.enc.Time(f, sec, nsec) }

var _ sink.Sink = (*dropSeq)(nil)

// ToROS2 returns the Conversion of messages of a channel into CDR of
// their ROS 2 type (ROS2Equivalent, names by rn), not for concurrent use,
// and the channel to write them on, carrying its RIHS01
// type_description_hash in Metadata, with a note for the user when Native
// renames leave a type in its ROS1 fields. CDR channels pass through (nil
// Conversion) with their definition; JSON ones are refused.
func (r *Resolver) ToROS2(ch *record.Channel, rn *Renames) (Conversion, *record.Channel, string, error) {
	switch ch.MessageEncoding {
	case "cdr":
		out, err := r.WithDefinition(ch)
		if err != nil {
			return nil, nil, "", err
		}
		c := *out
		c.Metadata = map[string]string{}
		if dec, err := r.For(ch); err == nil {
			c.Metadata["type_description_hash"] = msgdef.TypeHash(dec.Type())
		}
		return nil, &c, "", nil
	case "ros1":
	default:
		return nil, nil, "", fmt.Errorf("%w: topic %s has %s messages, which a ROS 2 recording cannot hold", record.ErrUnsupported, ch.Topic, ch.MessageEncoding)
	}
	dec, err := r.For(ch)
	if err != nil {
		return nil, nil, "", err
	}
	tgt, err := r.ros2Target(ch, dec, rn)
	if err != nil {
		return nil, nil, "", err
	}
	out := &record.Channel{ID: ch.ID, Topic: ch.Topic, MessageEncoding: "cdr",
		Schema:   &record.Schema{Name: tgt.name, Encoding: "ros2msg", Data: tgt.bundle},
		Metadata: map[string]string{"type_description_hash": tgt.hash}}
	if tgt.mapped != nil {
		return mappedConversion(dec, rn, tgt.mapped, tgt.t2), out, tgt.note, nil
	}
	return TranscodeROS1(dec), out, tgt.note, nil
}

// ros2Target is what ToROS2 makes of a ROS1 type under renames: the ROS 2
// type, its schema name and text, its RIHS01 hash, the mapping of the
// types in its closure written in ROS 2 definitions' layouts (nil:
// transcoded directly, when there is none or its bytes are the direct
// transcoding's), and the note of mappedTypes.
type ros2Target struct {
	t2     *msgdef.Type
	name   string
	bundle []byte
	hash   string
	mapped *mapping
	note   string
}

// memo keeps a value per key, made by the first of that key; an error is
// not kept. A nil *memo makes each value anew. It is safe for concurrent
// use (two callers may both make a value; the first kept wins).
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// of is the value of k, made by make the first time.
func (c *memo[K, V]) of(k K, make func() (V, error)) (V, error) {
	if c == nil {
		return make()
	}
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.m[k]; ok {
		return kept, nil
	}
	if c.m == nil {
		c.m = map[K]V{}
	}
	c.m[k] = v
	return v, nil
}

// sections memoizes the bundle sections of the types that many ROS 2
// equivalents of a recording share (std_msgs/Header,
// geometry_msgs/Point...), by type: ros2Maker makes each type once.
type sections = memo[*msgdef.Type, string]

// ros2Key names a ros2Target: the ROS1 type (one per compiled schema) and
// the renames.
type ros2Key struct {
	t1 *msgdef.Type
	rn *Renames
}

// ros2Target returns the ros2Target of dec's type under rn, worked out
// once for every channel of that type (the splits of a recording repeat
// their connections); errors name ch's topic.
func (r *Resolver) ros2Target(ch *record.Channel, dec Decoder, rn *Renames) (*ros2Target, error) {
	key := ros2Key{dec.Type(), rn}
	r.mu.Lock()
	tgt := r.ros2[key]
	r.mu.Unlock()
	if tgt != nil {
		return tgt, nil
	}
	mapped, note, err := rn.mappedTypes(key.t1, r.reg, &r.pairings)
	if err != nil {
		return nil, &record.Error{Offset: -1, Topic: ch.Topic, Err: err}
	}
	tgt = &ros2Target{mapped: mapped, note: note}
	if tgt.t2, err = r.ros2Types.equivalent(key.t1, rn, mapped); err != nil {
		return nil, err
	}
	tgt.name = tgt.t2.FullName
	if mapped != nil {
		tgt.name = ros2Name(tgt.t2.Name)
		if mapped.positional {
			tgt.mapped = nil // field i to field i, the same bytes: transcoded directly
		}
	}
	tgt.bundle, tgt.hash = ros2Bundle(tgt.t2, &r.sections), msgdef.TypeHash(tgt.t2)
	r.mu.Lock()
	r.ros2[key] = tgt
	r.mu.Unlock()
	return tgt, nil
}
