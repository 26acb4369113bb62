package header

import (
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
)

// Header is the part of a std_msgs/Header that offline tools use.
type Header struct {
	// Stamp is header.stamp in ns since the epoch.
	Stamp   int64
	FrameID string
}

// Decoder is what Read needs of a codec (decode.Decoder is one).
type Decoder interface {
	Decode(data []byte, s sink.Sink) error
}

// Field returns the index of t's top-level field "header" when it is a
// std_msgs/Header (ROS1 or ROS2), or -1.
func Field(t *msgdef.Type) int {
	if t == nil {
		return -1
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Name == "header" && f.Kind == msgdef.Struct && f.Array == msgdef.Scalar && f.Msg != nil && f.Msg.Name == "std_msgs/Header" {
			return i
		}
	}
	return -1
}

// Has reports whether messages of type t have a top-level std_msgs/Header.
func Has(t *msgdef.Type) bool { return Field(t) >= 0 }

// Read decodes data with dec and returns its top-level header; ok is
// false when the message has none. A message that does not decode gives
// the decoder's error.
func Read(dec Decoder, data []byte) (h Header, ok bool, err error) {
	var s Sink
	if err := dec.Decode(data, &s); err != nil {
		return Header{}, false, err
	}
	h, ok = s.Header()
	return h, ok, nil
}

// Sink is a sink.Sink that keeps the top-level header of the message it
// receives; every other event is ignored. The zero value is ready; it can
// be reused, message after message.
type Sink struct {
	depth    int
	in       bool // inside the top-level header
	inStamp  bool // inside a ROS2 header.stamp struct
	found    bool
	sec      int64
	nsec     int64
	frameID  []byte
	hasStamp bool
}

// Header returns the header of the last message received.
func (s *Sink) Header() (Header, bool) {
	if !s.found || !s.hasStamp {
		return Header{}, false
	}
	return Header{Stamp: s.sec*1e9 + s.nsec, FrameID: string(s.frameID)}, true
}

// BeginMessage starts a message.
func (s *Sink) BeginMessage(*msgdef.Type) {
	s.depth, s.in, s.inStamp, s.found, s.hasStamp = 0, false, false, false, false
	s.sec, s.nsec, s.frameID = 0, 0, s.frameID[:0]
}

// EndMessage ends it.
func (s *Sink) EndMessage() {}

// BeginStruct enters a nested message.
func (s *Sink) BeginStruct(f *msgdef.Field) {
	s.depth++
	switch {
	case s.depth == 1 && f.Name == "header" && f.Msg != nil && f.Msg.Name == "std_msgs/Header":
		s.in, s.found = true, true
	case s.in && s.depth == 2 && f.Name == "stamp":
		s.inStamp, s.hasStamp = true, true
	}
}

// EndStruct leaves it.
func (s *Sink) EndStruct() {
	switch {
	case s.inStamp && s.depth == 2:
		s.inStamp = false
	case s.in && s.depth == 1:
		s.in = false
	}
	s.depth--
}

// BeginArray is ignored (arrays of structs nest deeper than the header).
func (s *Sink) BeginArray(*msgdef.Field, int) { s.depth++ }

// EndArray is ignored.
func (s *Sink) EndArray() { s.depth-- }

// Bool is ignored.
func (s *Sink) Bool(*msgdef.Field, bool) {}

// Int keeps a ROS2 stamp's sec.
func (s *Sink) Int(f *msgdef.Field, v int64) {
	if s.inStamp && s.depth == 2 && f.Name == "sec" {
		s.sec = v
	}
}

// Uint keeps a ROS2 stamp's nanosec.
func (s *Sink) Uint(f *msgdef.Field, v uint64) {
	if s.inStamp && s.depth == 2 && f.Name == "nanosec" {
		s.nsec = int64(v)
	}
}

// Float is ignored.
func (s *Sink) Float(*msgdef.Field, float64) {}

// String keeps header.frame_id.
func (s *Sink) String(f *msgdef.Field, v []byte) {
	if s.in && s.depth == 1 && f.Name == "frame_id" {
		s.frameID = append(s.frameID[:0], v...)
	}
}

// Bytes is ignored.
func (s *Sink) Bytes(*msgdef.Field, []byte) {}

// Time keeps a ROS1 header.stamp.
func (s *Sink) Time(f *msgdef.Field, sec, nsec int64) {
	if s.in && s.depth == 1 && f.Name == "stamp" && f.Kind == msgdef.Time {
		s.sec, s.nsec, s.hasStamp = sec, nsec, true
	}
}
