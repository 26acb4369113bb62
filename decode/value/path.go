package value

import (
	"fmt"
	"math"

	"github.com/baglab/baglab/decode/msgdef"
)

// Paths name a value inside a Struct: field names joined by '.', each
// optionally followed by array indexes, e.g. "header.stamp",
// "placements[3].position.x", "data[0]". The empty path is the struct
// itself. An element of a blob ([]byte) is a uint64 (uint8, char) or an
// int64 (byte).

// parsePath splits a path into segments.
func parsePath(path string) ([]seg, error) {
	var segs []seg
	i := 0
	for i < len(path) {
		j := i
		for j < len(path) && path[j] != '.' && path[j] != '[' {
			j++
		}
		if j == i {
			return nil, &PathError{Path: path, Err: ErrPath}
		}
		segs = append(segs, seg{name: path[i:j], idx: -1})
		i = j
		for i < len(path) && path[i] == '[' {
			n, k := 0, i+1
			for k < len(path) && path[k] >= '0' && path[k] <= '9' && n <= math.MaxInt32 {
				n = n*10 + int(path[k]-'0')
				k++
			}
			if k == i+1 || k >= len(path) || path[k] != ']' {
				return nil, &PathError{Path: path, Err: ErrPath}
			}
			segs = append(segs, seg{idx: n})
			i = k + 1
		}
		if i < len(path) {
			if path[i] != '.' || i == len(path)-1 {
				return nil, &PathError{Path: path, Err: ErrPath}
			}
			i++
		}
	}
	return segs, nil
}

// locate follows segs from s. It returns the value found and the field it
// belongs to (nil for the root; for an array element, the array field).
func (s *Struct) locate(segs []seg) (any, *msgdef.Field, error) {
	var cur any = s
	var f *msgdef.Field
	for k, sg := range segs {
		if sg.idx < 0 {
			st, ok := cur.(*Struct)
			if !ok || st == nil || st.Type == nil {
				return nil, nil, &PathError{Path: joinSegs(segs[:k+1], false),
					Err: fmt.Errorf("%w: %T is not a message", ErrNoField, cur)}
			}
			i := fieldIndex(st.Type, sg.name)
			if i < 0 || i >= len(st.Fields) {
				return nil, nil, &PathError{Path: joinSegs(segs[:k+1], false),
					Err: fmt.Errorf("%w in %s", ErrNoField, st.Type.Name)}
			}
			f = &st.Type.Fields[i]
			cur = st.Fields[i]
			continue
		}
		switch arr := cur.(type) {
		case []any:
			if sg.idx >= len(arr) {
				return nil, nil, indexErr(segs[:k+1], len(arr))
			}
			cur = arr[sg.idx]
		case []byte:
			if sg.idx >= len(arr) {
				return nil, nil, indexErr(segs[:k+1], len(arr))
			}
			cur = blobElem(f, arr[sg.idx])
		default:
			return nil, nil, &PathError{Path: joinSegs(segs[:k+1], false),
				Err: fmt.Errorf("%w: %T is not an array", ErrType, cur)}
		}
	}
	return cur, f, nil
}

func indexErr(segs []seg, n int) error {
	return &PathError{Path: joinSegs(segs, false), Err: fmt.Errorf("%w: length %d", ErrIndex, n)}
}

func blobElem(f *msgdef.Field, b byte) any {
	if f != nil && f.Kind == msgdef.Int8 {
		return int64(int8(b))
	}
	return uint64(b)
}

func fieldIndex(t *msgdef.Type, name string) int {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// Get returns the value at path (see Struct for the Go types).
func (s *Struct) Get(path string) (any, error) {
	segs, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	v, _, err := s.locate(segs)
	return v, err
}

// Has reports whether path names a value in s, e.g. whether a Grasp has a
// grasp_id field in the layout it was recorded with.
func (s *Struct) Has(path string) bool {
	_, err := s.Get(path)
	return err == nil
}

// Float returns the number at path as a float64; integers are converted.
func (s *Struct) Float(path string) (float64, error) {
	v, err := s.Get(path)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	}
	return 0, wantErr(path, v, "a number")
}

