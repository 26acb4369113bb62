package msgdef

import (
	"strings"

	"github.com/baglab/baglab/record"
)

// FromSchema resolves the schema of a channel as a container stores it:
//
//   - "ros1msg": a ROS1 bundle (bag connection header, MCAP ros1msg), see ParseBundle.
//   - "ros2msg": a ROS2 bundle; but when the text is a service definition
//     (a "---" line in the main text, or a leading "SRV:" section, as rosbag2
//     stores the schema of "<service>/_service_event" topics) the service
//     event type is built, see ServiceEvent.
//   - "": no definition was stored (some .db3 files): the type is looked up
//     in reg by name, in either dialect's naming.
//   - "unknown": rosbag2 found no definition; with an empty text the type is
//     looked up in reg, with a service's .srv text (what rosbag2 stores for
//     a service that uses no other types) the service event type is built.
//
// Other encodings (ros2idl, jsonschema, protobuf ...) give an error that
// unwraps to record.ErrUnsupported.
func FromSchema(name, encoding string, data []byte, reg *Registry) (*Type, error) {
	switch encoding {
	case "ros1msg":
		return ParseBundle(name, string(data), ROS1, reg)
	case "ros2msg":
		text := string(data)
		if _, isEvent := eventService(name); isEvent && strings.TrimSpace(text) == "" {
			return reg.Lookup(name)
		}
		if isServiceText(name, text) {
			return ServiceEvent(name, text, reg)
		}
		return ParseBundle(name, text, ROS2, reg)
	case "", EncodingUnknown:
		// No definition stored (rosbag2 writes "unknown" with an empty
		// text for a type it could not find at record time): the
		// registry's, when it knows the type.
		if encoding == "" || len(data) == 0 {
			return reg.Lookup(name)
		}
		// rosbag2 writes "unknown" with the bare .srv text for the event
		// type of a service that uses no other types.
		if _, isEvent := eventService(name); isEvent && isServiceText(name, string(data)) {
			return ServiceEvent(name, string(data), reg)
		}
	}
	return nil, &Error{Type: name, Msg: "schema encoding " + encoding + " is not supported", Err: record.ErrUnsupported}
}

// EncodingUnknown is the schema encoding rosbag2 stores, with an empty
// text, for a type whose definition it could not find when recording.
const EncodingUnknown = "unknown"

// isServiceText reports whether a stored definition is a service: it starts
// with a SRV: section or its main text has a "---" line.
func isServiceText(name, text string) bool {
	secs, err := splitBundle(name, text)
	if err != nil {
		return false
	}
	if secs[0].kind == "SRV" {
		return true
	}
	for _, l := range strings.Split(secs[0].text, "\n") {
		if strings.TrimRight(l, " \t\r") == "---" {
			return true
		}
	}
	return false
}
