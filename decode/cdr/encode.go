package cdr

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// Encode serializes v as a CDR message, encapsulation header included,
// little-endian (CDR_LE) unless bigEndian. See AppendEncode.
func Encode(v *value.Struct, bigEndian bool) ([]byte, error) {
	return AppendEncode(nil, v, bigEndian)
}

// AppendEncode appends the CDR serialization of v (encapsulation header
// included, no trailing padding) to buf. Values must have the Go types
// value.Struct documents and fit their fields, fixed arrays must have their
// length and bounded sequences and strings must respect their bound
// (string<=N counts bytes, wstring<=N UTF-16 units); otherwise the error is
// a *value.PathError naming the field, as from ros1.Encode. On error buf is
// returned unchanged in length.
func AppendEncode(buf []byte, v *value.Struct, bigEndian bool) ([]byte, error) {
	e := encoder{buf: buf, base: len(buf) + headerSize, be: bigEndian}
	if bigEndian {
		e.buf = append(e.buf, 0, reprCDRBE, 0, 0)
	} else {
		e.buf = append(e.buf, 0, reprCDRLE, 0, 0)
	}
	if err := v.Emit(&e); err != nil {
		return buf, err
	}
	if e.overBound {
		return buf, boundError(v)
	}
	return e.buf, nil
}

// encoder is a sink that writes CDR. value.Struct.Emit has checked Go types,
// ranges, UTF-8 and array lengths before each call; the encoder checks
// string bounds itself.
type encoder struct {
	buf       []byte
	base      int // index in buf that alignment counts from (end of the header)
	be        bool
	overBound bool // a string exceeded its bound; boundError finds which
}

func (e *encoder) align(n int) {
	for pad := -(len(e.buf) - e.base) & (n - 1); pad > 0; pad-- {
		e.buf = append(e.buf, 0)
	}
}

func (e *encoder) u16(v uint16) {
	e.align(2)
	if e.be {
		e.buf = binary.BigEndian.AppendUint16(e.buf, v)
	} else {
		e.buf = binary.LittleEndian.AppendUint16(e.buf, v)
	}
}

func (e *encoder) u32(v uint32) {
	e.align(4)
	if e.be {
		e.buf = binary.BigEndian.AppendUint32(e.buf, v)
	} else {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
	}
}

func (e *encoder) u64(v uint64) {
	e.align(8)
	if e.be {
		e.buf = binary.BigEndian.AppendUint64(e.buf, v)
	} else {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, v)
	}
}

// int writes the low bytes of x as an integer of kind k.
func (e *encoder) putInt(k msgdef.Kind, x uint64) {
	switch k.Size() {
	case 1:
		e.buf = append(e.buf, byte(x))
	case 2:
		e.u16(uint16(x))
	case 4:
		e.u32(uint32(x))
	default:
		e.u64(x)
	}
}

// BeginMessage writes the member of an empty message.
func (e *encoder) BeginMessage(t *msgdef.Type) {
	if len(t.Fields) == 0 {
		e.buf = append(e.buf, 0) // structure_needs_at_least_one_member
	}
}

// EndMessage does nothing.
func (e *encoder) EndMessage() {}

// BeginStruct writes the member of an empty nested message.
func (e *encoder) BeginStruct(f *msgdef.Field) {
	if len(f.Msg.Fields) == 0 {
		e.buf = append(e.buf, 0)
	}
}

// EndStruct does nothing.
func (e *encoder) EndStruct() {}

// BeginArray writes a sequence's count.
func (e *encoder) BeginArray(f *msgdef.Field, n int) {
	if f.Array == msgdef.Sequence {
		e.u32(uint32(n))
	}
}

// EndArray does nothing.
func (e *encoder) EndArray() {}

// Bool writes 1 or 0.
func (e *encoder) Bool(_ *msgdef.Field, v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Int writes a signed integer of f's width.
func (e *encoder) Int(f *msgdef.Field, v int64) { e.putInt(f.Kind, uint64(v)) }

// Uint writes an unsigned integer of f's width.
func (e *encoder) Uint(f *msgdef.Field, v uint64) { e.putInt(f.Kind, v) }

// Float writes a float32 or float64.
func (e *encoder) Float(f *msgdef.Field, v float64) {
	if f.Kind == msgdef.Float32 {
		e.u32(math.Float32bits(float32(v)))
	} else {
		e.u64(math.Float64bits(v))
	}
}

// String writes a string (count with NUL, bytes, NUL) or a wstring (count of
// UTF-16 units, units).
func (e *encoder) String(f *msgdef.Field, v []byte) {
	if f.Kind == msgdef.WString {
		e.wstring(f, v)
		return
	}
	if f.StringBound > 0 && len(v) > f.StringBound {
		e.overBound = true
	}
	e.u32(uint32(len(v) + 1))
	e.buf = append(e.buf, v...)
	e.buf = append(e.buf, 0)
}

func (e *encoder) wstring(f *msgdef.Field, v []byte) {
	n := utf16Len(v)
	if f.StringBound > 0 && n > f.StringBound {
		e.overBound = true
	}
	e.u32(uint32(n))
	for len(v) > 0 {
		r, size := utf8.DecodeRune(v)
		v = v[size:]
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			e.u16(uint16(r1))
			e.u16(uint16(r2))
		} else {
			e.u16(uint16(r))
		}
	}
}

