package value

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
)

// New returns the zero message of type t: zero numbers, false, "" strings,
// zero Time/Duration, empty sequences, fixed arrays of their length filled
// with zero elements and nested zero messages. A message type that contains
// itself other than through a sequence gets nil at the repeated level.
func New(t *msgdef.Type) *Struct {
	return newStruct(t, nil)
}

func newStruct(t *msgdef.Type, active []*msgdef.Type) *Struct {
	if t == nil {
		return nil
	}
	for _, a := range active {
		if a == t {
			return nil
		}
	}
	active = append(active, t)
	s := &Struct{Type: t, Fields: make([]any, len(t.Fields))}
	for i := range t.Fields {
		f := &t.Fields[i]
		switch {
		case f.IsBlob():
			n := 0
			if f.Array == msgdef.Fixed {
				n = max(f.Len, 0)
			}
			s.Fields[i] = make([]byte, n)
		case f.Array == msgdef.Fixed:
			arr := make([]any, max(f.Len, 0))
			for j := range arr {
				arr[j] = zeroElem(f, active)
			}
			s.Fields[i] = arr
		case f.Array == msgdef.Sequence:
			s.Fields[i] = []any{}
		default:
			s.Fields[i] = zeroElem(f, active)
		}
	}
	return s
}

func zeroElem(f *msgdef.Field, active []*msgdef.Type) any {
	switch f.Kind {
	case msgdef.Bool:
		return false
	case msgdef.Int8, msgdef.Int16, msgdef.Int32, msgdef.Int64:
		return int64(0)
	case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
		return uint64(0)
	case msgdef.Float32, msgdef.Float64:
		return float64(0)
	case msgdef.String, msgdef.WString:
		return ""
	case msgdef.Time:
		return Time{}
	case msgdef.Duration:
		return Duration{}
	case msgdef.Struct:
		return newStruct(f.Msg, active)
	}
	return nil
}

// Set stores v at path, converting it to the field's Go type: any Go
// integer for integer fields (range-checked against the field's width),
// any Go integer or float for float fields, string, bool, Time, Duration,
// *Struct of the field's type; for array fields []any or a typed slice
// ([]float64, []int32, []string, []*Struct …; []byte for blobs), whose
// length must match a fixed array and respect a sequence's bound. A path
// ending in an index ("points[2]") sets one existing element.
func (s *Struct) Set(path string, v any) error {
	segs, err := parsePath(path)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return &PathError{Path: path, Err: fmt.Errorf("%w: empty path", ErrPath)}
	}
	parent, f, err := s.locate(segs[:len(segs)-1])
	if err != nil {
		return err
	}
	last := segs[len(segs)-1]
	fail := func(e *pathErr) error { return &PathError{Path: path, Err: e.err} }
	if last.idx < 0 {
		st, ok := parent.(*Struct)
		if !ok || st == nil || st.Type == nil {
			return &PathError{Path: path, Err: fmt.Errorf("%w: %T is not a message", ErrNoField, parent)}
		}
		i := fieldIndex(st.Type, last.name)
		if i < 0 || i >= len(st.Fields) {
			return &PathError{Path: path, Err: fmt.Errorf("%w in %s", ErrNoField, st.Type.Name)}
		}
		c, e := convertField(&st.Type.Fields[i], v)
		if e != nil {
			return (&PathError{Path: path, Err: e.err}).withIndex(e.segs)
		}
		st.Fields[i] = c
		return nil
	}
	switch arr := parent.(type) {
	case []any:
		if last.idx >= len(arr) {
			return indexErr(segs, len(arr))
		}
		c, e := convertElem(f, v)
		if e != nil {
			return fail(e)
		}
		arr[last.idx] = c
		return nil
	case []byte:
		if last.idx >= len(arr) {
			return indexErr(segs, len(arr))
		}
		b, e := convertBlobElem(f, v)
		if e != nil {
			return fail(e)
		}
		arr[last.idx] = b
		return nil
	}
	return &PathError{Path: path, Err: fmt.Errorf("%w: %T is not an array", ErrType, parent)}
}

// withIndex appends the element index of a failed array conversion.
func (e *PathError) withIndex(segs []seg) *PathError {
	if len(segs) > 0 {
		e.Path += joinSegs(segs, true)
	}
	return e
}

