package export

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
)

// Hand-built types, independent of the msgdef parser.

func ty(name string, fields ...msgdef.Field) *msgdef.Type {
	return &msgdef.Type{Name: name, FullName: name, Dialect: msgdef.ROS1, Fields: fields}
}

func fld(name string, k msgdef.Kind) msgdef.Field {
	return msgdef.Field{Name: name, Kind: k, Prim: k.String(), TypeName: k.String()}
}

// arr turns f into a fixed array of n (n >= 0) or a sequence (n < 0).
func arr(f msgdef.Field, n int) msgdef.Field {
	if n < 0 {
		f.Array = msgdef.Sequence
	} else {
		f.Array, f.Len = msgdef.Fixed, n
	}
	return f
}

func sub(name string, t *msgdef.Type) msgdef.Field {
	return msgdef.Field{Name: name, Kind: msgdef.Struct, Msg: t, TypeName: t.Name}
}

var (
	tPoint  = ty("geometry_msgs/Point", fld("x", msgdef.Float64), fld("y", msgdef.Float64), fld("z", msgdef.Float64))
	tQuat   = ty("geometry_msgs/Quaternion", fld("x", msgdef.Float64), fld("y", msgdef.Float64), fld("z", msgdef.Float64), fld("w", msgdef.Float64))
	tPose   = ty("geometry_msgs/Pose", sub("position", tPoint), sub("orientation", tQuat))
	tHeader = ty("std_msgs/Header", fld("seq", msgdef.Uint32), fld("stamp", msgdef.Time), fld("frame_id", msgdef.String))
	tEmpty  = ty("rail_pick_and_place_msgs/GetYesNoFeedbackGoal")
	tStamp  = &msgdef.Type{Name: "builtin_interfaces/Time", Dialect: msgdef.ROS2,
		Fields: []msgdef.Field{fld("sec", msgdef.Int32), fld("nanosec", msgdef.Uint32)}}
	tSpan = &msgdef.Type{Name: "builtin_interfaces/Duration", Dialect: msgdef.ROS2,
		Fields: []msgdef.Field{fld("sec", msgdef.Int32), fld("nanosec", msgdef.Uint32)}}
	// tZero has zero-length fixed arrays (legal; they hold nothing), a
	// uint8[0] among them, which is a blob of no bytes.
	tZero = ty("x/Z", arr(fld("none", msgdef.Int32), 0), arr(sub("poses", tPose), 0), fld("ok", msgdef.Bool),
		arr(fld("gid", msgdef.Uint8), 0))
	tGrasp = ty("rail_manipulation_msgs/Grasp",
		sub("grasp_pose", ty("geometry_msgs/PoseStamped", sub("header", tHeader), sub("pose", tPose))),
		fld("eef_frame_id", msgdef.String))
	// tDeep has every shape: nested arrays of structs with arrays, blobs,
	// fixed arrays, times, ROS2 stamps, empty messages.
	tElem = ty("test/Elem",
		fld("name", msgdef.String),
		arr(fld("values", msgdef.Float32), -1),
		arr(sub("poses", tPose), -1),
		arr(fld("blob", msgdef.Uint8), -1),
		arr(fld("stamps", msgdef.Time), 2),
		sub("nothing", tEmpty),
		arr(sub("nothings", tEmpty), -1))
	tDeep = ty("test/Deep",
		sub("header", tHeader),
		fld("flag", msgdef.Bool),
		fld("i8", msgdef.Int8), fld("i16", msgdef.Int16), fld("i32", msgdef.Int32), fld("i64", msgdef.Int64),
		fld("u8", msgdef.Uint8), fld("u16", msgdef.Uint16), fld("u32", msgdef.Uint32), fld("u64", msgdef.Uint64),
		fld("f32", msgdef.Float32), fld("f64", msgdef.Float64),
		fld("d", msgdef.Duration),
		sub("stamp", tStamp), sub("span", tSpan), arr(sub("stamps", tStamp), -1),
		arr(fld("fixed_blob", msgdef.Uint8), 4),
		arr(fld("refs", msgdef.Int32), 2),
		arr(sub("elems", tElem), -1),
		arr(sub("pair", tElem), 2),
		sub("grasp", tGrasp))
)

// randValue returns a seeded random message of type t: edge values (NaN,
// ±Inf, extremes, quotes and newlines in strings) included.
func randValue(rng *rand.Rand, t *msgdef.Type) *value.Struct {
	s := &value.Struct{Type: t, Fields: make([]any, len(t.Fields))}
	for i := range t.Fields {
		f := &t.Fields[i]
		switch {
		case f.IsBlob():
			n := rng.Intn(6)
			if f.Array == msgdef.Fixed {
				n = f.Len
			} else if f.Len > 0 && n > f.Len {
				n = f.Len
			}
			b := make([]byte, n)
			rng.Read(b)
			s.Fields[i] = b
		case f.Array != msgdef.Scalar:
			n := rng.Intn(4)
			if f.Array == msgdef.Fixed {
				n = f.Len
			} else if f.Len > 0 && n > f.Len {
				n = f.Len
			}
			xs := make([]any, n)
			for j := range xs {
				xs[j] = randElem(rng, f)
			}
			s.Fields[i] = xs
		default:
			s.Fields[i] = randElem(rng, f)
		}
	}
	return s
}

var (
	edgeFloats  = []float64{0, math.Copysign(0, -1), 1.5, -2.25e-9, 1e300, math.NaN(), math.Inf(1), math.Inf(-1)}
	edgeStrings = []string{"", "plain", `say "hi", ok`, "two\nlines", "tab\tand;semi", "ünïcødé ✓", "back\\slash", " lead"}
)

