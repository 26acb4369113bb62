package msgdef

import (
	"fmt"
	"sort"
	"strings"

	"github.com/baglab/baglab/record"
)

// section is one part of a definition bundle.
type section struct {
	// kind is the header keyword ("MSG", "SRV", "IDL"), "" for the text
	// before the first separator.
	kind string
	name string
	text string
	line int // 1-based line of the bundle where the header is (0 for the main text)
}

// isSeparator reports whether line is a bundle separator: a line of '='
// only (genmsg and rosbag2 write 80 of them).
func isSeparator(line string) bool {
	line = strings.TrimSpace(line)
	if len(line) < 3 {
		return false
	}
	return strings.Trim(line, "=") == ""
}

// splitBundle splits a stored definition into its main text and the
// dependency sections that follow separator + "MSG: name" lines. Every
// section's text is exact: the newline before a separator belongs to the
// separator, so FullText output splits back into the original texts.
// When the text starts with a separator, the first section takes the
// place of the main text.
func splitBundle(bundleName, text string) ([]section, error) {
	secs := []section{{}}
	start, pos, ln := 0, 0, 1
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		if isSeparator(text[pos:end]) {
			cur := &secs[len(secs)-1]
			cur.text = text[start:max(start, pos-1)]
			if end == len(text) {
				return nil, &Error{Type: bundleName, Msg: fmt.Sprintf("bundle line %d: separator without a MSG: line", ln), Err: record.ErrFormat}
			}
			hstart := end + 1
			hend := strings.IndexByte(text[hstart:], '\n')
			if hend < 0 {
				hend = len(text)
			} else {
				hend += hstart
			}
			kind, name, ok := strings.Cut(strings.TrimSpace(text[hstart:hend]), ":")
			if !ok || (kind != "MSG" && kind != "SRV" && kind != "IDL") {
				return nil, &Error{Type: bundleName, Msg: fmt.Sprintf("bundle line %d: separator not followed by a MSG: line", ln+1), Err: record.ErrFormat}
			}
			if pos == 0 {
				secs = secs[:0] // the text starts with a header: no main text
			}
			secs = append(secs, section{kind: kind, name: strings.TrimSpace(name), line: ln + 1})
			ln += 2
			pos = min(hend+1, len(text))
			start = pos
			continue
		}
		ln++
		pos = end + 1
	}
	secs[len(secs)-1].text = text[min(start, len(text)):]
	return secs, nil
}

// resolver turns parsed definitions into Type trees, looking names up in
// the bundle first and then in a registry snapshot.
type resolver struct {
	dialect Dialect
	top     string
	local   map[string]*source
	reg     *regData
	done    map[string]*Type
	active  []string
	missing map[string]string    // missing type -> where it was referenced
	byShort map[string][]*source // local sources by base name, built on first need
	key     []byte               // intern's buffer
}

func newResolver(d Dialect, reg *regData) *resolver {
	return &resolver{dialect: d, local: map[string]*source{}, reg: reg, done: map[string]*Type{}, missing: map[string]string{}}
}

// addLocal adds the dependency sections of a bundle. The first definition
// of a name wins; registry entries never override them.
func (r *resolver) addLocal(bundleName string, secs []section) error {
	for _, s := range secs {
		if s.kind != "MSG" {
			if s.kind == "IDL" {
				return &Error{Type: bundleName, Msg: fmt.Sprintf("bundle line %d: IDL definitions are not supported", s.line), Err: record.ErrUnsupported}
			}
			return &Error{Type: bundleName, Msg: fmt.Sprintf("bundle line %d: unexpected %s: section", s.line, s.kind), Err: record.ErrFormat}
		}
		name, ok := canonical(s.name)
		if !ok {
			return &Error{Type: bundleName, Msg: fmt.Sprintf("bundle line %d: invalid type name %q", s.line, s.name), Err: record.ErrFormat}
		}
		if r.local[name] == nil {
			r.local[name] = &source{name: name, fullName: s.name, dialect: r.dialect, text: s.text}
		}
	}
	return nil
}

// find returns the definition of a canonical name: bundle first, then the
// registry (same dialect only: a ROS1 std_msgs/Header is not a ROS2 one).
func (r *resolver) find(name string) *source {
	if s := r.local[name]; s != nil {
		return s
	}
	if r.reg != nil {
		return r.reg.msg(r.dialect, name)
	}
	return nil
}