// convertField converts a whole field value.
func convertField(f *msgdef.Field, v any) (any, *pathErr) {
	if f.Array == msgdef.Scalar {
		return convertElem(f, v)
	}
	var out any
	var n int
	if f.IsBlob() {
		b, ok := v.([]byte)
		if !ok {
			return nil, typeErr(f, v, "[]byte")
		}
		out, n = b, len(b)
	} else {
		var arr []any
		var e *pathErr
		switch x := v.(type) {
		case []any:
			arr, e = convSlice(f, x)
		case []bool:
			arr, e = convSlice(f, x)
		case []int:
			arr, e = convSlice(f, x)
		case []int8:
			arr, e = convSlice(f, x)
		case []int16:
			arr, e = convSlice(f, x)
		case []int32:
			arr, e = convSlice(f, x)
		case []int64:
			arr, e = convSlice(f, x)
		case []uint16:
			arr, e = convSlice(f, x)
		case []uint32:
			arr, e = convSlice(f, x)
		case []uint64:
			arr, e = convSlice(f, x)
		case []float32:
			arr, e = convSlice(f, x)
		case []float64:
			arr, e = convSlice(f, x)
		case []string:
			arr, e = convSlice(f, x)
		case []Time:
			arr, e = convSlice(f, x)
		case []Duration:
			arr, e = convSlice(f, x)
		case []*Struct:
			arr, e = convSlice(f, x)
		default:
			return nil, typeErr(f, v, "a slice")
		}
		if e != nil {
			return nil, e
		}
		out, n = arr, len(arr)
	}
	if e := checkLen(f, n); e != nil {
		return nil, e
	}
	return out, nil
}

func convSlice[T any](f *msgdef.Field, xs []T) ([]any, *pathErr) {
	out := make([]any, len(xs))
	for i, x := range xs {
		c, e := convertElem(f, x)
		if e != nil {
			return nil, e.index(i)
		}
		out[i] = c
	}
	return out, nil
}

// convertElem converts one value of f's element kind to its canonical Go
// type.
func convertElem(f *msgdef.Field, v any) (any, *pathErr) {
	switch f.Kind {
	case msgdef.Bool:
		if x, ok := v.(bool); ok {
			return x, nil
		}
	case msgdef.Int8, msgdef.Int16, msgdef.Int32, msgdef.Int64:
		x, ok, neg := toInt(v)
		if !ok {
			break
		}
		if neg == 0 || !intFits(f.Kind, x) {
			return nil, rangeErr(f, v)
		}
		return x, nil
	case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
		x, ok, neg := toInt(v)
		if !ok {
			break
		}
		if neg < 0 {
			return nil, rangeErr(f, v)
		}
		u := uint64(x)
		if neg == 0 { // above MaxInt64
			u = v.(uint64)
		}
		if !uintFits(f.Kind, u) {
			return nil, rangeErr(f, v)
		}
		return u, nil
	case msgdef.Float32, msgdef.Float64:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
		if x, ok, neg := toInt(v); ok {
			if neg == 0 {
				return float64(v.(uint64)), nil
			}
			return float64(x), nil
		}
	case msgdef.String, msgdef.WString:
		if x, ok := v.(string); ok {
			if !utf8.ValidString(x) {
				return nil, &pathErr{err: record.ErrBadUTF8}
			}
			return x, nil
		}
	case msgdef.Time:
		if x, ok := v.(Time); ok {
			if x.Sec < 0 || x.Sec > math.MaxUint32 || x.Nsec < 0 || x.Nsec > math.MaxUint32 {
				return nil, rangeErr(f, x)
			}
			return x, nil
		}
	case msgdef.Duration:
		if x, ok := v.(Duration); ok {
			if x.Sec < math.MinInt32 || x.Sec > math.MaxInt32 || x.Nsec < math.MinInt32 || x.Nsec > math.MaxInt32 {
				return nil, rangeErr(f, x)
			}
			return x, nil
		}
	case msgdef.Struct:
		if x, ok := v.(*Struct); ok && x != nil {
			if x.Type == nil || f.Msg == nil || x.Type.Name != f.Msg.Name {
				return nil, &pathErr{err: fmt.Errorf("%w: struct of type %s for field of type %s",
					ErrType, typeName(x.Type), typeName(f.Msg))}
			}
			return x, nil
		}
	}
	return nil, typeErr(f, v, "a "+f.Kind.String())
}

// convertBlobElem converts one element of a blob.
func convertBlobElem(f *msgdef.Field, v any) (byte, *pathErr) {
	x, ok, neg := toInt(v)
	if !ok {
		return 0, typeErr(f, v, "an integer")
	}
	if f.Kind == msgdef.Int8 {
		if neg == 0 || x < math.MinInt8 || x > math.MaxInt8 {
			return 0, rangeErr(f, v)
		}
		return byte(int8(x)), nil
	}
	if neg < 0 || neg == 0 || x > math.MaxUint8 {
		return 0, rangeErr(f, v)
	}
	return byte(x), nil
}

// toInt converts any Go integer to an int64. sign is -1 for a negative
// value, 1 for a non-negative one that fits int64 and 0 for a uint64 above
// MaxInt64 (x is then meaningless).
func toInt(v any) (x int64, ok bool, sign int) {
	switch n := v.(type) {
	case int:
		x = int64(n)
	case int8:
		x = int64(n)
	case int16:
		x = int64(n)
	case int32:
		x = int64(n)
	case int64:
		x = n
	case uint:
		return toInt(uint64(n))
	case uint8:
		x = int64(n)
	case uint16:
		x = int64(n)
	case uint32:
		x = int64(n)
	case uint64:
		if n > math.MaxInt64 {
			return 0, true, 0
		}
		x = int64(n)
	default:
		return 0, false, 0
	}
	if x < 0 {
		return x, true, -1
	}
	return x, true, 1
}
