package ros1

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/baglab/baglab/decode/internal/utf8fix"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

var le = binary.LittleEndian

// Decode decodes one message from data into s. On success s has seen
// BeginMessage, the fields in schema order and EndMessage, and every byte of
// data was used. On failure it returns a *record.Error (Offset: the byte
// offset in data where the failing field starts; Field: its full path; Err:
// record.ErrTruncated, ErrLength or ErrTrailing); s has then seen part of
// the message and no EndMessage.
//
// A string that is not valid UTF-8 reaches s with U+FFFD in place of each
// ill-formed sequence, as genpy reads it (utf8fix), and the message counts
// in InvalidUTF8; CheckUTF8 says where.
func (d *Decoder) Decode(data []byte, s sink.Sink) error {
	st := state{empties: len(data) + maxEmpties}
	if err := d.decode(data, s, &st); err != nil {
		return err
	}
	if st.invalid {
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
	st := state{empties: len(data) + maxEmpties, strict: true}
	if err := d.decode(data, sink.Discard, &st); errors.Is(err, record.ErrBadUTF8) {
		return err
	}
	return nil
}

func (d *Decoder) decode(data []byte, s sink.Sink, st *state) error {
	s.BeginMessage(d.t)
	p, e := d.root.decode(data, 0, s, st)
	if e != nil {
		return e.record()
	}
	if p != len(data) {
		return &record.Error{Offset: int64(p), Err: record.ErrTrailing,
			Detail: fmt.Sprintf("%d of %d bytes left after %s", len(data)-p, len(data), d.t.Name)}
	}
	s.EndMessage()
	return nil
}

// state is what the decoding of one message keeps besides the offset.
type state struct {
	// empties is what remains of the message's budget of zero-size
	// elements (maxEmpties)
	empties int
	// strict makes a string that is not valid UTF-8 an error (CheckUTF8)
	strict bool
	// invalid is set when a string was not valid UTF-8
	invalid bool
}

// maxEmpties bounds, beyond one per byte of the message, how many elements
// of zero wire size (arrays of empty messages) one message may claim. Such
// elements cost no bytes, so the input alone cannot bound them; without a
// budget a few bytes could make a sink build billions of them.
const maxEmpties = 1 << 16

// decode runs the plan on b from offset p and returns the offset after the
// message.
func (pl *plan) decode(b []byte, p int, s sink.Sink, st *state) (int, *decErr) {
	ops := pl.ops
	for i := range ops {
		o := &ops[i]
		if o.run > len(b)-p {
			return p, pl.truncatedRun(b, p, i)
		}
		switch o.code {
		case opBool:
			s.Bool(o.f, b[p] != 0)
			p++
		case opInt8:
			s.Int(o.f, int64(int8(b[p])))
			p++
		case opUint8:
			s.Uint(o.f, uint64(b[p]))
			p++
		case opInt16:
			s.Int(o.f, int64(int16(le.Uint16(b[p:]))))
			p += 2
		case opUint16:
			s.Uint(o.f, uint64(le.Uint16(b[p:])))
			p += 2
		case opInt32:
			s.Int(o.f, int64(int32(le.Uint32(b[p:]))))
			p += 4
		case opUint32:
			s.Uint(o.f, uint64(le.Uint32(b[p:])))
			p += 4
		case opInt64:
			s.Int(o.f, int64(le.Uint64(b[p:])))
			p += 8
		case opUint64:
			s.Uint(o.f, le.Uint64(b[p:]))
			p += 8
		case opFloat32:
			s.Float(o.f, float64(math.Float32frombits(le.Uint32(b[p:]))))
			p += 4
		case opFloat64:
			s.Float(o.f, math.Float64frombits(le.Uint64(b[p:])))
			p += 8
		case opTime:
			putTime(s, o.f, b[p:])
			p += 8
		case opBegin:
			s.BeginStruct(o.f)
		case opEnd:
			s.EndStruct()
		case opFixedArr:
			s.BeginArray(o.f, o.n)
			p = putPrims(b, p, o.n, o.f, s)
			s.EndArray()
		case opFixedBlob:
			s.Bytes(o.f, b[p:p+o.size:p+o.size])
			p += o.size
		case opString:
			v, n, err := readString(b, p, st)
			if err != nil {
				return p, err.at(o.path)
			}
			s.String(o.f, v)
			p += 4 + n
		case opFixedStrings:
			s.BeginArray(o.f, o.n)
			var err *decErr
			if p, err = putStrings(b, p, o.n, o.f, s, st); err != nil {
				return p, err.at(o.path)
			}
			s.EndArray()
		case opFixedStructs:
			if o.sub.min == 0 {
				if err := spend(st, o.n, p); err != nil {
					return p, err.at(o.path)
				}
			}
			s.BeginArray(o.f, o.n)
			var err *decErr
			if p, err = putStructs(b, p, o.n, o, s, st); err != nil {
				return p, err.at(o.path)
			}
			s.EndArray()
		case opSeqBlob:
			n, err := readCount(b, p, 1, o.n)
			if err != nil {
				return p, err.at(o.path)
			}
			p += 4
			s.Bytes(o.f, b[p:p+n:p+n])
			p += n
		case opSeqArr:
			n, err := readCount(b, p, o.elem.Size(), o.n)
			if err != nil {
				return p, err.at(o.path)
			}
			s.BeginArray(o.f, n)
			p = putPrims(b, p+4, n, o.f, s)
			s.EndArray()
		case opSeqStrings:
			n, err := readCount(b, p, 4, o.n)
			if err != nil {
				return p, err.at(o.path)
			}
			s.BeginArray(o.f, n)
			if p, err = putStrings(b, p+4, n, o.f, s, st); err != nil {
				return p, err.at(o.path)
			}
			s.EndArray()
		case opSeqStructs:
			n, err := readCount(b, p, o.sub.min, o.n)
			if err == nil && o.sub.min == 0 {
				err = spend(st, n, p)
			}
			if err != nil {
				return p, err.at(o.path)
			}
			s.BeginArray(o.f, n)
			if p, err = putStructs(b, p+4, n, o, s, st); err != nil {
				return p, err.at(o.path)
			}
			s.EndArray()
		}
	}
	return p, nil
}

func putTime(s sink.Sink, f *msgdef.Field, b []byte) {
	if f.Kind == msgdef.Duration {
		s.Time(f, int64(int32(le.Uint32(b))), int64(int32(le.Uint32(b[4:]))))
		return
	}
	s.Time(f, int64(le.Uint32(b)), int64(le.Uint32(b[4:])))
}

// putPrims delivers n fixed-size primitives of f.Kind starting at p, whose
// bytes the caller has checked, and returns the offset after them.
func putPrims(b []byte, p, n int, f *msgdef.Field, s sink.Sink) int {
	size := f.Kind.Size()
	b = b[p : p+n*size]
	switch f.Kind {
	case msgdef.Bool:
		for _, c := range b {
			s.Bool(f, c != 0)
		}
	case msgdef.Int8:
		for _, c := range b {
			s.Int(f, int64(int8(c)))
		}
	case msgdef.Uint8:
		for _, c := range b {
			s.Uint(f, uint64(c))
		}
	case msgdef.Int16:
		for i := 0; i+2 <= len(b); i += 2 {
			s.Int(f, int64(int16(le.Uint16(b[i:]))))
		}
	case msgdef.Uint16:
		for i := 0; i+2 <= len(b); i += 2 {
			s.Uint(f, uint64(le.Uint16(b[i:])))
		}
	case msgdef.Int32:
		for i := 0; i+4 <= len(b); i += 4 {
			s.Int(f, int64(int32(le.Uint32(b[i:]))))
		}
	case msgdef.Uint32:
		for i := 0; i+4 <= len(b); i += 4 {
			s.Uint(f, uint64(le.Uint32(b[i:])))
		}
	case msgdef.Int64:
		for i := 0; i+8 <= len(b); i += 8 {
			s.Int(f, int64(le.Uint64(b[i:])))
		}
	case msgdef.Uint64:
		for i := 0; i+8 <= len(b); i += 8 {
			s.Uint(f, le.Uint64(b[i:]))
		}
	case msgdef.Float32:
		for i := 0; i+4 <= len(b); i += 4 {
			s.Float(f, float64(math.Float32frombits(le.Uint32(b[i:]))))
		}
	case msgdef.Float64:
		for i := 0; i+8 <= len(b); i += 8 {
			s.Float(f, math.Float64frombits(le.Uint64(b[i:])))
		}
	case msgdef.Time, msgdef.Duration:
		for i := 0; i+8 <= len(b); i += 8 {
			putTime(s, f, b[i:])
		}
	}
	return p + len(b)
}

func putStrings(b []byte, p, n int, f *msgdef.Field, s sink.Sink, st *state) (int, *decErr) {
	for i := 0; i < n; i++ {
		v, size, err := readString(b, p, st)
		if err != nil {
			return p, err.index(i)
		}
		s.String(f, v)
		p += 4 + size
	}
	return p, nil
}

func putStructs(b []byte, p, n int, o *op, s sink.Sink, st *state) (int, *decErr) {
	var err *decErr
	for i := 0; i < n; i++ {
		s.BeginStruct(o.f)
		if p, err = o.sub.decode(b, p, s, st); err != nil {
			return p, err.index(i)
		}
		s.EndStruct()
	}
	return p, nil
}

// readString reads a length-prefixed string at p and returns its text and
// its length on the wire. The text is a view of its bytes when they are
// valid UTF-8, else a copy with U+FFFD substituted (st.invalid is set), or
// with st.strict an error.
func readString(b []byte, p int, st *state) ([]byte, int, *decErr) {
	if len(b)-p < 4 {
		return nil, 0, &decErr{off: p, err: record.ErrTruncated, detail: "string length"}
	}
	n := le.Uint32(b[p:])
	if uint64(n) > uint64(len(b)-p-4) {
		return nil, 0, &decErr{off: p, err: record.ErrLength,
			detail: fmt.Sprintf("string of %d bytes, %d left", n, len(b)-p-4)}
	}
	v := b[p+4 : p+4+int(n) : p+4+int(n)]
	if !utf8.Valid(v) {
		if st.strict {
			return nil, 0, &decErr{off: p, err: record.ErrBadUTF8}
		}
		v, _ = utf8fix.Valid(v)
		st.invalid = true
	}
	return v, int(n), nil
}

// readCount reads the uint32 element count of a sequence at p and checks
// that count elements of at least elemMin bytes fit in what remains and that
// the count respects bound (0 = none). Elements of size 0 are checked by
// spend.
func readCount(b []byte, p, elemMin, bound int) (int, *decErr) {
	if len(b)-p < 4 {
		return 0, &decErr{off: p, err: record.ErrTruncated, detail: "array length"}
	}
	n := uint64(le.Uint32(b[p:]))
	rest := uint64(len(b) - p - 4)
	if elemMin > 0 && n > rest/uint64(elemMin) {
		return 0, &decErr{off: p, err: record.ErrLength,
			detail: fmt.Sprintf("%d elements of at least %d bytes, %d bytes left", n, elemMin, rest)}
	}
	if bound > 0 && n > uint64(bound) {
		return 0, &decErr{off: p, err: record.ErrLength,
			detail: fmt.Sprintf("%d elements, bound %d", n, bound)}
	}
	return int(n), nil
}

// spend takes n zero-size elements from the message's budget.
func spend(st *state, n, p int) *decErr {
	if n > st.empties {
		return &decErr{off: p, err: record.ErrLength,
			detail: fmt.Sprintf("%d empty elements, more than the message's budget of %d", n, st.empties)}
	}
	st.empties -= n
	return nil
}

// truncatedRun reports a run of fixed-size ops starting at ops[i] that does
// not fit: the error names the first field of the run that is cut.
func (pl *plan) truncatedRun(b []byte, p, i int) *decErr {
	rest := len(b) - p
	for j := i; j < len(pl.ops); j++ {
		o := &pl.ops[j]
		if o.size > rest {
			return (&decErr{off: p, err: record.ErrTruncated,
				detail: fmt.Sprintf("%s needs %d bytes, %d left", o.f.TypeName, o.size, rest)}).at(o.path)
		}
		rest -= o.size
		p += o.size
	}
	return &decErr{off: p, err: record.ErrTruncated} // unreachable: the run did not fit
}

// decErr is a decoding error on its way up the plan tree. The field path is
// collected innermost first while unwinding, so the success path never
// builds it.
type decErr struct {
	off    int
	err    error
	detail string
	path   []pathSeg
}

// pathSeg is a dotted field path or, when name is "", an array index.
type pathSeg struct {
	name string
	idx  int
}

func (e *decErr) at(path string) *decErr {
	e.path = append(e.path, pathSeg{name: path})
	return e
}

func (e *decErr) index(i int) *decErr {
	e.path = append(e.path, pathSeg{idx: i})
	return e
}

func (e *decErr) record() *record.Error {
	var sb strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		sg := e.path[i]
		if sg.name == "" {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(sg.idx))
			sb.WriteByte(']')
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(sg.name)
	}
	return &record.Error{Offset: int64(e.off), Field: sb.String(), Err: e.err, Detail: e.detail}
}
