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
	var e Encoder
	e.Start(buf)
	if err := v.Emit(&e); err != nil {
		return buf, err
	}
	return e.Out(), nil
}

// Encoder is a sink.Sink that writes the wire format of the message a
// codec walks or a value tree emits: the events must fit a ROS1 type in
// kinds, arrays and order (the fields given may be another type's with
// the same wire layout, as in transcoding without a value tree). It
// checks nothing (value.Struct.Emit has checked types, ranges and lengths
// before each call).
type Encoder struct{ buf []byte }

// Start begins a message, appending to buf.
func (e *Encoder) Start(buf []byte) { e.buf = buf }

// Out returns buf with the message appended.
func (e *Encoder) Out() []byte { return e.buf }

// BeginMessage implements sink.Sink; it writes nothing.
func (e *Encoder) BeginMessage(*msgdef.Type) {}

// EndMessage implements sink.Sink; it writes nothing.
func (e *Encoder) EndMessage() {}

// BeginStruct implements sink.Sink; it writes nothing.
func (e *Encoder) BeginStruct(*msgdef.Field) {}

// EndStruct implements sink.Sink; it writes nothing.
func (e *Encoder) EndStruct() {}

// EndArray implements sink.Sink; it writes nothing.
func (e *Encoder) EndArray() {}

// BeginArray implements sink.Sink: a sequence's length.
func (e *Encoder) BeginArray(f *msgdef.Field, n int) {
	if f.Array == msgdef.Sequence {
		e.buf = le.AppendUint32(e.buf, uint32(n))
	}
}

// Bool implements sink.Sink.
func (e *Encoder) Bool(_ *msgdef.Field, v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// Int implements sink.Sink.
func (e *Encoder) Int(f *msgdef.Field, v int64) { e.putInt(f.Kind, uint64(v)) }

// Uint implements sink.Sink.
func (e *Encoder) Uint(f *msgdef.Field, v uint64) { e.putInt(f.Kind, v) }

func (e *Encoder) putInt(k msgdef.Kind, v uint64) {
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

// Float implements sink.Sink.
func (e *Encoder) Float(f *msgdef.Field, v float64) {
	if f.Kind == msgdef.Float32 {
		e.buf = le.AppendUint32(e.buf, math.Float32bits(float32(v)))
		return
	}
	e.buf = le.AppendUint64(e.buf, math.Float64bits(v))
}

// String implements sink.Sink.
func (e *Encoder) String(_ *msgdef.Field, v []byte) {
	e.buf = le.AppendUint32(e.buf, uint32(len(v)))
	e.buf = append(e.buf, v...)
}

// Bytes implements sink.Sink.
func (e *Encoder) Bytes(f *msgdef.Field, v []byte) {
	if f.Array == msgdef.Sequence {
		e.buf = le.AppendUint32(e.buf, uint32(len(v)))
	}
	e.buf = append(e.buf, v...)
}

// Time implements sink.Sink: a time or duration as two 4-byte words.
func (e *Encoder) Time(_ *msgdef.Field, sec, nsec int64) {
	e.buf = le.AppendUint32(e.buf, uint32(sec))
	e.buf = le.AppendUint32(e.buf, uint32(nsec))
}