// findRef finds the type a field refers to. A name written without a
// package that is not found in its own package falls back to the only
// bundle section with that base name, as tolerant readers do.
func (r *resolver) findRef(f *rawField) *source {
	for _, n := range f.refs {
		if s := r.find(n); s != nil {
			return s
		}
	}
	if f.short == "" {
		return nil
	}
	if r.byShort == nil {
		r.byShort = map[string][]*source{}
		for n, s := range r.local {
			short := n[strings.IndexByte(n, '/')+1:]
			r.byShort[short] = append(r.byShort[short], s)
		}
	}
	if c := r.byShort[f.short]; len(c) == 1 {
		return c[0]
	}
	return nil
}

// resolve resolves src and everything it uses.
func (r *resolver) resolve(src *source) (*Type, error) {
	if t := r.done[src.name]; t != nil {
		return t, nil
	}
	for i, a := range r.active {
		if a == src.name {
			chain := append(append([]string{}, r.active[i:]...), src.name)
			return nil, &Error{Type: r.top, Msg: "recursive type: " + strings.Join(chain, " -> "), Err: record.ErrFormat}
		}
	}
	if len(r.active) >= MaxDepth {
		return nil, &Error{Type: r.top, Msg: fmt.Sprintf("types nested deeper than %d", MaxDepth), Err: record.ErrFormat}
	}
	d, err := src.parsed()
	if err != nil {
		return nil, err
	}
	r.active = append(r.active, src.name)
	var kids []*Type // the nested fields' types, nil where missing
	for i := range d.fields {
		rf := &d.fields[i]
		if rf.Kind != Struct {
			continue
		}
		var m *Type
		if dep := r.findRef(rf); dep == nil {
			if _, seen := r.missing[rf.refs[0]]; !seen {
				r.missing[rf.refs[0]] = fmt.Sprintf("%s line %d", d.fullName, rf.line)
			}
		} else if m, err = r.resolve(dep); err != nil {
			return nil, err
		}
		kids = append(kids, m)
	}
	r.active = r.active[:len(r.active)-1]
	t := r.intern(d, src.distro, kids)
	r.done[src.name] = t
	return t, nil
}

// intern returns the type of d whose nested fields are kids, in order:
// one kept in internedTypes when there is one.
func (r *resolver) intern(d *def, distro string, kids []*Type) *Type {
	var k typeKey
	var t *Type
	k, r.key, t = internedKey(d, distro, kids, r.key)
	if t != nil {
		return t
	}
	t = &Type{Name: d.name, FullName: d.fullName, Dialect: d.dialect, Text: d.text, Constants: d.consts, Fields: make([]Field, len(d.fields)), Distro: distro}
	next := 0
	for i := range d.fields {
		t.Fields[i] = d.fields[i].Field
		if d.fields[i].Kind == Struct {
			t.Fields[i].Msg = kids[next]
			next++
		}
	}
	if k.def != nil {
		return intern(k, t)
	}
	return t
}

// maxListed bounds the number of missing types an error names.
const maxListed = 100

// finish reports the types that could not be found and checks the size
// limit of the result.
func (r *resolver) finish(t *Type) (*Type, error) {
	if len(r.missing) > 0 {
		names := make([]string, 0, len(r.missing))
		for n := range r.missing {
			names = append(names, n)
		}
		sort.Strings(names)
		more := len(names) - maxListed
		if more > 0 {
			names = names[:maxListed]
		}
		for i, n := range names {
			names[i] = n + " (used in " + r.missing[n] + ")"
		}
		if more > 0 {
			names = append(names, fmt.Sprintf("and %d more", more))
		}
		return nil, &Error{Type: r.top, Msg: "no definition for " + strings.Join(names, ", "), Err: record.ErrUnknownType}
	}
	if n := expandedFields(t, map[*Type]int{}); n > MaxExpandedFields {
		return nil, &Error{Type: r.top, Msg: fmt.Sprintf("type expands to more than %d fields", MaxExpandedFields), Err: record.ErrFormat}
	}
	return t, nil
}

