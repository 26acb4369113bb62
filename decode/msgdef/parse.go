package msgdef

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/baglab/baglab/record"
)

// Limits that keep hostile definitions from costing more than their size.
const (
	// MaxFixedLen is the largest N accepted in a fixed array T[N].
	MaxFixedLen = 1 << 24
	// MaxBound is the largest N accepted in T[<=N] and string<=N.
	MaxBound = 1<<31 - 1
	// MaxDepth is the deepest nesting of message types accepted.
	MaxDepth = 64
	// MaxExpandedFields bounds the number of fields of a type counted as a
	// tree (a nested type used by two fields counts twice), so that code
	// walking a Type recursively stays small.
	MaxExpandedFields = 1 << 18
)

var ros1Prims = map[string]Kind{
	"bool": Bool, "byte": Int8, "char": Uint8,
	"int8": Int8, "uint8": Uint8, "int16": Int16, "uint16": Uint16,
	"int32": Int32, "uint32": Uint32, "int64": Int64, "uint64": Uint64,
	"float32": Float32, "float64": Float64, "string": String,
	"time": Time, "duration": Duration,
}

var ros2Prims = map[string]Kind{
	"bool": Bool, "byte": Uint8, "char": Uint8,
	"int8": Int8, "uint8": Uint8, "int16": Int16, "uint16": Uint16,
	"int32": Int32, "uint32": Uint32, "int64": Int64, "uint64": Uint64,
	"float32": Float32, "float64": Float64, "string": String, "wstring": WString,
}

// source is one definition text waiting to be parsed: a registry entry or a
// section of a bundle. It parses itself once, on first use.
type source struct {
	name     string // canonical pkg/Type
	fullName string
	dialect  Dialect
	text     string
	// distro names the ROS 2 distribution(s) of a built-in common
	// interface ("humble"; "humble, iron, jazzy, kilted"), "" for others.
	distro string

	once sync.Once
	def  *def
	err  error
}

func (s *source) parsed() (*def, error) {
	s.once.Do(func() { s.def, s.err = cachedDef(s.name, s.fullName, s.dialect, s.text) })
	return s.def, s.err
}

// parsedDefs holds the definitions parsed so far in the process, by
// dialect, names and text: a recording's bundles repeat their
// dependencies (std_msgs/Header in nearly every one), and a ROS 2
// equivalent is parsed from a bundle of them again. A def is never
// modified once parsed. Once they take maxCachedBytes (defCost), no more
// are kept: a live peer sending new definitions cannot grow it further.
var parsedDefs struct {
	sync.Mutex
	defs  map[defKey]*def
	bytes int
}

type defKey struct {
	name, fullName, text string
	dialect              Dialect
}

// maxCachedBytes bounds the memory of the definitions parsedDefs keeps.
const maxCachedBytes = 8 << 20

// defCost is about the memory d and its key take: the text and names,
// and 256 bytes for the def, each parsed field (a rawField with its refs)
// and each constant.
func defCost(d *def) int {
	return len(d.text) + 2*len(d.name) + 2*len(d.fullName) + 256*(1+len(d.fields)+len(d.consts))
}

// cachedDef is parseDef, its successes kept in parsedDefs. What it keeps
// is parsed from copies of the names and text, so that it holds no more
// than they are (text is often a section of a larger bundle).
func cachedDef(name, fullName string, d Dialect, text string) (*def, error) {
	key := defKey{name, fullName, text, d}
	parsedDefs.Lock()
	kept := parsedDefs.defs[key]
	parsedDefs.Unlock()
	if kept != nil {
		return kept, nil
	}
	key = defKey{strings.Clone(name), strings.Clone(fullName), strings.Clone(text), d}
	parsed, err := parseDef(key.name, key.fullName, d, key.text)
	if err != nil {
		return nil, err
	}
	parsedDefs.Lock()
	defer parsedDefs.Unlock()
	if kept := parsedDefs.defs[key]; kept != nil {
		return kept, nil
	}
	if parsedDefs.bytes+defCost(parsed) <= maxCachedBytes {
		if parsedDefs.defs == nil {
			parsedDefs.defs = map[defKey]*def{}
		}
		parsed.kept = true
		parsedDefs.defs[key] = parsed
		parsedDefs.bytes += defCost(parsed)
	}
	return parsed, nil
}

