package msgdef

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// TypeHash returns the RIHS01 type description hash of ROS 2 type t (REP
// 2011, rosidl_generator_type_description): the SHA-256 of the JSON of t's
// type description and those of every type it uses (sorted by name),
// default values left out, as rosbag2 stores it in type_description_hash:
// "RIHS01_<64 hex digits>". An empty message counts its
// structure_needs_at_least_one_member field, as rosidl generates it.
func TypeHash(t *Type) string {
	refs := map[string]*Type{}
	var walk func(*Type)
	walk = func(t *Type) {
		for i := range t.Fields {
			if m := t.Fields[i].Msg; m != nil {
				if n := ros2FullName(m); refs[n] == nil {
					refs[n] = m
					walk(m)
				}
			}
		}
	}
	walk(t)
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	// The JSON goes into the hash a type's description at a time, never
	// held whole; an interned type's description is kept (description).
	h := sha256.New()
	h.Write([]byte(`{"type_description": `))
	h.Write(description(t))
	h.Write([]byte(`, "referenced_type_descriptions": [`))
	for i, n := range names {
		if i > 0 {
			h.Write([]byte(", "))
		}
		h.Write(description(refs[n]))
	}
	h.Write([]byte("]}"))
	return "RIHS01_" + hex.EncodeToString(h.Sum(nil))
}

// ros2FullName is t's ROS 2 name with its namespace: "pkg/msg/Type", or
// "pkg/srv/X_Request" for the types of services and actions.
func ros2FullName(t *Type) string {
	if strings.Count(t.FullName, "/") == 2 {
		return t.FullName
	}
	pkg, base, _ := strings.Cut(t.Name, "/")
	return pkg + "/msg/" + base
}

// appendDescription appends t's individual type description as rosidl's
// JSON (separators ", " and ": ", no default values) to b.
func appendDescription(b []byte, t *Type) []byte {
	b = append(b, `{"type_name": "`...)
	b = append(b, ros2FullName(t)...)
	b = append(b, `", "fields": [`...)
	if len(t.Fields) == 0 {
		b = append(b, `{"name": "structure_needs_at_least_one_member", "type": {"type_id": 3, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}`...)
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if i > 0 {
			b = append(b, ", "...)
		}
		id, nested := fieldTypeID(f), ""
		if f.Msg != nil {
			nested = ros2FullName(f.Msg)
		}
		capacity := 0
		switch f.Array {
		case Fixed:
			id += 48
			capacity = f.Len
		case Sequence:
			if f.Len > 0 {
				id += 96
				capacity = f.Len
			} else {
				id += 144
			}
		}
		b = append(b, `{"name": "`...)
		b = append(b, f.Name...)
		b = append(b, `", "type": {"type_id": `...)
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, `, "capacity": `...)
		b = strconv.AppendInt(b, int64(capacity), 10)
		b = append(b, `, "string_capacity": `...)
		b = strconv.AppendInt(b, int64(f.StringBound), 10)
		b = append(b, `, "nested_type_name": "`...)
		b = append(b, nested...)
		b = append(b, `"}}`...)
	}
	return append(b, "]}"...)
}

// fieldTypeID is the type_description_interfaces FieldType id of the
// element of f.
func fieldTypeID(f *Field) int {
	switch f.Kind {
	case Struct:
		return 1
	case Int8:
		return 2
	case Uint8:
		if f.Prim == "byte" {
			return 16 // octet
		}
		return 3 // uint8, and char (a uint8 in .msg files)
	case Int16:
		return 4
	case Uint16:
		return 5
	case Int32:
		return 6
	case Uint32:
		return 7
	case Int64:
		return 8
	case Uint64:
		return 9
	case Float32:
		return 10
	case Float64:
		return 11
	case Bool:
		return 15
	case String:
		if f.StringBound > 0 {
			return 21
		}
		return 17
	case WString:
		if f.StringBound > 0 {
			return 22
		}
		return 18
	}
	return 0
}