// expandedFields counts the fields of t as a tree, saturating just above
// MaxExpandedFields.
func expandedFields(t *Type, memo map[*Type]int) int {
	if n, ok := memo[t]; ok {
		return n
	}
	n := 0
	for i := range t.Fields {
		n++
		if m := t.Fields[i].Msg; m != nil {
			n += expandedFields(m, memo)
		}
		if n > MaxExpandedFields {
			n = MaxExpandedFields + 1
			break
		}
	}
	memo[t] = n
	return n
}

// ParseBundle parses a definition as a recording stores it: the text of
// the type name, optionally followed by its dependencies, each after a line
// of 80 '=' and a "MSG: pkg/Type" (or ROS2 "MSG: pkg/msg/Type") line.
// Types the bundle does not define are taken from reg (which may be nil);
// definitions in the bundle always win. name may be "pkg/Type" or
// "pkg/msg/Type"; the result's Name is "pkg/Type" and its FullName is name.
//
// The returned Type and the types it points to are shared and must not be
// modified. Errors are *Error values; a missing type unwraps to
// record.ErrUnknownType and names every type that could not be found.
func ParseBundle(name string, text string, d Dialect, reg *Registry) (*Type, error) {
	cname, ok := canonical(name)
	if !ok {
		return nil, &Error{Type: name, Msg: "invalid type name (want pkg/Type)", Err: record.ErrFormat}
	}
	if d != ROS1 && d != ROS2 {
		return nil, &Error{Type: name, Msg: "unknown dialect " + d.String(), Err: record.ErrUnsupported}
	}
	secs, err := splitBundle(name, text)
	if err != nil {
		return nil, err
	}
	if secs[0].kind == "MSG" {
		secs[0].kind = "" // the text began with its own header
	}
	if secs[0].kind != "" {
		return nil, &Error{Type: name, Msg: "definition starts with a " + secs[0].kind + ": section, not a message", Err: record.ErrUnsupported}
	}
	r := newResolver(d, reg.snapshot())
	r.top = name
	main := &source{name: cname, fullName: name, dialect: d, text: secs[0].text}
	r.local[cname] = main
	if err := r.addLocal(name, secs[1:]); err != nil {
		return nil, err
	}
	t, err := r.resolve(main)
	if err != nil {
		return nil, err
	}
	return r.finish(t)
}

// ParseWithTypes parses text, the own definition of type name in dialect
// d, with its nested fields' types taken from deps by canonical name
// ("pkg/Type"): the type ParseBundle makes of a bundle of text followed by
// sections that parse into deps, without writing their texts again. A
// name deps lacks is an error unwrapping to record.ErrUnknownType; the
// nesting and size bounds apply to the whole tree.
func ParseWithTypes(name, text string, d Dialect, deps map[string]*Type) (*Type, error) {
	cname, ok := canonical(name)
	if !ok {
		return nil, &Error{Type: name, Msg: "invalid type name (want pkg/Type)", Err: record.ErrFormat}
	}
	if d != ROS1 && d != ROS2 {
		return nil, &Error{Type: name, Msg: "unknown dialect " + d.String(), Err: record.ErrUnsupported}
	}
	r := newResolver(d, nil)
	r.top = name
	for n, t := range deps {
		if n != cname { // the text's own name is the text, as in a bundle
			r.local[n], r.done[n] = &source{name: n, fullName: t.FullName, dialect: t.Dialect}, t
		}
	}
	main := &source{name: cname, fullName: name, dialect: d, text: text}
	r.local[cname] = main
	t, err := r.resolve(main)
	if err != nil {
		return nil, err
	}
	if nestingLevels(t, map[*Type]int{}) > MaxDepth {
		return nil, &Error{Type: name, Msg: fmt.Sprintf("types nested deeper than %d", MaxDepth), Err: record.ErrFormat}
	}
	return r.finish(t)
}

// nestingLevels is the number of levels of t's tree: 1 for a type with no
// nested message.
func nestingLevels(t *Type, memo map[*Type]int) int {
	if n, ok := memo[t]; ok {
		return n
	}
	n := 1
	for i := range t.Fields {
		if m := t.Fields[i].Msg; m != nil {
			n = max(n, 1+nestingLevels(m, memo))
		}
	}
	memo[t] = n
	return n
}
