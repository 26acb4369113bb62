package decode

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// Left is what ToROS1 leaves out of the messages of a ROS 2 type it writes
// under the ROS1 definition of its name: the fields that definition has
// no place for, and how many messages held data in them.
type Left struct {
	// Type is the ROS 2 type (visualization_msgs/msg/Marker), As the ROS1
	// type written (visualization_msgs/Marker).
	Type, As string
	// Fields are the fields left out, as paths from the message
	// ("texture", "markers[].texture").
	Fields []string
	held   atomic.Int64
}

// Held is the number of messages converted so far whose left-out fields
// held anything but zero values (empty strings and arrays, zero numbers).
func (l *Left) Held() int64 { return l.held.Load() }

// ros1Paired returns the ROS1 definition reg knows of ROS 2 type t's name
// when it does not fit t (ros1Fits) but can take t's values as
// ros1_bridge pairs fields (ros1Pairs), with the paths of t's fields it
// leaves out; else nil.
func ros1Paired(reg *msgdef.Registry, t *msgdef.Type) (*msgdef.Type, []string) {
	if reg == nil || t.Dialect != msgdef.ROS2 || isROS2Header(t) {
		return nil, nil
	}
	k, err := reg.Lookup(t.Name)
	if err != nil || k.Dialect != msgdef.ROS1 || ros1Fits(k, t) {
		return nil, nil
	}
	var left []string
	if !ros1Pairs(k, t, "", &left) {
		return nil, nil
	}
	return k, left
}

// ros1Pairs reports whether ROS1 type k can take the values of ROS 2
// type t, pairing fields as ros1_bridge does, by name but for case: each
// field of k has one in t of the same kind (kindAlike) and array, of the
// same fixed length, nested
// types fitting or pairing in turn (std_msgs/Header always: ROS1's seq is
// 0). The paths of t's fields without a pair are appended to left, under
// prefix.
func ros1Pairs(k, t *msgdef.Type, prefix string, left *[]string) bool {
	paired := make([]bool, len(t.Fields))
	for i := range k.Fields {
		kf := &k.Fields[i]
		j := foldedField(t, kf.Name)
		if j < 0 {
			return false
		}
		tf := &t.Fields[j]
		paired[j] = true
		name2 := ""
		if kf.Msg != nil {
			name2 = kf.Msg.Name
		}
		if kf.Array != tf.Array || kf.Array == msgdef.Fixed && kf.Len != tf.Len || !kindAlike(kf, tf, name2) {
			return false
		}
		if kf.Msg != nil && !isROS2Header(tf.Msg) && !ros1Fits(kf.Msg, tf.Msg) {
			path := prefix + tf.Name
			if tf.Array != msgdef.Scalar {
				path += "[]"
			}
			if !ros1Pairs(kf.Msg, tf.Msg, path+".", left) {
				return false
			}
		}
	}
	for j, p := range paired {
		if !p {
			*left = append(*left, prefix+t.Fields[j].Name)
		}
	}
	return true
}

// foldedField is the index of t's field named name but for case, or -1.
func foldedField(t *msgdef.Type, name string) int {
	for i := range t.Fields {
		if strings.EqualFold(t.Fields[i].Name, name) {
			return i
		}
	}
	return -1
}

// pairedConversion is ToROS1's Conversion of messages of ROS 2 type
// dec.Type() into ROS1 type k (ros1Paired): each message is decoded into
// a value tree, built anew as k (pairedValue) and encoded; l counts the
// messages whose left-out fields held data.
func pairedConversion(dec Decoder, k *msgdef.Type, l *Left) Conversion {
	return func(dst, src []byte) ([]byte, error) {
		v2, err := dec.DecodeValue(src)
		if err != nil {
			return dst, err
		}
		held := false
		v1, err := pairedValue(v2, k, &held)
		if err != nil {
			return dst, fmt.Errorf("%w: %s as ROS1's %s: %v", record.ErrFormat, v2.Type.FullName, k.Name, err)
		}
		out, err := ros1.AppendEncode(dst, v1)
		if err == nil && held && l != nil {
			l.held.Add(1)
		}
		return out, err
	}
}

// pairedValue builds the ROS1 value of type k from ROS 2 value v, field by
// field of k (ros1Pairs): a field without a pair (Header's seq) stays
// zero; held is set when a field of v left out holds data.
func pairedValue(v *value.Struct, k *msgdef.Type, held *bool) (*value.Struct, error) {
	out := value.New(k)
	paired := make([]bool, len(v.Fields))
	for i := range k.Fields {
		kf := &k.Fields[i]
		j := foldedField(v.Type, kf.Name)
		if j < 0 {
			continue
		}
		paired[j] = true
		y, err := pairedField(v.Fields[j], kf, &v.Type.Fields[j], held)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kf.Name, err)
		}
		out.Fields[i] = y
	}
	for j, p := range paired {
		if !p && !*held && !isZero(v.Fields[j]) {
			*held = true
		}
	}
	return out, nil
}

// pairedField converts a whole ROS 2 field value of f2 for ROS1 field f1,
// array element by element.
func pairedField(x any, f1, f2 *msgdef.Field, held *bool) (any, error) {
	switch xs := x.(type) {
	case []byte:
		return xs, nil // both blobs (kindAlike)
	case []any:
		out := make([]any, len(xs))
		for i, e := range xs {
			y, err := pairedStruct(e, f1, held)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = y
		}
		return out, nil
	}
	return pairedStruct(x, f1, held)
}

// pairedStruct converts one element: a message by pairing (a
// builtin_interfaces Time or Duration into a ROS1 time or duration, as
// ros1Time), anything else as pairedElem.
func pairedStruct(x any, f1 *msgdef.Field, held *bool) (any, error) {
	s, ok := x.(*value.Struct)
	if !ok {
		return pairedElem(x, f1), nil
	}
	switch f1.Kind {
	case msgdef.Time, msgdef.Duration:
		sec, _ := s.Fields[0].(int64)
		nsec, _ := s.Fields[1].(uint64)
		a, b := ros1Time(f1.Kind, sec, nsec)
		if f1.Kind == msgdef.Time {
			return value.Time{Sec: a, Nsec: b}, nil
		}
		return value.Duration{Sec: a, Nsec: b}, nil
	case msgdef.Struct:
		return pairedValue(s, f1.Msg, held)
	}
	return nil, fmt.Errorf("message %s for %s", s.Type.Name, f1.Kind)
}

// pairedElem is a ROS 2 number or string for ROS1 field f1: an octet for
// a ROS1 byte keeps its bits (kindAlike pairs only those two kinds), the
// rest as it is (the encoder checks it).
func pairedElem(x any, f1 *msgdef.Field) any {
	if u, ok := x.(uint64); ok && f1.Prim == "byte" && f1.Kind == msgdef.Int8 {
		return int64(int8(uint8(u)))
	}
	return x
}

// isZero reports whether a value holds nothing: false, zero, an empty
// string or array, an array or message of zero values.
func isZero(x any) bool {
	switch v := x.(type) {
	case bool:
		return !v
	case int64:
		return v == 0
	case uint64:
		return v == 0
	case float64:
		return math.Float64bits(v) == 0
	case string:
		return v == ""
	case value.Time:
		return v == value.Time{}
	case value.Duration:
		return v == value.Duration{}
	case []byte:
		for _, b := range v {
			if b != 0 {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !isZero(e) {
				return false
			}
		}
		return true
	case *value.Struct:
		if v == nil {
			return true
		}
		for _, f := range v.Fields {
			if !isZero(f) {
				return false
			}
		}
		return true
	}
	return false
}