// def is a parsed but unresolved type: nested fields name their type but
// do not point at it yet.
type def struct {
	name, fullName string
	dialect        Dialect
	text           string
	fields         []rawField
	consts         []Constant
	kept           bool // in parsedDefs: the one def of its text, which types are interned by
}

// rawField is a Field whose nested type is still a name.
type rawField struct {
	Field
	// refs are the canonical names to try, in order, for a nested type.
	refs []string
	// short is the base name when the type was written without a package.
	short string
	line  int
}

type parser struct {
	def
	pkg   string
	names map[string]bool
}

// parseDef parses one type's own text in dialect d.
func parseDef(name, fullName string, d Dialect, text string) (*def, error) {
	p := &parser{def: def{name: name, fullName: fullName, dialect: d, text: text}, pkg: packageOf(name), names: map[string]bool{}}
	for i, line := range strings.Split(text, "\n") {
		var err error
		if d == ROS1 {
			err = p.ros1Line(line, i+1)
		} else {
			err = p.ros2Line(line, i+1)
		}
		if err != nil {
			return nil, err
		}
	}
	return &p.def, nil
}

func (p *parser) errf(line int, format string, args ...any) error {
	return &Error{Type: p.fullName, Line: line, Msg: fmt.Sprintf(format, args...), Err: record.ErrFormat}
}

// ros1Line parses one line the way genmsg's msg_loader does.
func (p *parser) ros1Line(orig string, ln int) error {
	clean := orig
	if i := strings.IndexByte(clean, '#'); i >= 0 {
		clean = clean[:i]
	}
	clean = strings.TrimSpace(clean)
	if clean == "" {
		return nil
	}
	if strings.Contains(clean, "=") {
		return p.ros1Constant(orig, clean, ln)
	}
	toks := strings.Fields(clean)
	if len(toks) != 2 {
		return p.errf(ln, "invalid declaration %q (want \"type name\")", clean)
	}
	return p.field(toks[0], toks[1], "", ln)
}

// ros1Constant follows genmsg: a string constant's value is the rest of the
// original line after the first '=' (comment characters included), trimmed;
// other values have comments stripped first.
func (p *parser) ros1Constant(orig, clean string, ln int) error {
	toks := strings.Fields(clean)
	typ := toks[0]
	kind, ok := ros1Prims[typ]
	if !ok || kind == Time || kind == Duration {
		return p.errf(ln, "%q is not a constant type", typ)
	}
	var name, val string
	if typ == "string" {
		start := strings.Index(orig, typ) + len(typ)
		eq := strings.IndexByte(orig, '=')
		name = strings.TrimSpace(orig[start:eq])
		val = strings.TrimSpace(orig[eq+1:])
	} else {
		parts := strings.Split(strings.Join(toks[1:], " "), "=")
		if len(parts) != 2 {
			return p.errf(ln, "invalid constant declaration %q", clean)
		}
		name, val = strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		if err := checkValue(kind, typ, val, ROS1); err != nil {
			return p.errf(ln, "constant %s: %v", name, err)
		}
	}
	return p.constant(Constant{Name: name, Kind: kind, Prim: typ, Value: val}, ln)
}

func (p *parser) constant(c Constant, ln int) error {
	if !IsIdent(c.Name) {
		return p.errf(ln, "invalid constant name %q", c.Name)
	}
	p.consts = append(p.consts, c)
	return nil
}

