package cdr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/baglab/baglab/decode/internal/utf8fix"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// headerSize is the size of the encapsulation header.
const headerSize = 4

// Representation identifiers (first two bytes of the header, big-endian).
const (
	reprCDRBE = 0x0000
	reprCDRLE = 0x0001
)

// Decoder is a compiled plan for one message type. It holds no per-message
// state: one Decoder may be used by several goroutines at once.
type Decoder struct {
	t    *msgdef.Type
	root *plan
	// invalid counts the messages decoded with strings that are not valid
	// UTF-8 (InvalidUTF8)
	invalid atomic.Int64
}

// plan is the compiled form of one struct type.
type plan struct {
	ops []op
	// min is the least number of bytes one instance occupies (alignment
	// ignored), used to bound sequence counts before decoding them.
	min int
}

// op decodes one field.
type op struct {
	f     *msgdef.Field
	kind  msgdef.Kind
	array msgdef.ArrayKind
	n     int   // element count of a fixed array
	blob  bool  // uint8/char/byte array: one Bytes call
	size  int   // wire size (and alignment) of one primitive element, 0 if variable
	sub   *plan // nested struct plan when kind == Struct
}

// Type returns the message type the decoder was compiled for.
func (d *Decoder) Type() *msgdef.Type { return d.t }

// Compile builds a decoder for t. It fails on fields of unknown kind,
// nested fields without a resolved type and recursive types.
func Compile(t *msgdef.Type) (*Decoder, error) {
	if t == nil {
		return nil, fmt.Errorf("cdr: compile: nil type")
	}
	c := compiler{done: map[*msgdef.Type]*plan{}, busy: map[*msgdef.Type]bool{}}
	p, err := c.compile(t)
	if err != nil {
		return nil, err
	}
	return &Decoder{t: t, root: p}, nil
}

type compiler struct {
	done map[*msgdef.Type]*plan
	busy map[*msgdef.Type]bool
}

func (c *compiler) compile(t *msgdef.Type) (*plan, error) {
	if p, ok := c.done[t]; ok {
		return p, nil
	}
	if c.busy[t] {
		return nil, fmt.Errorf("cdr: compile %s: recursive type: %w", t.Name, record.ErrUnsupported)
	}
	c.busy[t] = true
	defer delete(c.busy, t)
	p := &plan{ops: make([]op, len(t.Fields))}
	for i := range t.Fields {
		f := &t.Fields[i]
		o := op{f: f, kind: f.Kind, array: f.Array, blob: f.IsBlob(), size: f.Kind.Size()}
		var elemMin int
		switch f.Kind {
		case msgdef.Bool, msgdef.Int8, msgdef.Uint8, msgdef.Int16, msgdef.Uint16,
			msgdef.Int32, msgdef.Uint32, msgdef.Int64, msgdef.Uint64,
			msgdef.Float32, msgdef.Float64:
			elemMin = o.size
		case msgdef.Time, msgdef.Duration:
			elemMin = 8
		case msgdef.String, msgdef.WString:
			elemMin = 4
		case msgdef.Struct:
			if f.Msg == nil {
				return nil, fmt.Errorf("cdr: compile %s: field %s: unresolved type %q: %w",
					t.Name, f.Name, f.TypeName, record.ErrUnknownType)
			}
			sub, err := c.compile(f.Msg)
			if err != nil {
				return nil, err
			}
			o.sub = sub
			elemMin = sub.min
		default:
			return nil, fmt.Errorf("cdr: compile %s: field %s: kind %s: %w",
				t.Name, f.Name, f.Kind, record.ErrUnsupported)
		}
		switch f.Array {
		case msgdef.Scalar:
			p.min += elemMin
		case msgdef.Fixed:
			if f.Len < 0 {
				return nil, fmt.Errorf("cdr: compile %s: field %s: negative array length: %w",
					t.Name, f.Name, record.ErrFormat)
			}
			o.n = f.Len
			p.min += satMul(elemMin, f.Len)
		case msgdef.Sequence:
			p.min += 4
		default:
			return nil, fmt.Errorf("cdr: compile %s: field %s: array kind %d: %w",
				t.Name, f.Name, f.Array, record.ErrUnsupported)
		}
		p.ops[i] = o
	}
	if len(p.ops) == 0 {
		p.min = 1 // structure_needs_at_least_one_member
	}
	c.done[t] = p
	return p, nil
}

// satMul multiplies non-negative a and b, saturating at MaxInt32 (a bound
// larger than any CDR message).
func satMul(a, b int) int {
	if a != 0 && b > math.MaxInt32/a {
		return math.MaxInt32
	}
	return a * b
}

