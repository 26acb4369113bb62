package decode

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
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
// held data: a non-empty string or sequence, a number other than zero,
// true.
func (l *Left) Held() int64 { return l.held.Load() }

// ros1Definition returns the ROS1 definition reg knows of ROS 2 type t's
// name when it can take t's values as ros1_bridge pairs fields
// (ros1Pairs), with the paths of t's fields it leaves out and those
// fields: none when it fits t field for field, as ROS1's CameraInfo fits
// ROS 2's (d written D). It is nil otherwise, and for std_msgs/Header,
// whose ROS1 form ros1Text writes.
func ros1Definition(reg *msgdef.Registry, t *msgdef.Type) (*msgdef.Type, []string, []*msgdef.Field) {
	if reg == nil || t.Dialect != msgdef.ROS2 || isROS2Header(t) {
		return nil, nil, nil
	}
	k, err := reg.Lookup(t.Name)
	if err != nil || k.Dialect != msgdef.ROS1 {
		return nil, nil, nil
	}
	var paths []string
	var left []*msgdef.Field
	if !ros1Pairs(k, t, "", &paths, &left) {
		return nil, nil, nil
	}
	return k, paths, left
}

// ros1Pairs reports whether ROS1 type k can take the values of ROS 2
// type t, pairing fields as ros1_bridge does (pairedField), in their
// order: each field of k has one in t, after the one paired before,
// of the same kind (kindAlike) and array, of the same fixed length; nested
// types pairing in turn (std_msgs/Header always: ROS1's seq is 0). t's
// fields without a pair are appended to left, their paths (under prefix)
// to paths: leaving them out of t's wire format gives k's.
func ros1Pairs(k, t *msgdef.Type, prefix string, paths *[]string, left *[]*msgdef.Field) bool {
	next := 0 // t's first field not yet paired or left out
	leave := func(end int) {
		for ; next < end; next++ {
			*paths = append(*paths, prefix+t.Fields[next].Name)
			*left = append(*left, &t.Fields[next])
		}
	}
	for i := range k.Fields {
		kf := &k.Fields[i]
		j := pairedField(t, kf.Name)
		if j < next {
			return false
		}
		leave(j)
		next++
		tf := &t.Fields[j]
		name2 := ""
		if kf.Msg != nil {
			name2 = kf.Msg.Name
		}
		if kf.Array != tf.Array || kf.Array == msgdef.Fixed && kf.Len != tf.Len || !kindAlike(kf, tf, name2) {
			return false
		}
		if kf.Msg != nil && !isROS2Header(tf.Msg) {
			path := prefix + tf.Name
			if tf.Array != msgdef.Scalar {
				path += "[]"
			}
			if !ros1Pairs(kf.Msg, tf.Msg, path+".", paths, left) {
				return false
			}
		}
	}
	leave(len(t.Fields))
	return true
}

// pairedConversion is ToROS1's Conversion of messages of ROS 2 type
// dec.Type() into a ROS1 definition it pairs with (ros1Definition): the
// one pass of TranscodeROS2, the events of the fields in left passed
// over; l counts the messages that held data in them.
func pairedConversion(dec Decoder, left []*msgdef.Field, l *Left) Conversion {
	s := &leaveOut{left: left}
	return func(dst, src []byte) ([]byte, error) {
		s.next.enc.Start(dst)
		s.next.time, s.depth, s.held = nil, 0, false
		if err := dec.Decode(src, s); err != nil {
			return dst, err
		}
		if s.held {
			l.held.Add(1)
		}
		return s.next.enc.Out(), nil
	}
}

// leaveOut passes a ROS 2 message's events on to addSeq but for those of
// the fields in left (of every depth), noting whether those held data: a
// non-empty string or sequence, a number other than zero, true.
type leaveOut struct {
	next addSeq
	// left are few (Marker's four): a scan of them costs every event less
	// than a map's hashing
	left  []*msgdef.Field
	depth int // inside a struct or array left out: its depth
	held  bool
}

// skip reports whether an event of field f is left out.
func (s *leaveOut) skip(f *msgdef.Field) bool { return s.depth > 0 || slices.Contains(s.left, f) }

// hold notes data held in a field left out.
func (s *leaveOut) hold(data bool) { s.held = s.held || data }

func (s *leaveOut) BeginMessage(t *msgdef.Type) { s.next.BeginMessage(t) }
func (s *leaveOut) EndMessage()                 { s.next.EndMessage() }
func (s *leaveOut) BeginStruct(f *msgdef.Field) {
	if s.skip(f) {
		s.depth++
		return
	}
	s.next.BeginStruct(f)
}
func (s *leaveOut) EndStruct() {
	if s.depth > 0 {
		s.depth--
		return
	}
	s.next.EndStruct()
}
func (s *leaveOut) BeginArray(f *msgdef.Field, n int) {
	if s.skip(f) {
		s.hold(f.Array == msgdef.Sequence && n > 0)
		s.depth++
		return
	}
	s.next.BeginArray(f, n)
}
func (s *leaveOut) EndArray() {
	if s.depth > 0 {
		s.depth--
		return
	}
	s.next.EndArray()
}
func (s *leaveOut) Bool(f *msgdef.Field, v bool) {
	if s.skip(f) {
		s.hold(v)
		return
	}
	s.next.Bool(f, v)
}
func (s *leaveOut) Int(f *msgdef.Field, v int64) {
	if s.skip(f) {
		s.hold(v != 0)
		return
	}
	s.next.Int(f, v)
}
func (s *leaveOut) Uint(f *msgdef.Field, v uint64) {
	if s.skip(f) {
		s.hold(v != 0)
		return
	}
	s.next.Uint(f, v)
}
func (s *leaveOut) Float(f *msgdef.Field, v float64) {
	if s.skip(f) {
		s.hold(math.Float64bits(v) != 0)
		return
	}
	s.next.Float(f, v)
}
func (s *leaveOut) String(f *msgdef.Field, v []byte) {
	if s.skip(f) {
		s.hold(len(v) > 0)
		return
	}
	s.next.String(f, v)
}
func (s *leaveOut) Bytes(f *msgdef.Field, v []byte) {
	if s.skip(f) {
		s.hold(f.Array == msgdef.Sequence && len(v) > 0 || slices.ContainsFunc(v, func(b byte) bool { return b != 0 }))
		return
	}
	s.next.Bytes(f, v)
}
func (s *leaveOut) Time(f *msgdef.Field, sec, nsec int64) {
	if s.skip(f) {
		s.hold(sec != 0 || nsec != 0)
		return
	}
	s.next.Time(f, sec, nsec)
}

var _ sink.Sink = (*leaveOut)(nil)
