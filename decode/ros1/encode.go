package ros1

import (
	"math"
	"sync"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// builders lets DecodeValue calls share the slabs trees are carved from.
var builders = sync.Pool{New: func() any { return value.NewBuilder() }}

// DecodeValue decodes one message into a value tree. For a stream of
// messages, decoding into one value.Builder per goroutine does the same.
func (d *Decoder) DecodeValue(data []byte) (*value.Struct, error) {
	b := builders.Get().(*value.Builder)
	defer builders.Put(b)
	if err := d.Decode(data, b); err != nil {
		return nil, err
	}
	return b.Result(), nil
}

// Encode serializes v in the ROS1 wire format of v.Type. Values must have
// the Go types value.Struct documents and fit their fields; otherwise the
// error is a *value.PathError naming the field.
func Encode(v *value.Struct) ([]byte, error) { return AppendEncode(nil, v) }

// AppendEncode appends the ROS1 serialization of v to buf. On error it
// returns buf unchanged (in length) and the error.
func AppendEncode(buf []byte, v *value.Struct) ([]byte, error) {
	e := encoder{buf: buf}
	if err := v.Emit(&e); err != nil {
		return buf, err
	}
	return e.buf, nil
}

// encoder is a sink that writes the wire format. value.Struct.Emit has
// checked types, ranges and lengths before each call.
type encoder struct{ buf []byte }

func (e *encoder) BeginMessage(*msgdef.Type) {}
func (e *encoder) EndMessage()               {}
func (e *encoder) BeginStruct(*msgdef.Field) {}
func (e *encoder) EndStruct()                {}
func (e *encoder) EndArray()                 {}

func (e *encoder) BeginArray(f *msgdef.Field, n int) {
	if f.Array == msgdef.Sequence {
		e.buf = le.AppendUint32(e.buf, uint32(n))
	}
}

func (e *encoder) Bool(_ *msgdef.Field, v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

func (e *encoder) Int(f *msgdef.Field, v int64) { e.putInt(f.Kind, uint64(v)) }

func (e *encoder) Uint(f *msgdef.Field, v uint64) { e.putInt(f.Kind, v) }

func (e *encoder) putInt(k msgdef.Kind, v uint64) {
	switch k.Size() {
	case 1:
		e.buf = append(e.buf, byte(v))
	case 2:
		e.buf = le.AppendUint16(e.buf, uint16(v))
	case 4:
		e.buf = le.AppendUint32(e.buf, uint32(v))
	default:
		e.buf = le.AppendUint64(e.buf, v)
	}
}

func (e *encoder) Float(f *msgdef.Field, v float64) {
	if f.Kind == msgdef.Float32 {
		e.buf = le.AppendUint32(e.buf, math.Float32bits(float32(v)))
		return
	}
	e.buf = le.AppendUint64(e.buf, math.Float64bits(v))
}

func (e *encoder) String(_ *msgdef.Field, v []byte) {
	e.buf = le.AppendUint32(e.buf, uint32(len(v)))
	e.buf = append(e.buf, v...)
}

func (e *encoder) Bytes(f *msgdef.Field, v []byte) {
	if f.Array == msgdef.Sequence {
		e.buf = le.AppendUint32(e.buf, uint32(len(v)))
	}
	e.buf = append(e.buf, v...)
}

func (e *encoder) Time(_ *msgdef.Field, sec, nsec int64) {
	e.buf = le.AppendUint32(e.buf, uint32(sec))
	e.buf = le.AppendUint32(e.buf, uint32(nsec))
}