// Decode decodes one CDR message (data starts with the encapsulation header)
// into s. On error s may have received part of the message; the error is a
// *record.Error with the byte offset in data and the field path.
//
// A string that is not valid UTF-8 (a wstring with an unpaired surrogate)
// reaches s with U+FFFD in place of each ill-formed sequence, as the
// WHATWG TextDecoder of @foxglove/cdr reads it (utf8fix), and the message
// counts in InvalidUTF8; CheckUTF8 says where.
func (d *Decoder) Decode(data []byte, s sink.Sink) error {
	r, err := newReader(data)
	if err != nil {
		return err
	}
	if err := d.decode(&r, s); err != nil {
		return err
	}
	if r.invalid {
		d.invalid.Add(1)
	}
	return nil
}

// InvalidUTF8 is the number of messages Decode (and DecodeValue) read with
// strings that are not valid UTF-8.
func (d *Decoder) InvalidUTF8() int64 { return d.invalid.Load() }

// CheckUTF8 returns the first string of data that is not valid UTF-8, as a
// *record.Error (Offset, Field, Err record.ErrBadUTF8), or nil when every
// string is valid or data does not decode (Decode says why).
func (d *Decoder) CheckUTF8(data []byte) error {
	r, err := newReader(data)
	if err != nil {
		return nil
	}
	r.strict = true
	if err := d.decode(&r, sink.Discard); errors.Is(err, record.ErrBadUTF8) {
		return err
	}
	return nil
}

func (d *Decoder) decode(r *reader, s sink.Sink) error {
	s.BeginMessage(d.t)
	if err := r.structBody(d.root, s); err != nil {
		return err
	}
	if err := r.trailing(); err != nil {
		return err
	}
	s.EndMessage()
	return nil
}

// reader is the per-message decoding state; it lives on the stack.
type reader struct {
	data    []byte
	pos     int // absolute offset in data
	be      bool
	opts    uint16 // header options field
	cnt     int    // offset of the last count read, for errCount
	empties int    // what remains of the budget of zero-size elements
	strict  bool   // a string that is not valid UTF-8 is an error (CheckUTF8)
	invalid bool   // a string was not valid UTF-8
}

// maxEmpties bounds, beyond one per byte of the message, how many elements
// of zero wire size (arrays of messages that hold only zero-length arrays)
// one message may claim: they cost no bytes, so without a budget a few
// bytes (or a definition of nested fixed arrays) could make a sink build
// billions of them. The ROS1 decoder has the same budget.
const maxEmpties = 1 << 16

func newReader(data []byte) (reader, error) {
	if len(data) < headerSize {
		return reader{}, &record.Error{Offset: 0, Err: record.ErrTruncated,
			Detail: fmt.Sprintf("%d bytes, want a 4-byte encapsulation header", len(data))}
	}
	r := reader{data: data, pos: headerSize, opts: binary.BigEndian.Uint16(data[2:]), empties: len(data) + maxEmpties}
	switch id := binary.BigEndian.Uint16(data); id {
	case reprCDRLE:
	case reprCDRBE:
		r.be = true
	case 0x0002, 0x0003:
		return reader{}, &record.Error{Offset: 0, Err: record.ErrUnsupported,
			Detail: "parameter-list CDR (PL_CDR) encapsulation"}
	case 0x0006, 0x0007, 0x0008, 0x0009, 0x000a, 0x000b,
		0x0010, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015:
		return reader{}, &record.Error{Offset: 0, Err: record.ErrUnsupported,
			Detail: fmt.Sprintf("XCDR2 encapsulation 0x%04x", id)}
	default:
		return reader{}, &record.Error{Offset: 0, Err: record.ErrFormat,
			Detail: fmt.Sprintf("unknown CDR representation identifier 0x%04x", id)}
	}
	return r, nil
}

// trailing accepts up to 3 bytes of padding after the message.
func (r *reader) trailing() error {
	rest := r.data[r.pos:]
	if len(rest) == 0 {
		return nil
	}
	if len(rest) < 4 {
		if int(r.opts&3) == len(rest) {
			return nil
		}
		zero := true
		for _, b := range rest {
			zero = zero && b == 0
		}
		if zero {
			return nil
		}
	}
	return &record.Error{Offset: int64(r.pos), Err: record.ErrTrailing,
		Detail: fmt.Sprintf("%d bytes after the message", len(rest))}
}

// align skips the padding before a value of alignment n (1, 2, 4 or 8).
func (r *reader) align(n int) {
	r.pos += -(r.pos - headerSize) & (n - 1)
}

// left is the number of bytes after pos (negative when alignment ran past the end).
func (r *reader) left() int { return len(r.data) - r.pos }

func (r *reader) errTruncated(need int) error {
	return &record.Error{Offset: int64(r.pos), Err: record.ErrTruncated,
		Detail: fmt.Sprintf("need %d bytes, %d left", need, max(r.left(), 0))}
}

