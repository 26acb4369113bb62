package tf

import (
	"github.com/baglab/baglab/decode/msgdef"
)

// tfSink reads the transforms of a tf2_msgs/TFMessage (ROS1 or ROS2, and
// tf/tfMessage) from a codec's events, without building the message:
// geometry_msgs/TransformStamped elements of its "transforms" array.
type tfSink struct {
	names [8]string // the open structs' field names, from the element down
	depth int       // open structs below the element (0: in the element)
	in    bool      // inside an element
	cur   Stamped
	out   []Stamped
	// interned frame names: a recording names few frames many times
	frames map[string]string
}

func (s *tfSink) intern(v []byte) string {
	if name, ok := s.frames[string(v)]; ok {
		return name
	}
	if s.frames == nil {
		s.frames = map[string]string{}
	}
	name := string(v)
	s.frames[name] = name
	return name
}

func (s *tfSink) BeginMessage(*msgdef.Type) { s.out, s.in, s.depth = s.out[:0], false, 0 }
func (s *tfSink) EndMessage()               {}

func (s *tfSink) BeginStruct(f *msgdef.Field) {
	if !s.in {
		if f.Name == "transforms" {
			s.in, s.depth, s.cur = true, 0, Stamped{}
		}
		return
	}
	if s.depth < len(s.names) {
		s.names[s.depth] = f.Name
	}
	s.depth++
}

func (s *tfSink) EndStruct() {
	if !s.in {
		return
	}
	if s.depth == 0 {
		s.out = append(s.out, s.cur)
		s.in = false
		return
	}
	s.depth--
}

func (s *tfSink) BeginArray(*msgdef.Field, int) {}
func (s *tfSink) EndArray()                     {}
func (s *tfSink) Bool(*msgdef.Field, bool)      {}
func (s *tfSink) Bytes(*msgdef.Field, []byte)   {}

// at reports whether the open structs are exactly path.
func (s *tfSink) at(path ...string) bool {
	if !s.in || s.depth != len(path) {
		return false
	}
	for i, p := range path {
		if s.names[i] != p {
			return false
		}
	}
	return true
}

func (s *tfSink) Int(f *msgdef.Field, v int64) {
	if f.Name == "sec" && s.at("header", "stamp") {
		s.cur.Stamp += v * 1e9
	}
}

func (s *tfSink) Uint(f *msgdef.Field, v uint64) {
	if f.Name == "nanosec" && s.at("header", "stamp") {
		s.cur.Stamp += int64(v)
	}
}

func (s *tfSink) Time(f *msgdef.Field, sec, nsec int64) {
	if f.Name == "stamp" && s.at("header") {
		s.cur.Stamp = sec*1e9 + nsec
	}
}

func (s *tfSink) String(f *msgdef.Field, v []byte) {
	switch {
	case f.Name == "frame_id" && s.at("header"):
		s.cur.Parent = s.intern(v)
	case f.Name == "child_frame_id" && s.at():
		s.cur.Child = s.intern(v)
	}
}

func (s *tfSink) Float(f *msgdef.Field, v float64) {
	switch {
	case s.at("transform", "translation"):
		switch f.Name {
		case "x":
			s.cur.Translation.X = v
		case "y":
			s.cur.Translation.Y = v
		case "z":
			s.cur.Translation.Z = v
		}
	case s.at("transform", "rotation"):
		switch f.Name {
		case "x":
			s.cur.Rotation.X = v
		case "y":
			s.cur.Rotation.Y = v
		case "z":
			s.cur.Rotation.Z = v
		case "w":
			s.cur.Rotation.W = v
		}
	}
}
