package analysis

import (
	"math"
	"strings"

	"github.com/baglab/baglab/decode/value"
)

// baseType returns the canonical "pkg/Type" name of a struct's type, with a
// ROS2 "pkg/msg/Type" or "pkg/srv/Type_Event" middle part dropped.
func baseType(s *value.Struct) string {
	if s == nil || s.Type == nil {
		return ""
	}
	return canonicalType(s.Type.Name)
}

// canonicalType drops the middle parts of a ROS2 type name
// ("remap_msgs/srv/Query_Event" -> "remap_msgs/Query_Event").
func canonicalType(name string) string {
	i := strings.IndexByte(name, '/')
	j := strings.LastIndexByte(name, '/')
	if i < 0 || i == j {
		return name
	}
	return name[:i] + name[j:]
}

// field returns the value of the field name of s.
func field(s *value.Struct, name string) (any, bool) {
	if s == nil || s.Type == nil {
		return nil, false
	}
	for i := range s.Type.Fields {
		if s.Type.Fields[i].Name == name {
			if i < len(s.Fields) {
				return s.Fields[i], true
			}
			return nil, false
		}
	}
	return nil, false
}

// lookup follows a dotted path of field names ("position.x").
func lookup(s *value.Struct, path string) (any, bool) {
	for {
		name, rest, more := strings.Cut(path, ".")
		v, ok := field(s, name)
		if !ok || !more {
			return v, ok
		}
		s, ok = v.(*value.Struct)
		if !ok {
			return nil, false
		}
		path = rest
	}
}

// has reports whether the dotted path exists in s's type.
func has(s *value.Struct, path string) bool {
	_, ok := lookup(s, path)
	return ok
}

// getStruct returns the nested struct at path, or nil.
func getStruct(s *value.Struct, path string) *value.Struct {
	v, _ := lookup(s, path)
	c, _ := v.(*value.Struct)
	return c
}

// getString returns the string at path, or "".
func getString(s *value.Struct, path string) string {
	v, _ := lookup(s, path)
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// getFloat returns the number at path as a float64.
func getFloat(s *value.Struct, path string) (float64, bool) {
	v, ok := lookup(s, path)
	if !ok {
		return math.NaN(), false
	}
	return toFloat(v)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return math.NaN(), false
}

// getInt returns the integer at path.
func getInt(s *value.Struct, path string) (int64, bool) {
	v, ok := lookup(s, path)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		if x > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case float64:
		return int64(x), true
	}
	return 0, false
}

// getBool returns the bool at path.
func getBool(s *value.Struct, path string) (bool, bool) {
	v, ok := lookup(s, path)
	if !ok {
		return false, false
	}
	switch x := v.(type) {
	case bool:
		return x, true
	case int64:
		return x != 0, true
	case uint64:
		return x != 0, true
	}
	return false, false
}

// getList returns the array at path ([]any), or nil.
func getList(s *value.Struct, path string) []any {
	v, _ := lookup(s, path)
	l, _ := v.([]any)
	return l
}

// getBytes returns the blob at path.
func getBytes(s *value.Struct, path string) []byte {
	v, _ := lookup(s, path)
	switch x := v.(type) {
	case []byte:
		return x
	case []any:
		b := make([]byte, 0, len(x))
		for _, e := range x {
			n, _ := e.(uint64)
			b = append(b, byte(n))
		}
		return b
	}
	return nil
}

// getTimeNs returns a time at path as ns since the epoch: a ROS1 time
// (value.Time), a ROS2 builtin_interfaces/Time struct {sec, nanosec}, or an
// integer count of nanoseconds.
func getTimeNs(s *value.Struct, path string) (int64, bool) {
	v, ok := lookup(s, path)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case value.Time:
		return x.Ns(), true
	case value.Duration:
		return x.Ns(), true
	case *value.Struct:
		sec, ok1 := getInt(x, "sec")
		nsec, ok2 := getInt(x, "nanosec")
		if ok1 && ok2 {
			return sec*1e9 + nsec, true
		}
	case int64:
		return x, true
	case uint64:
		if x > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(x), true
	}
	return 0, false
}
