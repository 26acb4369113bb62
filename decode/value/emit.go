package value

import (
	"fmt"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// Emit replays s into sk as the events a codec would produce for it
// (BeginMessage(s.Type) … EndMessage), checking on the way that every value
// has the Go type its field needs (see Struct), fits the field's width,
// that strings are valid UTF-8 and that array lengths match fixed sizes and
// bounds. On a mismatch it stops and returns a *PathError naming the field;
// sk has then seen part of the message and no EndMessage.
//
// Encoders (ros1.Encode) and MarshalJSON are built on Emit.
func (s *Struct) Emit(sk sink.Sink) error {
	if s == nil || s.Type == nil {
		return &PathError{Err: fmt.Errorf("%w: nil struct or type", ErrType)}
	}
	sk.BeginMessage(s.Type)
	if e := emitFields(s, sk); e != nil {
		return e.public()
	}
	sk.EndMessage()
	return nil
}

// MarshalJSON renders s exactly as sink.JSONWriter renders the message on
// the wire.
func (s *Struct) MarshalJSON() ([]byte, error) {
	w := sink.NewJSONWriter()
	if err := s.Emit(w); err != nil {
		return nil, err
	}
	return w.JSON(), nil
}

func emitFields(s *Struct, sk sink.Sink) *pathErr {
	t := s.Type
	if len(s.Fields) != len(t.Fields) {
		return &pathErr{err: fmt.Errorf("%w: %s has %d fields, struct holds %d",
			ErrLength, t.Name, len(t.Fields), len(s.Fields))}
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if e := emitField(f, s.Fields[i], sk); e != nil {
			return e.field(f.Name)
		}
	}
	return nil
}

func emitField(f *msgdef.Field, v any, sk sink.Sink) *pathErr {
	if f.Array == msgdef.Scalar {
		return emitElem(f, v, sk)
	}
	if f.IsBlob() {
		b, ok := v.([]byte)
		if !ok {
			return typeErr(f, v, "[]byte")
		}
		if e := checkLen(f, len(b)); e != nil {
			return e
		}
		sk.Bytes(f, b)
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		return typeErr(f, v, "[]any")
	}
	if e := checkLen(f, len(arr)); e != nil {
		return e
	}
	sk.BeginArray(f, len(arr))
	for i, x := range arr {
		if e := emitElem(f, x, sk); e != nil {
			return e.index(i)
		}
	}
	sk.EndArray()
	return nil
}

func checkLen(f *msgdef.Field, n int) *pathErr {
	switch {
	case f.Array == msgdef.Fixed && n != f.Len:
		return &pathErr{err: fmt.Errorf("%w: %d elements for %s[%d]", ErrLength, n, f.TypeName, f.Len)}
	case f.Array == msgdef.Sequence && f.Len > 0 && n > f.Len:
		return &pathErr{err: fmt.Errorf("%w: %d elements for %s[<=%d]", ErrLength, n, f.TypeName, f.Len)}
	case uint64(n) > math.MaxUint32:
		return &pathErr{err: fmt.Errorf("%w: %d elements", ErrLength, n)}
	}
	return nil
}

// emitElem emits one value of f's element kind.
func emitElem(f *msgdef.Field, v any, sk sink.Sink) *pathErr {
	switch f.Kind {
	case msgdef.Bool:
		x, ok := v.(bool)
		if !ok {
			return typeErr(f, v, "bool")
		}
		sk.Bool(f, x)
	case msgdef.Int8, msgdef.Int16, msgdef.Int32, msgdef.Int64:
		x, ok := v.(int64)
		if !ok {
			return typeErr(f, v, "int64")
		}
		if !intFits(f.Kind, x) {
			return rangeErr(f, x)
		}
		sk.Int(f, x)
	case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
		x, ok := v.(uint64)
		if !ok {
			return typeErr(f, v, "uint64")
		}
		if !uintFits(f.Kind, x) {
			return rangeErr(f, x)
		}
		sk.Uint(f, x)
	case msgdef.Float32, msgdef.Float64:
		x, ok := v.(float64)
		if !ok {
			return typeErr(f, v, "float64")
		}
		sk.Float(f, x)
	case msgdef.String, msgdef.WString:
		x, ok := v.(string)
		if !ok {
			return typeErr(f, v, "string")
		}
		if !utf8.ValidString(x) {
			return &pathErr{err: record.ErrBadUTF8}
		}
		sk.String(f, unsafe.Slice(unsafe.StringData(x), len(x)))
	case msgdef.Time:
		x, ok := v.(Time)
		if !ok {
			return typeErr(f, v, "value.Time")
		}
		if x.Sec < 0 || x.Sec > math.MaxUint32 || x.Nsec < 0 || x.Nsec > math.MaxUint32 {
			return rangeErr(f, x)
		}
		sk.Time(f, x.Sec, x.Nsec)
	case msgdef.Duration:
		x, ok := v.(Duration)
		if !ok {
			return typeErr(f, v, "value.Duration")
		}
		if x.Sec < math.MinInt32 || x.Sec > math.MaxInt32 || x.Nsec < math.MinInt32 || x.Nsec > math.MaxInt32 {
			return rangeErr(f, x)
		}
		sk.Time(f, x.Sec, x.Nsec)
	case msgdef.Struct:
		x, ok := v.(*Struct)
		if !ok || x == nil {
			return typeErr(f, v, "*value.Struct")
		}
		if x.Type == nil || f.Msg == nil || x.Type.Name != f.Msg.Name {
			return &pathErr{err: fmt.Errorf("%w: struct of type %s for field of type %s",
				ErrType, typeName(x.Type), typeName(f.Msg))}
		}
		sk.BeginStruct(f)
		if e := emitFields(x, sk); e != nil {
			return e
		}
		sk.EndStruct()
	default:
		return &pathErr{err: fmt.Errorf("%w: field kind %s", ErrType, f.Kind)}
	}
	return nil
}

func typeName(t *msgdef.Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.Name
}

func typeErr(f *msgdef.Field, v any, want string) *pathErr {
	return &pathErr{err: fmt.Errorf("%w: %T for %s field (want %s)", ErrType, v, f.TypeName, want)}
}

func rangeErr(f *msgdef.Field, v any) *pathErr {
	return &pathErr{err: fmt.Errorf("%w: %v does not fit %s", ErrRange, v, f.Kind)}
}

func intFits(k msgdef.Kind, x int64) bool {
	switch k {
	case msgdef.Int8:
		return x >= math.MinInt8 && x <= math.MaxInt8
	case msgdef.Int16:
		return x >= math.MinInt16 && x <= math.MaxInt16
	case msgdef.Int32:
		return x >= math.MinInt32 && x <= math.MaxInt32
	}
	return true
}

func uintFits(k msgdef.Kind, x uint64) bool {
	switch k {
	case msgdef.Uint8:
		return x <= math.MaxUint8
	case msgdef.Uint16:
		return x <= math.MaxUint16
	case msgdef.Uint32:
		return x <= math.MaxUint32
	}
	return true
}