// Int returns the integer at path as an int64 (a uint64 above MaxInt64 is
// an ErrRange error; floats are not accepted).
func (s *Struct) Int(path string) (int64, error) {
	v, err := s.Get(path)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, &PathError{Path: path, Err: fmt.Errorf("%w: %d", ErrRange, x)}
		}
		return int64(x), nil
	}
	return 0, wantErr(path, v, "an integer")
}

// Uint returns the integer at path as a uint64 (a negative int64 is an
// ErrRange error).
func (s *Struct) Uint(path string) (uint64, error) {
	v, err := s.Get(path)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case uint64:
		return x, nil
	case int64:
		if x < 0 {
			return 0, &PathError{Path: path, Err: fmt.Errorf("%w: %d", ErrRange, x)}
		}
		return uint64(x), nil
	}
	return 0, wantErr(path, v, "an integer")
}

// Text returns the string at path (named Text, not String, so that a
// Struct is not mistaken for a fmt.Stringer).
func (s *Struct) Text(path string) (string, error) {
	v, err := s.Get(path)
	if err != nil {
		return "", err
	}
	if x, ok := v.(string); ok {
		return x, nil
	}
	return "", wantErr(path, v, "a string")
}

// Bool returns the bool at path.
func (s *Struct) Bool(path string) (bool, error) {
	v, err := s.Get(path)
	if err != nil {
		return false, err
	}
	if x, ok := v.(bool); ok {
		return x, nil
	}
	return false, wantErr(path, v, "a bool")
}

// Struct returns the nested message at path.
func (s *Struct) Struct(path string) (*Struct, error) {
	v, err := s.Get(path)
	if err != nil {
		return nil, err
	}
	if x, ok := v.(*Struct); ok && x != nil {
		return x, nil
	}
	return nil, wantErr(path, v, "a message")
}

// Bytes returns the blob at path (a view: changing it changes s).
func (s *Struct) Bytes(path string) ([]byte, error) {
	v, err := s.Get(path)
	if err != nil {
		return nil, err
	}
	if x, ok := v.([]byte); ok {
		return x, nil
	}
	return nil, wantErr(path, v, "a blob")
}

// TimeNs returns the time or duration at path in nanoseconds. It accepts a
// ROS1 Time or Duration and a ROS2 builtin_interfaces Time/Duration message
// (fields sec and nanosec).
func (s *Struct) TimeNs(path string) (int64, error) {
	v, err := s.Get(path)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case Time:
		return x.Ns(), nil
	case Duration:
		return x.Ns(), nil
	case *Struct:
		if x != nil && x.Has("sec") && x.Has("nanosec") {
			sec, err1 := x.Int("sec")
			ns, err2 := x.Int("nanosec")
			if err1 == nil && err2 == nil {
				return sec*1e9 + ns, nil
			}
		}
	}
	return 0, wantErr(path, v, "a time or duration")
}

// Len returns the length of the array (or blob) at path.
func (s *Struct) Len(path string) (int, error) {
	v, err := s.Get(path)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case []any:
		return len(x), nil
	case []byte:
		return len(x), nil
	}
	return 0, wantErr(path, v, "an array")
}

// Each calls fn for every element of the array at path, in order, and stops
// at the first error fn returns.
func (s *Struct) Each(path string, fn func(i int, v any) error) error {
	segs, err := parsePath(path)
	if err != nil {
		return err
	}
	v, f, err := s.locate(segs)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if err := fn(i, e); err != nil {
				return err
			}
		}
		return nil
	case []byte:
		for i, b := range x {
			if err := fn(i, blobElem(f, b)); err != nil {
				return err
			}
		}
		return nil
	}
	return wantErr(path, v, "an array")
}

func wantErr(path string, v any, want string) error {
	return &PathError{Path: path, Err: fmt.Errorf("%w: %T, want %s", ErrType, v, want)}
}
