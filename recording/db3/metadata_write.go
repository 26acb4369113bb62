package db3

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/baglab/baglab/record"
	"gopkg.in/yaml.v3"
)

// MetadataVersion is the metadata version the writers write (rosbag2's
// since Jazzy): QoS profiles as a YAML list of names, ros_distro.
const MetadataVersion = 9

// TopicMetadata is the topics_with_message_count entry of channel c
// (its offered_qos_profiles and type_description_hash taken from its
// Metadata), with count messages.
func TopicMetadata(c *record.Channel, count uint64) Bag2Topic {
	return Bag2Topic{Name: c.Topic, Type: c.Schema.Name, SerializationFormat: c.MessageEncoding,
		OfferedQoSProfiles: c.Metadata["offered_qos_profiles"], TypeDescriptionHash: c.Metadata["type_description_hash"],
		MessageCount: count}
}

// YAML renders m as a metadata.yaml, in the layout of MetadataVersion,
// field for field as rosbag2 writes it. Its strings must be UTF-8, as YAML
// text is: another byte string does not read back as itself.
func (m *Bag2Metadata) YAML() []byte {
	return []byte("rosbag2_bagfile_information:\n" + m.render(1))
}

// Serialized renders m as rosbag2 stores a recording's metadata inside a
// split (MetadataIo::serialize_metadata): the metadata table of a sqlite3
// split, the serialized_metadata of an MCAP split's "rosbag2" record.
func (m *Bag2Metadata) Serialized() string { return m.render(0) }

// maxImplicitKey is the longest mapping key YAML reads written as is
// (1024 characters): a longer one is written after "? ".
const maxImplicitKey = 1024

// render writes m's fields indented by base levels. A topic's
// OfferedQoSProfiles is a YAML list (rosbag2.OfferedQoS), nested as it is.
func (m *Bag2Metadata) render(base int) string {
	var b strings.Builder
	// line writes a line of parts at indent (one Fprintf a line took 0.5
	// ms of converting 196 topics: BenchmarkMetadataYAML)
	line := func(indent int, parts ...string) {
		for range indent + base - 1 {
			b.WriteString("  ")
		}
		for _, s := range parts {
			b.WriteString(s)
		}
		b.WriteByte('\n')
	}
	u64 := func(n uint64) string { return strconv.FormatUint(n, 10) }
	// nanoseconds writes a time or duration, a mapping of one key
	nanoseconds := func(indent int, name, key string, ns int64) {
		line(indent, name, ":")
		line(indent+1, key, ": ", strconv.FormatInt(ns, 10))
	}
	line(1, "version: ", strconv.Itoa(m.Version))
	line(1, "storage_identifier: ", yamlString(m.StorageIdentifier))
	nanoseconds(1, "duration", "nanoseconds", m.DurationNs)
	nanoseconds(1, "starting_time", "nanoseconds_since_epoch", m.StartingTimeNs)
	line(1, "message_count: ", u64(m.MessageCount))
	if len(m.Topics) == 0 {
		line(1, "topics_with_message_count: []")
	} else {
		line(1, "topics_with_message_count:")
	}
	for _, t := range m.Topics {
		line(2, "- topic_metadata:")
		line(4, "name: ", yamlString(t.Name))
		line(4, "type: ", yamlString(t.Type))
		line(4, "serialization_format: ", yamlString(t.SerializationFormat))
		if qos := strings.TrimSuffix(t.OfferedQoSProfiles, "\n"); qos == "" {
			line(4, "offered_qos_profiles: []")
		} else {
			line(4, "offered_qos_profiles:")
			for l := range strings.SplitSeq(qos, "\n") {
				line(5, l)
			}
		}
		line(4, "type_description_hash: ", yamlString(t.TypeDescriptionHash))
		line(3, "message_count: ", u64(t.MessageCount))
	}
	line(1, "compression_format: ", yamlString(m.CompressionFormat))
	line(1, "compression_mode: ", yamlString(m.CompressionMode))
	line(1, "relative_file_paths:")
	for _, f := range m.RelativeFilePaths {
		line(2, "- ", yamlString(f))
	}
	line(1, "files:")
	for _, f := range m.Files {
		line(2, "- path: ", yamlString(f.Path))
		nanoseconds(3, "starting_time", "nanoseconds_since_epoch", f.StartingTimeNs)
		nanoseconds(3, "duration", "nanoseconds", f.DurationNs)
		line(3, "message_count: ", u64(f.MessageCount))
	}
	if len(m.CustomData) == 0 {
		line(1, "custom_data: ~")
	} else {
		line(1, "custom_data:")
		for _, k := range slices.Sorted(maps.Keys(m.CustomData)) {
			if key := yamlKey(k); len(key) <= maxImplicitKey {
				line(2, key, ": ", yamlString(m.CustomData[k]))
			} else {
				line(2, "? ", key)
				line(2, ": ", yamlString(m.CustomData[k]))
			}
		}
	}
	line(1, "ros_distro: ", yamlString(m.ROSDistro))
	return b.String()
}

// yamlString is s as a YAML scalar: plain when that reads back as the
// same string, else quoted ("" for the empty string, as yaml-cpp writes
// it). Names made of letters, digits and _ . / -, starting with a letter,
// _ or /, read back as themselves (but null): they skip the YAML parser,
// which costs tens of microseconds a call.
func yamlString(s string) string {
	if s == "" {
		return `""`
	}
	if plainName(s) {
		return s
	}
	return parsedYAMLString(s)
}

// yamlKey is s as a mapping key: as yamlString writes it, unless YAML
// gives that plain scalar a meaning of its own as a key (the merge key
// <<): then quoted.
func yamlKey(s string) string {
	k := yamlString(s)
	if k != s || plainName(s) {
		return k
	}
	var back map[string]string
	if yaml.Unmarshal([]byte(k+": v"), &back) == nil && len(back) == 1 && back[s] == "v" {
		return k
	}
	return strconv.Quote(s)
}

// parsedYAMLString is yamlString by the YAML parser: s plain when it reads
// back as s (and holds no newline, # or :), else quoted.
func parsedYAMLString(s string) string {
	var back string
	if yaml.Unmarshal([]byte(s), &back) == nil && back == s && !strings.ContainsAny(s, "\n#:") {
		return s
	}
	return strconv.Quote(s)
}

// plainName reports whether s is a name that YAML reads back as itself
// when written plain (see yamlString).
func plainName(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '/':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return !strings.EqualFold(s, "null")
}
