package tf

import (
	"math"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// Row is one lookup of a series: `baglab tf --json` prints one per time.
type Row struct {
	// TimeNs is the time asked, ns since the epoch; StampNs the time the
	// transform holds for (the latest common time when TimeNs is 0).
	TimeNs  int64 `json:"time_ns"`
	StampNs int64 `json:"stamp_ns"`
	// Translation and Rotation take source coordinates to target ones;
	// nil when the lookup failed.
	Translation *Vec3 `json:"translation,omitempty"`
	Rotation    *Quat `json:"rotation,omitempty"`
	// Roll, Pitch and Yaw are Rotation's angles in radians (tf2
	// Matrix3x3::getRPY).
	Roll  *float64 `json:"roll,omitempty"`
	Pitch *float64 `json:"pitch,omitempty"`
	Yaw   *float64 `json:"yaw,omitempty"`
	// Error is tf2's text when the lookup failed, ErrorKind its exception
	// class.
	Error     string `json:"error,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
}

// LookupRow looks source up in target at time t (ns; 0 is the latest
// common time) and returns the result as a Row.
func (b *Buffer) LookupRow(target, source string, t int64) Row {
	tr, stamp, err := b.Lookup(target, source, t)
	if err != nil {
		r := Row{TimeNs: t, StampNs: t, Error: err.Error()}
		if le, ok := err.(*LookupError); ok {
			r.ErrorKind = le.Kind()
		}
		return r
	}
	roll, pitch, yaw := tr.Rotation.RPY()
	return Row{TimeNs: t, StampNs: stamp, Translation: &tr.Translation, Rotation: &tr.Rotation, Roll: &roll, Pitch: &pitch, Yaw: &yaw}
}

// RowType is the message type of a Row in an export (Parquet, CSV): the
// columns time_ns, stamp_ns, target_frame, source_frame, translation.{x,y,z},
// rotation.{x,y,z,w}, roll, pitch, yaw (NaN where the lookup failed) and
// error.
var RowType = mustRowType()

const rowDefinition = `# one lookup of baglab tf: source_frame in target_frame at time_ns
int64 time_ns
int64 stamp_ns
string target_frame
string source_frame
geometry_msgs/Vector3 translation
geometry_msgs/Quaternion rotation
float64 roll
float64 pitch
float64 yaw
string error
================================================================================
MSG: geometry_msgs/Vector3
float64 x
float64 y
float64 z
================================================================================
MSG: geometry_msgs/Quaternion
float64 x
float64 y
float64 z
float64 w
`

// RowTypeName names RowType.
const RowTypeName = "baglab/TransformLookup"

// RowDefinition is RowType's definition text (ROS1 .msg, with its
// dependencies), for the exported files' metadata.
const RowDefinition = rowDefinition

func mustRowType() *msgdef.Type {
	t, err := msgdef.FromSchema(RowTypeName, "ros1msg", []byte(rowDefinition), nil)
	if err != nil {
		panic(err) // a constant definition
	}
	return t
}

// Value returns r as a message of RowType, for export's writers.
func (r Row) Value(target, source string) *value.Struct {
	v := value.New(RowType)
	nan := math.NaN()
	tr, q := Vec3{nan, nan, nan}, Quat{nan, nan, nan, nan}
	roll, pitch, yaw := nan, nan, nan
	if r.Translation != nil {
		tr, q = *r.Translation, *r.Rotation
		roll, pitch, yaw = *r.Roll, *r.Pitch, *r.Yaw
	}
	set := func(path string, x any) {
		if err := v.Set(path, x); err != nil {
			panic(err) // paths and kinds of RowType
		}
	}
	set("time_ns", r.TimeNs)
	set("stamp_ns", r.StampNs)
	set("target_frame", target)
	set("source_frame", source)
	set("translation.x", tr.X)
	set("translation.y", tr.Y)
	set("translation.z", tr.Z)
	set("rotation.x", q.X)
	set("rotation.y", q.Y)
	set("rotation.z", q.Z)
	set("rotation.w", q.W)
	set("roll", roll)
	set("pitch", pitch)
	set("yaw", yaw)
	set("error", r.Error)
	return v
}
