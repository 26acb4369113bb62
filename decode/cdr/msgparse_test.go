package cdr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
)

// parseBundle is a small test double for msgdef.ParseBundle: it reads the
// ROS 2 .msg subset the golden fixtures use (primitives, bounds, arrays,
// constants, comments, MSG: sections) into a resolved Type. Keeping the
// tests independent of decode/msgdef lets them exercise the codec alone.
func parseBundle(name, text string) (*msgdef.Type, error) {
	sections := []struct{ name, text string }{{name, ""}}
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "==="):
			sections[len(sections)-1].text = cur.String()
			cur.Reset()
		case strings.HasPrefix(line, "MSG: "):
			sections = append(sections, struct{ name, text string }{normName(strings.TrimSpace(line[5:])), ""})
		default:
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	sections[len(sections)-1].text = cur.String()
	types := map[string]*msgdef.Type{}
	for _, s := range sections {
		types[s.name] = &msgdef.Type{Name: s.name, FullName: s.name, Dialect: msgdef.ROS2, Text: s.text}
	}
	for _, s := range sections {
		t := types[s.name]
		for _, line := range strings.Split(s.text, "\n") {
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = line[:i]
			}
			line = strings.TrimSpace(line)
			if line == "" || strings.Count(line, "=") > strings.Count(line, "<=") {
				continue // constant
			}
			parts := strings.Fields(line)
			if len(parts) < 2 {
				return nil, fmt.Errorf("%s: bad line %q", s.name, line)
			}
			f, err := parseField(parts[0], parts[1], t.Package(), types)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			t.Fields = append(t.Fields, f)
		}
	}
	return types[name], nil
}

func normName(n string) string {
	if p := strings.Split(n, "/"); len(p) == 3 {
		return p[0] + "/" + p[2]
	}
	return n
}

var prims = map[string]msgdef.Kind{
	"bool": msgdef.Bool, "byte": msgdef.Uint8, "char": msgdef.Uint8, "int8": msgdef.Int8,
	"uint8": msgdef.Uint8, "int16": msgdef.Int16, "uint16": msgdef.Uint16, "int32": msgdef.Int32,
	"uint32": msgdef.Uint32, "int64": msgdef.Int64, "uint64": msgdef.Uint64, "float32": msgdef.Float32,
	"float64": msgdef.Float64, "string": msgdef.String, "wstring": msgdef.WString,
}

func parseField(typ, name, pkg string, types map[string]*msgdef.Type) (msgdef.Field, error) {
	f := msgdef.Field{Name: name}
	if i := strings.IndexByte(typ, '['); i >= 0 {
		arr := typ[i+1 : len(typ)-1]
		typ = typ[:i]
		switch {
		case arr == "":
			f.Array = msgdef.Sequence
		case strings.HasPrefix(arr, "<="):
			f.Array = msgdef.Sequence
			f.Len, _ = strconv.Atoi(arr[2:])
		default:
			f.Array = msgdef.Fixed
			f.Len, _ = strconv.Atoi(arr)
		}
	}
	f.TypeName = typ
	if i := strings.Index(typ, "<="); i >= 0 {
		f.StringBound, _ = strconv.Atoi(typ[i+2:])
		typ = typ[:i]
	}
	if k, ok := prims[typ]; ok {
		f.Kind, f.Prim = k, typ
		return f, nil
	}
	full := normName(typ)
	if !strings.Contains(full, "/") {
		full = pkg + "/" + full
	}
	t, ok := types[full]
	if !ok {
		return f, fmt.Errorf("unknown type %q", typ)
	}
	f.Kind, f.Msg = msgdef.Struct, t
	return f, nil
}
