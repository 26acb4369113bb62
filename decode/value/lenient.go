package value

import (
	"math"
	"strings"
)

// The lenient readers below serve code that reads messages of several
// layouts by field name (the analyses): they never fail. A path that does
// not exist in the message, or a value of another kind, gives the zero
// value and false. Where the strict accessors (Float, Int, Bool, Bytes,
// TimeNs …) refuse a kind, the lenient ones convert it, as written on each.
// Both families take the same paths ("placements[3].position.x") and work
// on a nil *Struct (nothing is found).

// Lookup returns the value at path and whether it exists.
func (s *Struct) Lookup(path string) (any, bool) {
	if strings.IndexByte(path, '[') >= 0 {
		if s == nil {
			return nil, false
		}
		v, err := s.Get(path)
		return v, err == nil
	}
	for { // field names only: no parsing, no allocation
		name, rest, more := strings.Cut(path, ".")
		if s == nil || s.Type == nil {
			return nil, false
		}
		i := fieldIndex(s.Type, name)
		if i < 0 || i >= len(s.Fields) {
			return nil, false
		}
		if !more {
			return s.Fields[i], true
		}
		if s, _ = s.Fields[i].(*Struct); s == nil {
			return nil, false
		}
		path = rest
	}
}

// LookupStruct returns the nested message at path, or nil.
func (s *Struct) LookupStruct(path string) *Struct {
	v, _ := s.Lookup(path)
	c, _ := v.(*Struct)
	return c
}

// LookupString returns the string at path (a blob read as text), or "".
func (s *Struct) LookupString(path string) string {
	v, _ := s.Lookup(path)
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// LookupFloat returns the number at path as a float64: floats, integers,
// and bools as 0 or 1. Without one it returns NaN and false.
func (s *Struct) LookupFloat(path string) (float64, bool) {
	v, ok := s.Lookup(path)
	if !ok {
		return math.NaN(), false
	}
	return AsFloat(v)
}

// AsFloat converts a number (or a bool, as 0 or 1) to a float64; other
// values give NaN and false.
func AsFloat(v any) (float64, bool) {
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

// LookupInt returns the integer at path as an int64: a uint64 above
// MaxInt64 is clamped to it, a float is truncated, a bool is 0 or 1.
func (s *Struct) LookupInt(path string) (int64, bool) {
	v, ok := s.Lookup(path)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		return clampInt(x), true
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

// LookupBool returns the bool at path; an integer is true when not 0.
func (s *Struct) LookupBool(path string) (bool, bool) {
	v, ok := s.Lookup(path)
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

// LookupList returns the array at path ([]any), or nil; a blob is not a
// list (see LookupBytes).
func (s *Struct) LookupList(path string) []any {
	v, _ := s.Lookup(path)
	l, _ := v.([]any)
	return l
}

// LookupBytes returns the blob at path; an array of integers is converted
// byte by byte (a fresh slice).
func (s *Struct) LookupBytes(path string) []byte {
	v, _ := s.Lookup(path)
	switch x := v.(type) {
	case []byte:
		return x
	case []any:
		b := make([]byte, 0, len(x))
		for _, e := range x {
			switch n := e.(type) {
			case uint64:
				b = append(b, byte(n))
			case int64:
				b = append(b, byte(n))
			default:
				b = append(b, 0)
			}
		}
		return b
	}
	return nil
}

// LookupTimeNs returns a time at path in ns: a ROS1 time or duration, a
// ROS2 builtin_interfaces Time or Duration message (sec, nanosec), or an
// integer count of nanoseconds (a uint64 above MaxInt64 clamped).
func (s *Struct) LookupTimeNs(path string) (int64, bool) {
	v, ok := s.Lookup(path)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case Time:
		return x.Ns(), true
	case Duration:
		return x.Ns(), true
	case *Struct:
		sec, ok1 := x.LookupInt("sec")
		nsec, ok2 := x.LookupInt("nanosec")
		if ok1 && ok2 {
			return sec*1e9 + nsec, true
		}
	case int64:
		return x, true
	case uint64:
		return clampInt(x), true
	}
	return 0, false
}

// clampInt is x as an int64, MaxInt64 when it is larger.
func clampInt(x uint64) int64 {
	if x > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(x)
}