func utf16Len(v []byte) int {
	n := 0
	for len(v) > 0 {
		r, size := utf8.DecodeRune(v)
		v = v[size:]
		n += utf16.RuneLen(r)
	}
	return n
}

// Bytes writes a blob, with its count when it is a sequence.
func (e *encoder) Bytes(f *msgdef.Field, v []byte) {
	if f.Array == msgdef.Sequence {
		e.u32(uint32(len(v)))
	}
	e.buf = append(e.buf, v...)
}

// Time writes a ROS1 time or duration as two 4-byte words.
func (e *encoder) Time(_ *msgdef.Field, sec, nsec int64) {
	e.u32(uint32(sec))
	e.u32(uint32(nsec))
}

// boundError finds the first string of v longer than its bound. It runs only
// after the encoder saw one, so the success path keeps no field path.
func boundError(v *value.Struct) error {
	path, n, bound := firstOverBound(v)
	return &value.PathError{Path: path, Err: fmt.Errorf("%w: string of length %d exceeds bound %d",
		value.ErrLength, n, bound)}
}

func firstOverBound(v *value.Struct) (path string, n, bound int) {
	for i := range v.Type.Fields {
		f := &v.Type.Fields[i]
		check := func(x any) (string, int, int) {
			switch x := x.(type) {
			case string:
				n := len(x)
				if f.Kind == msgdef.WString {
					n = utf16Len([]byte(x))
				}
				if f.StringBound > 0 && n > f.StringBound {
					return "", n, f.StringBound
				}
			case *value.Struct:
				if p, n, b := firstOverBound(x); p != "" {
					return "." + p, n, b
				}
			}
			return "", 0, 0
		}
		if a, ok := v.Fields[i].([]any); ok {
			for j, x := range a {
				if p, n, b := check(x); b > 0 {
					return f.Name + "[" + strconv.Itoa(j) + "]" + p, n, b
				}
			}
		} else if p, n, b := check(v.Fields[i]); b > 0 {
			return f.Name + p, n, b
		}
	}
	return "", 0, 0
}

// Encoder is a sink.Sink that writes the CDR (little endian) of the
// message a codec walks, for transcoding without a value tree: the events
// must fit the CDR type in kinds, arrays and order (the fields given may
// be another type's with the same wire layout). Unlike Encode it checks
// nothing: strings are written as they come, bounds are not enforced.
type Encoder struct{ e encoder }

// Start begins a message, appending to buf (its encapsulation header
// first).
func (x *Encoder) Start(buf []byte) {
	x.e = encoder{buf: append(buf, 0, reprCDRLE, 0, 0), base: len(buf) + headerSize}
}

// Out returns buf with the message appended.
func (x *Encoder) Out() []byte { return x.e.buf }

// BeginMessage implements sink.Sink.
func (x *Encoder) BeginMessage(t *msgdef.Type) { x.e.BeginMessage(t) }

// EndMessage implements sink.Sink.
func (x *Encoder) EndMessage() {}

// BeginStruct implements sink.Sink.
func (x *Encoder) BeginStruct(f *msgdef.Field) { x.e.BeginStruct(f) }

// EndStruct implements sink.Sink.
func (x *Encoder) EndStruct() {}

// BeginArray implements sink.Sink.
func (x *Encoder) BeginArray(f *msgdef.Field, n int) { x.e.BeginArray(f, n) }

// EndArray implements sink.Sink.
func (x *Encoder) EndArray() {}

// Bool implements sink.Sink.
func (x *Encoder) Bool(f *msgdef.Field, v bool) { x.e.Bool(f, v) }

// Int implements sink.Sink.
func (x *Encoder) Int(f *msgdef.Field, v int64) { x.e.Int(f, v) }

// Uint implements sink.Sink.
func (x *Encoder) Uint(f *msgdef.Field, v uint64) { x.e.Uint(f, v) }

// Float implements sink.Sink.
func (x *Encoder) Float(f *msgdef.Field, v float64) { x.e.Float(f, v) }

// String implements sink.Sink.
func (x *Encoder) String(f *msgdef.Field, v []byte) { x.e.String(f, v) }

// Bytes implements sink.Sink.
func (x *Encoder) Bytes(f *msgdef.Field, v []byte) { x.e.Bytes(f, v) }

// Time implements sink.Sink: a ROS1 time or duration is written as two
// 4-byte words, the CDR of builtin_interfaces/msg/Time and Duration.
func (x *Encoder) Time(f *msgdef.Field, sec, nsec int64) { x.e.Time(f, sec, nsec) }
