package value

import "github.com/baglab/baglab/decode/msgdef"

// Struct is one decoded message or nested message. Fields holds one value per
// field of Type, in Type.Fields order. Element values are:
//
//	bool, int64 (Int8..Int64), uint64 (Uint8..Uint64), float64 (Float32/64),
//	string (String, WString), Time, Duration, *Struct,
//	[]byte for blob fields (Field.IsBlob), []any for every other array.
type Struct struct {
	Type   *msgdef.Type
	Fields []any
}

// Time is a ROS1 time value.
type Time struct{ Sec, Nsec int64 }

// Duration is a ROS1 duration value.
type Duration struct{ Sec, Nsec int64 }

// Ns returns t as nanoseconds since the epoch.
func (t Time) Ns() int64 { return t.Sec*1e9 + t.Nsec }

// Ns returns d in nanoseconds.
func (d Duration) Ns() int64 { return d.Sec*1e9 + d.Nsec }