// ros2Line parses one line of the rosidl dialect: fields may carry a
// default value after the name, constants are "type NAME=value".
func (p *parser) ros2Line(orig string, ln int) error {
	line := strings.TrimSpace(stripComment(orig))
	if line == "" {
		return nil
	}
	typ, rest := cutSpace(line)
	if rest == "" {
		return p.errf(ln, "invalid declaration %q (want \"type name\")", line)
	}
	if eq := strings.IndexByte(rest, '='); eq >= 0 {
		if name := strings.TrimSpace(rest[:eq]); !strings.ContainsAny(name, " \t") {
			return p.ros2Constant(typ, name, strings.TrimSpace(rest[eq+1:]), ln)
		}
	}
	name, dflt := cutSpace(rest)
	return p.field(typ, name, dflt, ln)
}

func (p *parser) ros2Constant(typ, name, val string, ln int) error {
	kind, ok := ros2Prims[typ]
	if !ok {
		return p.errf(ln, "%q is not a constant type", typ)
	}
	if val == "" {
		return p.errf(ln, "constant %s has no value", name)
	}
	if err := checkValue(kind, typ, val, ROS2); err != nil {
		return p.errf(ln, "constant %s: %v", name, err)
	}
	return p.constant(Constant{Name: name, Kind: kind, Prim: typ, Value: val}, ln)
}

// stripComment removes a '#' comment, ignoring '#' inside quoted strings
// (ROS2 string defaults and constants).
func stripComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return s[:i]
		}
	}
	return s
}

// cutSpace splits s at its first run of blanks.
func cutSpace(s string) (head, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

// field adds a field declared as "typ name [default]".
func (p *parser) field(typ, name, dflt string, ln int) error {
	if !IsIdent(name) {
		return p.errf(ln, "invalid field name %q", name)
	}
	if p.names[name] {
		return p.errf(ln, "duplicate field name %q", name)
	}
	p.names[name] = true
	f := rawField{line: ln}
	f.Name = name
	f.Default = dflt
	base, err := p.arraySuffix(typ, &f.Field)
	if err != nil {
		return p.errf(ln, "field %s: %v", name, err)
	}
	if err := p.elemType(base, &f); err != nil {
		return p.errf(ln, "field %s: %v", name, err)
	}
	if dflt != "" {
		if err := checkDefault(&f.Field, dflt); err != nil {
			return p.errf(ln, "field %s: default %s: %v", name, dflt, err)
		}
	}
	p.fields = append(p.fields, f)
	return nil
}

// arraySuffix parses "[]", "[N]" and (ROS2) "[<=N]" off typ into f and
// returns the element type.
func (p *parser) arraySuffix(typ string, f *Field) (string, error) {
	i := strings.IndexByte(typ, '[')
	if i < 0 {
		return typ, nil
	}
	base, inner := typ[:i], typ[i+1:]
	if !strings.HasSuffix(inner, "]") || strings.ContainsAny(inner[:len(inner)-1], "[]") {
		return "", fmt.Errorf("invalid array type %q", typ)
	}
	inner = inner[:len(inner)-1]
	switch {
	case inner == "":
		f.Array = Sequence
	case p.dialect == ROS2 && strings.HasPrefix(inner, "<="):
		n, err := parseCount(inner[2:], MaxBound)
		if err != nil || n == 0 {
			return "", fmt.Errorf("invalid array bound in %q", typ)
		}
		f.Array, f.Len = Sequence, n
	default:
		n, err := parseCount(inner, MaxFixedLen)
		if err != nil {
			return "", fmt.Errorf("invalid array length in %q: %v", typ, err)
		}
		f.Array, f.Len = Fixed, n
	}
	return base, nil
}

// parseCount parses a decimal count no larger than max.
func parseCount(s string, max int) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("not a number")
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > uint64(max) {
		return 0, fmt.Errorf("%s exceeds the limit %d", s, max)
	}
	return int(n), nil
}

