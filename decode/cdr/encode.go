package cdr

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/decode/value"
)

// Encode serializes v as a CDR message, header included, little-endian
// (CDR_LE) unless bigEndian. See AppendEncode.
func Encode(v *value.Struct, bigEndian bool) ([]byte, error) {
	return AppendEncode(nil, v, bigEndian)
}

// AppendEncode appends the CDR serialization of v (encapsulation header
// included) to buf and returns the extended buffer. Values must have the
// Go types value.Struct documents for their field kinds; fixed arrays must
// have exactly their length, and bounded strings and sequences must respect
// their bound (record.ErrLength otherwise). Integers out of range of their
// field, strings that are not UTF-8 and values of the wrong type are
// record.ErrFormat. Errors are *record.Error with Offset -1 and the field
// path. No padding is written after the message.
func AppendEncode(buf []byte, v *value.Struct, bigEndian bool) ([]byte, error) {
	if v == nil || v.Type == nil {
		return buf, &record.Error{Offset: -1, Err: record.ErrFormat, Detail: "nil message"}
	}
	w := writer{buf: buf, base: len(buf) + headerSize, be: bigEndian}
	if bigEndian {
		w.buf = append(w.buf, 0, reprCDRBE, 0, 0)
	} else {
		w.buf = append(w.buf, 0, reprCDRLE, 0, 0)
	}
	if err := w.structBody(v, v.Type); err != nil {
		return buf, err
	}
	return w.buf, nil
}

type writer struct {
	buf  []byte
	base int // index in buf where alignment counts from (end of the header)
	be   bool
}

func (w *writer) align(n int) {
	for pad := -(len(w.buf) - w.base) & (n - 1); pad > 0; pad-- {
		w.buf = append(w.buf, 0)
	}
}

func (w *writer) u16(v uint16) {
	w.align(2)
	if w.be {
		w.buf = binary.BigEndian.AppendUint16(w.buf, v)
	} else {
		w.buf = binary.LittleEndian.AppendUint16(w.buf, v)
	}
}

func (w *writer) u32(v uint32) {
	w.align(4)
	if w.be {
		w.buf = binary.BigEndian.AppendUint32(w.buf, v)
	} else {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
	}
}

func (w *writer) u64(v uint64) {
	w.align(8)
	if w.be {
		w.buf = binary.BigEndian.AppendUint64(w.buf, v)
	} else {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
	}
}

func encErr(sentinel error, format string, args ...any) error {
	return &record.Error{Offset: -1, Err: sentinel, Detail: fmt.Sprintf(format, args...)}
}

func (w *writer) structBody(v *value.Struct, t *msgdef.Type) error {
	if v.Type != t {
		return encErr(record.ErrFormat, "value of type %s where %s is expected", typeName(v.Type), t.Name)
	}
	if len(v.Fields) != len(t.Fields) {
		return encErr(record.ErrFormat, "%s value has %d fields, type has %d", t.Name, len(v.Fields), len(t.Fields))
	}
	if len(t.Fields) == 0 {
		w.buf = append(w.buf, 0) // structure_needs_at_least_one_member
		return nil
	}
	for i := range t.Fields {
		if err := w.field(&t.Fields[i], v.Fields[i]); err != nil {
			return inField(err, t.Fields[i].Name)
		}
	}
	return nil
}

func typeName(t *msgdef.Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.Name
}

func (w *writer) field(f *msgdef.Field, v any) error {
	if f.Array == msgdef.Scalar {
		return w.elem(f, v)
	}
	var n int
	if f.IsBlob() {
		b, ok := v.([]byte)
		if !ok {
			return encErr(record.ErrFormat, "%T for a byte array, want []byte", v)
		}
		n = len(b)
		if err := w.arrayLen(f, n); err != nil {
			return err
		}
		w.buf = append(w.buf, b...)
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		return encErr(record.ErrFormat, "%T for an array, want []any", v)
	}
	if err := w.arrayLen(f, len(a)); err != nil {
		return err
	}
	for i, e := range a {
		if err := w.elem(f, e); err != nil {
			return atIndex(err, i)
		}
	}
	return nil
}

// arrayLen checks an array's length against its definition and writes the
// count of a sequence.
func (w *writer) arrayLen(f *msgdef.Field, n int) error {
	switch {
	case f.Array == msgdef.Fixed && n != f.Len:
		return encErr(record.ErrLength, "%d elements for fixed array of %d", n, f.Len)
	case f.Array == msgdef.Sequence && f.Len > 0 && n > f.Len:
		return encErr(record.ErrLength, "%d elements exceed bound %d", n, f.Len)
	case n > math.MaxUint32:
		return encErr(record.ErrLength, "%d elements", n)
	}
	if f.Array == msgdef.Sequence {
		w.u32(uint32(n))
	}
	return nil
}

