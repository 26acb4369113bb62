package decode

import (
	"fmt"
	"slices"
	"strings"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// fieldRule is one entry of a rule's fields_1_to_2: a ROS1 field selection
// and the ROS 2 one it goes to, each a path of field names through nested
// messages ("header.stamp").
type fieldRule struct{ from, to []string }

// renamesOf are the top-level field renames of ROS1 type name, the only
// field rules that apply when its ROS 2 definition is unknown (the ROS1
// layout is kept, fields renamed).
func (rn *Renames) renamesOf(name string) map[string]string {
	if rn == nil || len(rn.fields[name]) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, r := range rn.fields[name] {
		if len(r.from) == 1 && len(r.to) == 1 {
			out[r.from[0]] = r.to[0]
		}
	}
	return out
}

// mapping is what mappedTypes finds in the closure of a ROS1 type: the
// types written in the layouts of their ROS 2 definitions (by ROS1 name),
// the field rules each is built by, and whether the rules of every one
// take field i to field i, all of them, each of one wire shape (then the
// bytes of the direct transcoding are those of the rules).
type mapping struct {
	types      map[string]*msgdef.Type
	rules      map[string][]fieldRule
	positional bool
}

// mappedTypes returns, for every type of t's closure that a rule gives
// fields_1_to_2 and whose ROS 2 definition reg knows (built-in
// distribution, --msg-path), that definition: such a type is written in
// its ROS 2 layout, as ros1_bridge converts it. A rule with a nested
// selection for a type whose ROS 2 definition is unknown is an error; one
// with top-level renames only keeps the ROS1 layout with fields renamed.
//
// With Native renames, every type of the closure whose ROS 2 definition
// reg knows (std_msgs/Header aside, whose seq alone goes) is mapped too,
// its fields paired as ros1_bridge pairs them (nativeRules). When a
// field of any of them has no place of its shape in the ROS 2
// definition, none is (the rules alone apply) and note says why: no
// field is ever left out. Each type's pairing (pair) is kept in pairs,
// which may be nil.
func (rn *Renames) mappedTypes(t *msgdef.Type, reg *msgdef.Registry, pairs *pairings) (m *mapping, note string, err error) {
	if rn == nil || (len(rn.fields) == 0 && !rn.native) {
		return nil, "", nil
	}
	m = &mapping{types: map[string]*msgdef.Type{}, rules: map[string][]fieldRule{}, positional: true}
	var unfit []string
	for _, d := range append([]*msgdef.Type{t}, dependencies(t)...) {
		p, err := pairs.of(typeRenames{d, rn}, func() (pairing, error) { return rn.pair(d, reg) })
		if err != nil {
			return nil, "", err
		}
		if p.t2 == nil {
			continue
		}
		if p.why != "" {
			unfit = append(unfit, p.why)
		}
		m.types[d.Name], m.rules[d.Name] = p.t2, p.rules
		m.positional = m.positional && p.positional
	}
	if len(unfit) > 0 {
		note = fmt.Sprintf("%s keeps its ROS1 fields, as without --distro (%s)", t.Name, strings.Join(unfit, "; "))
		for name := range m.types {
			if manual := rn.fields[name]; len(manual) > 0 {
				m.rules[name] = manual
			} else {
				delete(m.types, name)
				delete(m.rules, name)
			}
		}
		m.positional = false
	}
	if len(m.types) == 0 {
		return nil, note, nil
	}
	return m, note, nil
}

// pairing is what mappedTypes finds for one type of a closure: the ROS 2
// definition it is written as (nil: none), the rules it is built by,
// whether they take field i to field i (see mapping), and why it does not
// fit that definition (nativeRules).
type pairing struct {
	t2         *msgdef.Type
	rules      []fieldRule
	positional bool
	why        string
}

// pairings memoizes the pairing of each ROS1 type under renames: the
// connections of a recording share their types.
type pairings = memo[typeRenames, pairing]

// pair is the pairing of ROS1 type d under rn: a type a rule gives
// fields_1_to_2, or any with Native renames (std_msgs/Header aside),
// whose ROS 2 definition reg knows is written as that definition. Rules
// that do not fit d are ErrRules: a selection of a field d (or its ROS 2
// definition) lacks, a rename onto another field's name. A nested
// selection for a type whose ROS 2 definition is unknown is unsupported.
func (rn *Renames) pair(d *msgdef.Type, reg *msgdef.Registry) (pairing, error) {
	manual := rn.fields[d.Name]
	if len(manual) == 0 && (!rn.native || d.Name == ros1.HeaderType) {
		return pairing{}, nil
	}
	for _, r := range manual {
		if err := checkSelection(d, r.from); err != nil {
			return pairing{}, fmt.Errorf("%w: rule for %s: fields_1_to_2 %s: %v", ErrRules, d.Name, strings.Join(r.from, "."), err)
		}
	}
	target := ros2Name(rn.ros2Name(d.Name))
	t2, err := reg.Lookup(target)
	if err != nil || t2.Dialect != msgdef.ROS2 {
		for _, r := range manual {
			if len(r.from) > 1 || len(r.to) > 1 {
				return pairing{}, fmt.Errorf("%w: mapping rule for %s: fields_1_to_2 %s: %s: a nested field selection needs the ROS 2 definition of %s (--distro or --msg-path)",
					record.ErrUnsupported, d.Name, strings.Join(r.from, "."), strings.Join(r.to, "."), target)
			}
		}
		// The ROS1 fields, renamed, must keep names of their own.
		renames, names := rn.renamesOf(d.Name), map[string]string{}
		for i := range d.Fields {
			name := d.Fields[i].Name
			if n, ok := renames[name]; ok {
				name = n
			}
			if other, taken := names[name]; taken {
				return pairing{}, fmt.Errorf("%w: rule for %s: fields_1_to_2: %s and %s both become field %s", ErrRules, d.Name, other, d.Fields[i].Name, name)
			}
			names[name] = d.Fields[i].Name
		}
		return pairing{}, nil
	}
	for _, r := range manual {
		if err := checkSelection(t2, r.to); err != nil {
			return pairing{}, fmt.Errorf("%w: rule for %s: fields_1_to_2 %s: %s: %v", ErrRules, d.Name, strings.Join(r.from, "."), strings.Join(r.to, "."), err)
		}
	}
	p := pairing{t2: t2, rules: manual}
	if rn.native {
		p.rules, p.positional, p.why = rn.nativeRules(d, t2, manual)
	}
	return p, nil
}

// pairedField is the index of ROS 2 type t2's field that ROS1's field
// name1 pairs with as ros1_bridge pairs fields by name: name1 in lower
// case (CameraInfo's D is d), or -1.
func pairedField(t2 *msgdef.Type, name1 string) int {
	lower := strings.ToLower(name1)
	return slices.IndexFunc(t2.Fields, func(f msgdef.Field) bool { return f.Name == lower })
}

// nativeRules pairs the fields of ROS1 type d with those of t2, the ROS 2
// definition of its name, as ros1_bridge pairs them: the manual rules
// first, then every other field with the ROS 2 field of its name in lower
// case (CameraInfo's D goes to d). It returns the rules, whether they take
// field i to field i, all of them, each of the same wire shape (the direct
// transcoding then writes what the rules build), and why d does not fit
// t2 ("" when it does): a field with no ROS 2 field of its name, or one
// whose values have no place there (fieldFits). A type with manual rules
// always fits: fields neither they nor a name pair are left out, as
// ros1_bridge leaves them.
func (rn *Renames) nativeRules(d, t2 *msgdef.Type, manual []fieldRule) (rules []fieldRule, positional bool, why string) {
	rules = slices.Clone(manual)
	covered, taken := map[string]bool{}, map[string]bool{}
	for _, r := range manual {
		covered[r.from[0]], taken[r.to[0]] = true, true
	}
	positional = len(manual) == 0 && len(d.Fields) == len(t2.Fields)
	var missing, unlike []string
	for i := range d.Fields {
		f1 := &d.Fields[i]
		if covered[f1.Name] {
			continue
		}
		j := pairedField(t2, f1.Name)
		switch {
		case j < 0 || taken[t2.Fields[j].Name]:
			missing = append(missing, f1.Name)
		case !rn.fieldFits(f1, &t2.Fields[j]):
			unlike = append(unlike, f1.Name)
		default:
			f2 := &t2.Fields[j]
			taken[f2.Name] = true
			rules = append(rules, fieldRule{from: []string{f1.Name}, to: []string{f2.Name}})
			positional = positional && i == j && f1.Array == f2.Array
		}
	}
	if len(manual) > 0 {
		return rules, false, "" // the rules leave the others out, as ros1_bridge's do
	}
	var whys []string
	if len(missing) > 0 {
		whys = append(whys, fmt.Sprintf("%s's %s: no field of that name in ROS 2's %s", d.Name, strings.Join(missing, ", "), t2.FullName))
	}
	if len(unlike) > 0 {
		whys = append(whys, fmt.Sprintf("%s's %s: another type or shape in ROS 2's %s", d.Name, strings.Join(unlike, ", "), t2.FullName))
	}
	return rules, positional, strings.Join(whys, "; ")
}

// fieldFits reports whether every value of ROS1 field f1 has a place in
// ROS 2 field f2: the same kind (kindAlike, f1's message under its ROS 2
// name), and an array where f2 has one of any length (or of f1's fixed
// length when f2 is fixed), f2 unbounded.
func (rn *Renames) fieldFits(f1, f2 *msgdef.Field) bool {
	name2 := ""
	if f1.Msg != nil {
		name2 = rn.ros2Name(f1.Msg.Name)
	}
	if !kindAlike(f1, f2, name2) || f2.StringBound != 0 {
		return false
	}
	switch f2.Array {
	case msgdef.Scalar:
		return f1.Array == msgdef.Scalar
	case msgdef.Fixed:
		return f1.Array == msgdef.Fixed && f1.Len == f2.Len
	}
	return f1.Array != msgdef.Scalar && f2.Len == 0
}

// checkSelection checks that path names a field of t, through nested
// messages that are not arrays (ros1_bridge's field selections).
func checkSelection(t *msgdef.Type, path []string) error {
	f, err := selectField(t, path)
	if err == nil && f == nil {
		err = fmt.Errorf("no field %s in %s", strings.Join(path, "."), t.Name)
	}
	return err
}

// selectField returns the field path names in t, nil when there is none.
func selectField(t *msgdef.Type, path []string) (*msgdef.Field, error) {
	for i, name := range path {
		if t == nil {
			return nil, nil
		}
		f := t.Field(name)
		if f == nil || i == len(path)-1 {
			return f, nil
		}
		if f.Kind != msgdef.Struct || f.Array != msgdef.Scalar {
			return nil, fmt.Errorf("%s in %s is not a message to select a field of", name, t.Name)
		}
		t = f.Msg
	}
	return nil, nil
}

// mappedConversion is ToROS2's Conversion for a channel of ROS1 type
// dec.Type() whose closure holds the types of m, into t2
// (ros2Maker.equivalent): each message is decoded into a value tree and built
// in the ROS 2 layout.
func mappedConversion(dec Decoder, rn *Renames, m *mapping, t2 *msgdef.Type) Conversion {
	t1 := dec.Type()
	c := &ruleConv{rn: rn, m: m}
	return func(dst, src []byte) ([]byte, error) {
		v1, err := dec.DecodeValue(src)
		if err != nil {
			return dst, err
		}
		v2, err := c.message(v1, t2)
		if err != nil {
			return dst, fmt.Errorf("%w: %s as %s: %v", record.ErrFormat, t1.Name, t2.FullName, err)
		}
		return cdr.AppendEncode(dst, v2, false)
	}
}

// ruleConv builds ROS 2 values from ROS1 ones by the rules.
type ruleConv struct {
	rn *Renames
	m  *mapping
}

// message builds the value of ROS 2 type t2 from ROS1 message v: a type
// of the mapping takes each selection of its rules (ROS 2 fields no selection
// names stay zero, ROS1 fields none names are left out, as ros1_bridge
// does); another takes its fields by name (renamed by top-level rules), so
// that Header loses seq.
func (c *ruleConv) message(v *value.Struct, t2 *msgdef.Type) (*value.Struct, error) {
	out := value.New(t2)
	t1 := v.Type
	if c.m.types[t1.Name] != nil {
		for _, r := range c.m.rules[t1.Name] {
			x, ok := v.Lookup(strings.Join(r.from, "."))
			f1, _ := selectField(t1, r.from)
			f2, _ := selectField(t2, r.to)
			if !ok || f1 == nil || f2 == nil {
				return nil, fmt.Errorf("no field %s or %s", strings.Join(r.from, "."), strings.Join(r.to, "."))
			}
			if err := c.set(out, strings.Join(r.to, "."), x, f1, f2); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	renames := c.rn.renamesOf(t1.Name)
	for i := range t1.Fields {
		f1 := &t1.Fields[i]
		name := f1.Name
		if n, ok := renames[name]; ok {
			name = n
		}
		f2 := t2.Field(name)
		if f2 == nil {
			continue // Header.seq
		}
		if err := c.set(out, name, v.Fields[i], f1, f2); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// set stores ROS1 value x of field f1 at path of out, whose field is f2.
func (c *ruleConv) set(out *value.Struct, path string, x any, f1, f2 *msgdef.Field) error {
	y, err := c.field(x, f1, f2)
	if err == nil {
		err = out.Set(path, y)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// field converts a whole ROS1 field value (array element by element).
func (c *ruleConv) field(x any, f1, f2 *msgdef.Field) (any, error) {
	if (f1.Array == msgdef.Scalar) != (f2.Array == msgdef.Scalar) {
		return nil, fmt.Errorf("array %s and non-array %s, or the reverse", f1.Name, f2.Name)
	}
	switch xs := x.(type) {
	case []byte:
		if f2.IsBlob() {
			return xs, nil
		}
		out := make([]any, len(xs))
		for i, b := range xs {
			out[i] = uint64(b)
		}
		return out, nil
	case []any:
		out := make([]any, len(xs))
		for i, e := range xs {
			y, err := c.elem(e, f1, f2)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = y
		}
		return out, nil
	}
	return c.elem(x, f1, f2)
}

// elem converts one ROS1 element for ROS 2 field f2: a message by its
// rule or by name, time and duration to builtin_interfaces Time and
// Duration (a time past 2038 keeps its bits, as the CDR transcoding does);
// a ROS1 byte keeps its bits in an unsigned field (the ROS 2 byte is
// unsigned); other numbers and strings go as they are (value.Set checks
// their range).
func (c *ruleConv) elem(x any, f1, f2 *msgdef.Field) (any, error) {
	switch v := x.(type) {
	case *value.Struct:
		if f2.Kind != msgdef.Struct {
			return nil, fmt.Errorf("message %s for %s field %s", v.Type.Name, f2.Kind, f2.Name)
		}
		return c.message(v, f2.Msg)
	case value.Time:
		if f2.Kind == msgdef.Struct {
			return secNanosec(f2.Msg, int64(int32(uint32(v.Sec))), uint64(uint32(v.Nsec)))
		}
	case value.Duration:
		if f2.Kind == msgdef.Struct {
			return secNanosec(f2.Msg, int64(int32(v.Sec)), uint64(uint32(int32(v.Nsec))))
		}
	case int64:
		switch f2.Kind {
		case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
			if f1.Prim == "byte" {
				return uint64(uint8(v)), nil
			}
		}
	}
	return x, nil
}

// secNanosec is a builtin_interfaces Time or Duration value of type t.
func secNanosec(t *msgdef.Type, sec int64, nanosec uint64) (*value.Struct, error) {
	s := value.New(t)
	if err := s.Set("sec", sec); err != nil {
		return nil, err
	}
	if err := s.Set("nanosec", nanosec); err != nil {
		return nil, err
	}
	return s, nil
}

// splitMapped lists the dependencies of ROS1 type t as written in ROS 2:
// the ROS1 types reached without passing through a type in mapped, and
// the ROS 2 definitions of the mapped ones with their own dependencies.
func splitMapped(t *msgdef.Type, mapped map[string]*msgdef.Type) (ros1, ros2 []*msgdef.Type) {
	seen := map[string]bool{t.Name: true}
	var walk1, walk2 func(*msgdef.Type)
	walk2 = func(t *msgdef.Type) {
		for i := range t.Fields {
			if m := t.Fields[i].Msg; m != nil && !seen["2:"+m.Name] {
				seen["2:"+m.Name] = true
				ros2 = append(ros2, m)
				walk2(m)
			}
		}
	}
	walk1 = func(t *msgdef.Type) {
		for i := range t.Fields {
			m := t.Fields[i].Msg
			if m == nil {
				continue
			}
			if t2 := mapped[m.Name]; t2 != nil {
				if !seen["2:"+t2.Name] {
					seen["2:"+t2.Name] = true
					ros2 = append(ros2, t2)
					walk2(t2)
				}
				continue
			}
			if !seen[m.Name] {
				seen[m.Name] = true
				ros1 = append(ros1, m)
				walk1(m)
			}
		}
	}
	walk1(t)
	return ros1, ros2
}

// longRefs rewrites the pkg/Type field types of a ROS 2 definition text
// (as .msg files and the built-in distributions write them) as
// pkg/msg/Type, the form of the MSG: lines of the bundles baglab writes:
// readers such as @foxglove/rosmsg match a qualified name exactly. The
// text's trailing newlines are dropped.
func longRefs(text string) string {
	text = strings.TrimRight(text, "\n")
	var b strings.Builder
	b.Grow(len(text) + 64)
	for {
		line, rest, more := strings.Cut(text, "\n")
		if at := qualifiedRef(line); at > 0 {
			b.WriteString(line[:at])
			b.WriteString("msg/")
			b.WriteString(line[at:])
		} else {
			b.WriteString(line)
		}
		if !more {
			return b.String()
		}
		b.WriteByte('\n')
		text = rest
	}
}

// qualifiedRef returns where the type name starts after "pkg/" in a field
// line whose type is a message named pkg/Type (spaces, then pkg/Type
// followed by a space, '[' or '<'), or 0 for any other line.
func qualifiedRef(line string) int {
	start := len(line) - len(strings.TrimLeft(line, fieldSpace))
	n := strings.IndexAny(line[start:], fieldSpace+"[<")
	if n < 0 {
		return 0
	}
	pkg, typ, ok := strings.Cut(line[start:start+n], "/")
	if !ok || !msgdef.IsIdent(pkg) || !msgdef.IsIdent(typ) {
		return 0
	}
	return start + len(pkg) + 1
}

// fieldSpace is the space that may lead a field line and end its type, as
// regular expressions' \s has it.
const fieldSpace = " \t\n\f\r"