// elemType fills in the element kind of f from the element type name.
func (p *parser) elemType(base string, f *rawField) error {
	f.TypeName = base
	prims := ros1Prims
	if p.dialect == ROS2 {
		prims = ros2Prims
		for _, s := range [...]string{"string<=", "wstring<="} {
			if rest, ok := strings.CutPrefix(base, s); ok {
				n, err := parseCount(rest, MaxBound)
				if err != nil || n == 0 {
					return fmt.Errorf("invalid string bound in %q", base)
				}
				f.StringBound = n
				base = s[:len(s)-2]
				break
			}
		}
	}
	if k, ok := prims[base]; ok {
		f.Kind, f.Prim = k, base
		return nil
	}
	if f.StringBound != 0 {
		return fmt.Errorf("invalid type %q", f.TypeName)
	}
	f.Kind = Struct
	pkg, ns, name, ok := splitName(base)
	switch {
	case !strings.Contains(base, "/"):
		if !IsIdent(base) {
			return fmt.Errorf("invalid type %q", base)
		}
		f.short = base
		// genmsg: a bare "Header" (not "Header[]") is std_msgs/Header;
		// anything else unqualified is in the same package. The fallback to
		// std_msgs/Header covers ROS2 and Header[] when the package has none.
		if base == "Header" && p.dialect == ROS1 && f.Array == Scalar {
			f.refs = []string{"std_msgs/Header"}
		} else {
			f.refs = []string{p.pkg + "/" + base}
			if base == "Header" {
				f.refs = append(f.refs, "std_msgs/Header")
			}
		}
	case !ok || (ns != "" && p.dialect == ROS1):
		return fmt.Errorf("invalid type %q", base)
	default:
		f.refs = []string{pkg + "/" + name}
	}
	return nil
}

// checkValue checks a constant or default literal of a primitive type.
func checkValue(kind Kind, prim, val string, d Dialect) error {
	bits := 8 * kind.Size()
	base := 10
	if d == ROS2 {
		base = 0
	}
	switch kind {
	case Bool:
		switch strings.ToLower(val) {
		case "true", "false", "1", "0":
			return nil
		}
		return fmt.Errorf("%q is not a bool", val)
	case Int8, Int16, Int32, Int64:
		if _, err := strconv.ParseInt(val, base, bits); err != nil {
			return fmt.Errorf("%q is not an %s", val, prim)
		}
	case Uint8, Uint16, Uint32, Uint64:
		if _, err := strconv.ParseUint(strings.TrimPrefix(val, "+"), base, bits); err != nil {
			return fmt.Errorf("%q is not a %s", val, prim)
		}
	case Float32, Float64:
		if _, err := strconv.ParseFloat(val, 64); err != nil {
			return fmt.Errorf("%q is not a %s", val, prim)
		}
	}
	return nil
}

// checkDefault checks a ROS2 field default: a literal of the element type,
// or for arrays a bracketed list whose length fits the array.
func checkDefault(f *Field, val string) error {
	if f.Kind == Struct {
		return fmt.Errorf("nested messages cannot have defaults")
	}
	if f.Array == Scalar {
		return checkValue(f.Kind, f.Prim, val, ROS2)
	}
	if !strings.HasPrefix(val, "[") || !strings.HasSuffix(val, "]") {
		return fmt.Errorf("array default must be a [list]")
	}
	if f.Kind == String || f.Kind == WString {
		return nil // elements may hold commas; left to the reader of Default
	}
	inner := strings.TrimSpace(val[1 : len(val)-1])
	var elems []string
	if inner != "" {
		elems = strings.Split(inner, ",")
	}
	if f.Array == Fixed && len(elems) != f.Len || f.Array == Sequence && f.Len > 0 && len(elems) > f.Len {
		return fmt.Errorf("%d elements do not fit the array", len(elems))
	}
	for _, e := range elems {
		if err := checkValue(f.Kind, f.Prim, strings.TrimSpace(e), ROS2); err != nil {
			return err
		}
	}
	return nil
}