// elem writes one scalar value or array element of field f.
func (w *writer) elem(f *msgdef.Field, v any) error {
	switch f.Kind {
	case msgdef.Bool:
		b, ok := v.(bool)
		if !ok {
			return wrongType(f, v)
		}
		if b {
			w.buf = append(w.buf, 1)
		} else {
			w.buf = append(w.buf, 0)
		}
	case msgdef.Int8, msgdef.Int16, msgdef.Int32, msgdef.Int64:
		x, ok := v.(int64)
		if !ok {
			return wrongType(f, v)
		}
		bits := uint(f.Kind.Size() * 8)
		if bits < 64 && (x < -1<<(bits-1) || x >= 1<<(bits-1)) {
			return encErr(record.ErrFormat, "%d out of range for %s", x, f.Kind)
		}
		w.uint(f.Kind, uint64(x))
	case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
		x, ok := v.(uint64)
		if !ok {
			return wrongType(f, v)
		}
		bits := uint(f.Kind.Size() * 8)
		if bits < 64 && x >= 1<<bits {
			return encErr(record.ErrFormat, "%d out of range for %s", x, f.Kind)
		}
		w.uint(f.Kind, x)
	case msgdef.Float32:
		x, ok := v.(float64)
		if !ok {
			return wrongType(f, v)
		}
		w.u32(math.Float32bits(float32(x)))
	case msgdef.Float64:
		x, ok := v.(float64)
		if !ok {
			return wrongType(f, v)
		}
		w.u64(math.Float64bits(x))
	case msgdef.String:
		s, ok := v.(string)
		if !ok {
			return wrongType(f, v)
		}
		return w.str(f, s)
	case msgdef.WString:
		s, ok := v.(string)
		if !ok {
			return wrongType(f, v)
		}
		return w.wstr(f, s)
	case msgdef.Time:
		t, ok := v.(value.Time)
		if !ok {
			return wrongType(f, v)
		}
		if t.Sec < 0 || t.Sec > math.MaxUint32 || t.Nsec < 0 || t.Nsec > math.MaxUint32 {
			return encErr(record.ErrFormat, "time %d.%09d out of range", t.Sec, t.Nsec)
		}
		w.u32(uint32(t.Sec))
		w.u32(uint32(t.Nsec))
	case msgdef.Duration:
		d, ok := v.(value.Duration)
		if !ok {
			return wrongType(f, v)
		}
		if d.Sec != int64(int32(d.Sec)) || d.Nsec != int64(int32(d.Nsec)) {
			return encErr(record.ErrFormat, "duration %d s %d ns out of range", d.Sec, d.Nsec)
		}
		w.u32(uint32(int32(d.Sec)))
		w.u32(uint32(int32(d.Nsec)))
	case msgdef.Struct:
		s, ok := v.(*value.Struct)
		if !ok || s == nil {
			return wrongType(f, v)
		}
		return w.structBody(s, f.Msg)
	default:
		return encErr(record.ErrUnsupported, "kind %s", f.Kind)
	}
	return nil
}

func wrongType(f *msgdef.Field, v any) error {
	return encErr(record.ErrFormat, "%T for a %s value", v, f.Kind)
}

// uint writes the low bytes of x as an integer of kind k.
func (w *writer) uint(k msgdef.Kind, x uint64) {
	switch k.Size() {
	case 1:
		w.buf = append(w.buf, byte(x))
	case 2:
		w.u16(uint16(x))
	case 4:
		w.u32(uint32(x))
	default:
		w.u64(x)
	}
}

func (w *writer) str(f *msgdef.Field, s string) error {
	if f.StringBound > 0 && len(s) > f.StringBound {
		return encErr(record.ErrLength, "string of %d bytes exceeds bound %d", len(s), f.StringBound)
	}
	if !utf8.ValidString(s) {
		return encErr(record.ErrBadUTF8, "string %q", s)
	}
	if len(s) >= math.MaxUint32 {
		return encErr(record.ErrLength, "string of %d bytes", len(s))
	}
	w.u32(uint32(len(s) + 1))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
	return nil
}

func (w *writer) wstr(f *msgdef.Field, s string) error {
	if !utf8.ValidString(s) {
		return encErr(record.ErrBadUTF8, "wstring %q", s)
	}
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	if f.StringBound > 0 && n > f.StringBound {
		return encErr(record.ErrLength, "wstring of %d UTF-16 units exceeds bound %d", n, f.StringBound)
	}
	if n > math.MaxUint32 {
		return encErr(record.ErrLength, "wstring of %d UTF-16 units", n)
	}
	w.u32(uint32(n))
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			w.u16(uint16(r1))
			w.u16(uint16(r2))
		} else {
			w.u16(uint16(r))
		}
	}
	return nil
}