func randElem(rng *rand.Rand, f *msgdef.Field) any {
	switch f.Kind {
	case msgdef.Bool:
		return rng.Intn(2) == 1
	case msgdef.Int8, msgdef.Int16, msgdef.Int32, msgdef.Int64:
		bits := map[msgdef.Kind]uint{msgdef.Int8: 8, msgdef.Int16: 16, msgdef.Int32: 32, msgdef.Int64: 64}[f.Kind]
		switch rng.Intn(4) {
		case 0:
			return -int64(1) << (bits - 1)
		case 1:
			return int64(uint64(1)<<(bits-1) - 1)
		}
		return rng.Int63n(200) - 100
	case msgdef.Uint8, msgdef.Uint16, msgdef.Uint32, msgdef.Uint64:
		bits := map[msgdef.Kind]uint{msgdef.Uint8: 8, msgdef.Uint16: 16, msgdef.Uint32: 32, msgdef.Uint64: 64}[f.Kind]
		if rng.Intn(3) == 0 {
			return uint64(math.MaxUint64) >> (64 - bits)
		}
		return uint64(rng.Intn(200))
	case msgdef.Float32, msgdef.Float64:
		if rng.Intn(3) == 0 {
			return edgeFloats[rng.Intn(len(edgeFloats))]
		}
		v := rng.NormFloat64() * 100
		if f.Kind == msgdef.Float32 {
			v = float64(float32(v))
		}
		return v
	case msgdef.String, msgdef.WString:
		s := edgeStrings[rng.Intn(len(edgeStrings))]
		if f.StringBound > 0 && len(s) > f.StringBound {
			s = s[:0]
		}
		return s
	case msgdef.Time:
		return value.Time{Sec: rng.Int63n(math.MaxUint32), Nsec: rng.Int63n(1e9)}
	case msgdef.Duration:
		return value.Duration{Sec: rng.Int63n(1<<31) - 1<<30, Nsec: rng.Int63n(1e9)}
	case msgdef.Struct:
		if timeLike(f.Msg) != msgdef.Invalid {
			return &value.Struct{Type: f.Msg, Fields: []any{rng.Int63n(1<<31) - 1<<30, uint64(rng.Int63n(1e9))}}
		}
		return randValue(rng, f.Msg)
	}
	panic("kind " + f.Kind.String())
}

// emitter replays a value tree as a decoder would.
func emitter(v *value.Struct) Decoder {
	return DecoderFunc(func(_ []byte, s sink.Sink) error { return v.Emit(s) })
}

// canonValue renders what a value tree should look like in Arrow, in a
// canonical text: timestamps as t<ns>, durations as plain ns (as the int64
// that some Parquet readers give back), fields without columns left out.
func canonValue(v any, f *msgdef.Field, elem bool) string {
	if f != nil && !elem && f.Array != msgdef.Scalar && !f.IsBlob() {
		xs := v.([]any)
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = canonValue(x, f, true)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		if f.Kind == msgdef.Float32 {
			return "f" + strconv.FormatUint(uint64(math.Float32bits(float32(x))), 16)
		}
		return "d" + strconv.FormatUint(math.Float64bits(x), 16)
	case string:
		return strconv.Quote(x)
	case []byte:
		return fmt.Sprintf("b%x", x)
	case value.Time:
		return "t" + strconv.FormatInt(x.Ns(), 10)
	case value.Duration:
		return strconv.FormatInt(x.Ns(), 10) // durations print as plain integers
	case *value.Struct:
		if k := timeLike(x.Type); k != msgdef.Invalid {
			ns := strconv.FormatInt(x.Fields[0].(int64)*1e9+int64(x.Fields[1].(uint64)), 10)
			if k == msgdef.Duration {
				return ns
			}
			return "t" + ns
		}
		var parts []string
		for i := range x.Type.Fields {
			g := &x.Type.Fields[i]
			p, _ := fieldPlan(g, g.Name, 0)
			if p.kind == kSkip {
				continue
			}
			parts = append(parts, g.Name+":"+canonValue(x.Fields[i], g, false))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	panic(fmt.Sprintf("canonValue %T", v))
}

// canonArrow renders value i of a in the same canonical text.
func canonArrow(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float32:
		return "f" + strconv.FormatUint(uint64(math.Float32bits(a.Value(i))), 16)
	case *array.Float64:
		return "d" + strconv.FormatUint(math.Float64bits(a.Value(i)), 16)
	case *array.String:
		return strconv.Quote(a.Value(i))
	case *array.Binary:
		return fmt.Sprintf("b%x", a.Value(i))
	case *array.Timestamp:
		return "t" + strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Duration:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		parts := make([]string, a.NumField())
		for k := range parts {
			parts[k] = st.Field(k).Name + ":" + canonArrow(a.Field(k), i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case array.ListLike:
		s, e := a.ValueOffsets(i)
		var parts []string
		for j := s; j < e; j++ {
			parts = append(parts, canonArrow(a.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	panic(fmt.Sprintf("canonArrow %T", a))
}

// canonRow renders row i of rec's message columns (after the meta ones).
func canonRow(rec arrow.RecordBatch, i int) string {
	var parts []string
	for c := 4; c < int(rec.NumCols()); c++ {
		parts = append(parts, rec.ColumnName(c)+":"+canonArrow(rec.Column(c), i))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