func (r *reader) u16() uint16 {
	if r.be {
		return binary.BigEndian.Uint16(r.data[r.pos:])
	}
	return binary.LittleEndian.Uint16(r.data[r.pos:])
}

func (r *reader) u32() uint32 {
	if r.be {
		return binary.BigEndian.Uint32(r.data[r.pos:])
	}
	return binary.LittleEndian.Uint32(r.data[r.pos:])
}

func (r *reader) u64() uint64 {
	if r.be {
		return binary.BigEndian.Uint64(r.data[r.pos:])
	}
	return binary.LittleEndian.Uint64(r.data[r.pos:])
}

// count reads a uint32 length prefix.
func (r *reader) count() (int, error) {
	r.align(4)
	if r.left() < 4 {
		return 0, r.errTruncated(4)
	}
	n := r.u32()
	r.cnt = r.pos
	r.pos += 4
	return int(n), nil
}

// errCount reports a count that cannot fit in the remaining bytes; the offset
// is that of the count itself.
func (r *reader) errCount(n, elemMin int) error {
	return &record.Error{Offset: int64(r.cnt), Err: record.ErrLength,
		Detail: fmt.Sprintf("count %d needs at least %d bytes per element, %d left", n, elemMin, max(r.left(), 0))}
}

func (r *reader) structBody(p *plan, s sink.Sink) error {
	if len(p.ops) == 0 {
		if r.left() < 1 {
			return r.errTruncated(1)
		}
		r.pos++
		return nil
	}
	for i := range p.ops {
		if err := r.field(&p.ops[i], s); err != nil {
			return inField(err, p.ops[i].f.Name)
		}
	}
	return nil
}

func (r *reader) field(o *op, s sink.Sink) error {
	switch o.array {
	case msgdef.Scalar:
		if o.kind == msgdef.Struct {
			s.BeginStruct(o.f)
			if err := r.structBody(o.sub, s); err != nil {
				return err
			}
			s.EndStruct()
			return nil
		}
		return r.scalar(o, s)
	case msgdef.Fixed:
		return r.array(o, o.n, s)
	}
	n, err := r.count()
	if err != nil {
		return err
	}
	return r.array(o, n, s)
}

// array decodes n elements of o after checking they can fit.
func (r *reader) array(o *op, n int, s sink.Sink) error {
	if o.size > 0 || o.kind == msgdef.Time || o.kind == msgdef.Duration {
		size, al := o.size, o.size
		if o.kind == msgdef.Time || o.kind == msgdef.Duration {
			size, al = 8, 4
		}
		if n > 0 {
			r.align(al)
		}
		if !fits(n, size, r.left()) {
			if o.array == msgdef.Sequence {
				return r.errCount(n, size)
			}
			return r.errTruncated(satMul(n, size))
		}
		if o.blob {
			s.Bytes(o.f, r.data[r.pos:r.pos+n])
			r.pos += n
			return nil
		}
		s.BeginArray(o.f, n)
		for range n {
			r.prim(o, s)
		}
		s.EndArray()
		return nil
	}
	elemMin := 4
	if o.kind == msgdef.Struct {
		elemMin = o.sub.min
	}
	if elemMin == 0 {
		// elements of zero wire size (messages of zero-length arrays) cost
		// no bytes: the message's budget bounds them instead
		if n > r.empties {
			off := r.pos
			if o.array == msgdef.Sequence {
				off = r.cnt
			}
			return &record.Error{Offset: int64(off), Err: record.ErrLength,
				Detail: fmt.Sprintf("%d elements of zero size, more than the message's budget of %d", n, r.empties)}
		}
		r.empties -= n
	} else if !fits(n, elemMin, r.left()) {
		if o.array == msgdef.Sequence {
			return r.errCount(n, elemMin)
		}
		return r.errTruncated(satMul(n, elemMin))
	}
	s.BeginArray(o.f, n)
	for i := range n {
		var err error
		switch o.kind {
		case msgdef.Struct:
			s.BeginStruct(o.f)
			if err = r.structBody(o.sub, s); err == nil {
				s.EndStruct()
			}
		case msgdef.String:
			err = r.str(o, s)
		default:
			err = r.wstr(o, s)
		}
		if err != nil {
			return atIndex(err, i)
		}
	}
	s.EndArray()
	return nil
}

// fits reports whether n elements of at least per bytes (per >= 1) can fit
// in left bytes, without overflowing.
func fits(n, per, left int) bool {
	return left >= 0 && n <= left/per
}

