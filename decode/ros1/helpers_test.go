package ros1

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
)

// Hand-built types for tests that do not depend on the msgdef parser.

func ty(name string, fields ...msgdef.Field) *msgdef.Type {
	return &msgdef.Type{Name: name, FullName: name, Dialect: msgdef.ROS1, Fields: fields}
}

var primNames = map[msgdef.Kind]string{
	msgdef.Bool: "bool", msgdef.Int8: "int8", msgdef.Uint8: "uint8", msgdef.Int16: "int16",
	msgdef.Uint16: "uint16", msgdef.Int32: "int32", msgdef.Uint32: "uint32", msgdef.Int64: "int64",
	msgdef.Uint64: "uint64", msgdef.Float32: "float32", msgdef.Float64: "float64",
	msgdef.String: "string", msgdef.Time: "time", msgdef.Duration: "duration",
}

// fld is a scalar primitive field.
func fld(name string, k msgdef.Kind) msgdef.Field {
	return msgdef.Field{Name: name, Kind: k, Prim: primNames[k], TypeName: primNames[k]}
}

// arr turns a field into an array: n >= 0 fixed of length n, n < 0 a sequence.
func arr(f msgdef.Field, n int) msgdef.Field {
	if n < 0 {
		f.Array = msgdef.Sequence
	} else {
		f.Array, f.Len = msgdef.Fixed, n
	}
	return f
}

// withPrim renames the primitive (byte, char).
func withPrim(f msgdef.Field, prim string) msgdef.Field {
	f.Prim, f.TypeName = prim, prim
	return f
}

// sub is a nested message field.
func sub(name string, t *msgdef.Type) msgdef.Field {
	return msgdef.Field{Name: name, Kind: msgdef.Struct, Msg: t, TypeName: t.Name}
}

var (
	tPoint      = ty("geometry_msgs/Point", fld("x", msgdef.Float64), fld("y", msgdef.Float64), fld("z", msgdef.Float64))
	tQuaternion = ty("geometry_msgs/Quaternion", fld("x", msgdef.Float64), fld("y", msgdef.Float64), fld("z", msgdef.Float64), fld("w", msgdef.Float64))
	tPose       = ty("geometry_msgs/Pose", sub("position", tPoint), sub("orientation", tQuaternion))
	tHeader     = ty("std_msgs/Header", fld("seq", msgdef.Uint32), fld("stamp", msgdef.Time), fld("frame_id", msgdef.String))
)

// wire builds little-endian ROS1 bytes.
type wire []byte

func (w wire) u8(v uint8) wire    { return append(w, v) }
func (w wire) u16(v uint16) wire  { return binary.LittleEndian.AppendUint16(w, v) }
func (w wire) u32(v uint32) wire  { return binary.LittleEndian.AppendUint32(w, v) }
func (w wire) u64(v uint64) wire  { return binary.LittleEndian.AppendUint64(w, v) }
func (w wire) i32(v int32) wire   { return w.u32(uint32(v)) }
func (w wire) f32(v float32) wire { return w.u32(math.Float32bits(v)) }
func (w wire) f64(v float64) wire { return w.u64(math.Float64bits(v)) }
func (w wire) str(s string) wire  { return append(w.u32(uint32(len(s))), s...) }
func (w wire) raw(b ...byte) wire { return append(w, b...) }
func (w wire) point(x, y, z float64) wire {
	return w.f64(x).f64(y).f64(z)
}

// trace is a sink that records events as text, to compare decodes exactly.
type trace struct{ sb strings.Builder }

func (t *trace) w(s string) {
	if t.sb.Len() > 0 {
		t.sb.WriteByte(' ')
	}
	t.sb.WriteString(s)
}
func (t *trace) BeginMessage(ty *msgdef.Type)      { t.w(ty.Name + "{") }
func (t *trace) EndMessage()                       { t.w("}") }
func (t *trace) BeginStruct(f *msgdef.Field)       { t.w(f.Name + "{") }
func (t *trace) EndStruct()                        { t.w("}") }
func (t *trace) BeginArray(f *msgdef.Field, n int) { t.w(f.Name + "[" + strconv.Itoa(n)) }
func (t *trace) EndArray()                         { t.w("]") }
func (t *trace) Bool(f *msgdef.Field, v bool)      { t.w(fmt.Sprintf("%s=%v", f.Name, v)) }
func (t *trace) Int(f *msgdef.Field, v int64)      { t.w(fmt.Sprintf("%s=i%d", f.Name, v)) }
func (t *trace) Uint(f *msgdef.Field, v uint64)    { t.w(fmt.Sprintf("%s=u%d", f.Name, v)) }
func (t *trace) Float(f *msgdef.Field, v float64)  { t.w(fmt.Sprintf("%s=f%v", f.Name, v)) }
func (t *trace) String(f *msgdef.Field, v []byte)  { t.w(fmt.Sprintf("%s=%q", f.Name, v)) }
func (t *trace) Bytes(f *msgdef.Field, v []byte)   { t.w(fmt.Sprintf("%s=x%x", f.Name, v)) }
func (t *trace) Time(f *msgdef.Field, s, ns int64) { t.w(fmt.Sprintf("%s=t%d.%d", f.Name, s, ns)) }