// scalar decodes one non-struct scalar field.
func (r *reader) scalar(o *op, s sink.Sink) error {
	switch o.kind {
	case msgdef.String:
		return r.str(o, s)
	case msgdef.WString:
		return r.wstr(o, s)
	case msgdef.Time, msgdef.Duration:
		r.align(4)
		if r.left() < 8 {
			return r.errTruncated(8)
		}
	default:
		r.align(o.size)
		if r.left() < o.size {
			return r.errTruncated(o.size)
		}
	}
	r.prim(o, s)
	return nil
}

// prim decodes one aligned fixed-size element whose bytes are known to be there.
func (r *reader) prim(o *op, s sink.Sink) {
	f := o.f
	switch o.kind {
	case msgdef.Bool:
		s.Bool(f, r.data[r.pos] != 0)
		r.pos++
	case msgdef.Int8:
		s.Int(f, int64(int8(r.data[r.pos])))
		r.pos++
	case msgdef.Uint8:
		s.Uint(f, uint64(r.data[r.pos]))
		r.pos++
	case msgdef.Int16:
		s.Int(f, int64(int16(r.u16())))
		r.pos += 2
	case msgdef.Uint16:
		s.Uint(f, uint64(r.u16()))
		r.pos += 2
	case msgdef.Int32:
		s.Int(f, int64(int32(r.u32())))
		r.pos += 4
	case msgdef.Uint32:
		s.Uint(f, uint64(r.u32()))
		r.pos += 4
	case msgdef.Int64:
		s.Int(f, int64(r.u64()))
		r.pos += 8
	case msgdef.Uint64:
		s.Uint(f, r.u64())
		r.pos += 8
	case msgdef.Float32:
		s.Float(f, float64(math.Float32frombits(r.u32())))
		r.pos += 4
	case msgdef.Float64:
		s.Float(f, math.Float64frombits(r.u64()))
		r.pos += 8
	case msgdef.Time:
		sec := r.u32()
		r.pos += 4
		nsec := r.u32()
		r.pos += 4
		s.Time(f, int64(sec), int64(nsec))
	case msgdef.Duration:
		sec := int32(r.u32())
		r.pos += 4
		nsec := int32(r.u32())
		r.pos += 4
		s.Time(f, int64(sec), int64(nsec))
	}
}

// str decodes a string: uint32 count including the NUL, bytes, NUL.
func (r *reader) str(o *op, s sink.Sink) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	if n == 0 {
		s.String(o.f, nil)
		return nil
	}
	if n > r.left() {
		return r.errCount(n, 1)
	}
	b := r.data[r.pos : r.pos+n]
	if b[n-1] != 0 {
		return &record.Error{Offset: int64(r.pos + n - 1), Err: record.ErrFormat,
			Detail: "string not NUL-terminated"}
	}
	b = b[:n-1]
	if !utf8.Valid(b) {
		if r.strict {
			return &record.Error{Offset: int64(r.pos), Err: record.ErrBadUTF8}
		}
		b, _ = utf8fix.Valid(b)
		r.invalid = true
	}
	s.String(o.f, b)
	r.pos += n
	return nil
}

// wstr decodes a wstring: uint32 count of UTF-16 units, the units.
func (r *reader) wstr(o *op, s sink.Sink) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	if !fits(n, 2, r.left()) {
		return r.errCount(n, 2)
	}
	start := r.pos
	out := make([]byte, 0, n)
	for i := 0; i < n; i++ {
		c := rune(r.u16())
		r.pos += 2
		if utf16.IsSurrogate(c) {
			var c2 rune = utf8.RuneError
			if i+1 < n {
				c2 = rune(r.u16())
			}
			if c = utf16.DecodeRune(c, c2); c != utf8.RuneError {
				r.pos += 2
				i++
			} else if r.strict {
				return &record.Error{Offset: int64(r.pos - 2), Err: record.ErrBadUTF8,
					Detail: "unpaired UTF-16 surrogate in wstring at unit " + strconv.Itoa(i) +
						" of string at offset " + strconv.Itoa(start)}
			} else {
				r.invalid = true // an unpaired surrogate reads as U+FFFD
			}
		}
		out = utf8.AppendRune(out, c)
	}
	s.String(o.f, out)
	return nil
}

// inField prefixes the field path of a decoding error with name.
func inField(err error, name string) error {
	e, ok := err.(*record.Error)
	if !ok {
		return err
	}
	switch {
	case e.Field == "":
		e.Field = name
	case e.Field[0] == '[':
		e.Field = name + e.Field
	default:
		e.Field = name + "." + e.Field
	}
	return e
}

// atIndex prefixes the field path of a decoding error with an element index.
func atIndex(err error, i int) error {
	e, ok := err.(*record.Error)
	if !ok {
		return err
	}
	idx := "[" + strconv.Itoa(i) + "]"
	switch {
	case e.Field == "" || e.Field[0] == '[':
		e.Field = idx + e.Field
	default:
		e.Field = idx + "." + e.Field
	}
	return e
}
