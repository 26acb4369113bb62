package db3

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/record"
	"gopkg.in/yaml.v3"
)

// Bag2Metadata is a rosbag2 folder's metadata.yaml
// (rosbag2_bagfile_information).
type Bag2Metadata struct {
	Version           int
	StorageIdentifier string // "sqlite3" or "mcap"
	RelativeFilePaths []string
	StartingTimeNs    int64
	DurationNs        int64
	MessageCount      uint64
	CompressionFormat string // "" or "zstd"
	CompressionMode   string // "", "FILE" or "MESSAGE"
	Topics            []Bag2Topic
	Files             []Bag2File
	ROSDistro         string
	CustomData        map[string]string

	file string // the metadata.yaml parsed (a path or a URL), for errors
}

// Bag2Topic is one entry of topics_with_message_count.
type Bag2Topic struct {
	Name                string
	Type                string
	SerializationFormat string
	// OfferedQoSProfiles is the QoS list as rosbag2 stores it: a YAML text
	// (older versions store it as a string, newer ones as a YAML list, which
	// is re-serialised here).
	OfferedQoSProfiles  string
	TypeDescriptionHash string
	MessageCount        uint64
}

// Bag2File is one entry of files (metadata version 5 and later).
type Bag2File struct {
	Path           string
	StartingTimeNs int64
	DurationNs     int64
	MessageCount   uint64
}

// wireMetadata mirrors metadata.yaml's layout.
type wireMetadata struct {
	Info *wireInfo `yaml:"rosbag2_bagfile_information"`
}

// wireInfo mirrors rosbag2_bagfile_information's layout.
type wireInfo struct {
	Version           int      `yaml:"version"`
	StorageIdentifier string   `yaml:"storage_identifier"`
	RelativeFilePaths []string `yaml:"relative_file_paths"`
	Duration          struct {
		Nanoseconds int64 `yaml:"nanoseconds"`
	} `yaml:"duration"`
	StartingTime struct {
		Nanoseconds int64 `yaml:"nanoseconds_since_epoch"`
	} `yaml:"starting_time"`
	MessageCount uint64 `yaml:"message_count"`
	Topics       []struct {
		Topic struct {
			Name                string    `yaml:"name"`
			Type                string    `yaml:"type"`
			SerializationFormat string    `yaml:"serialization_format"`
			OfferedQoSProfiles  yaml.Node `yaml:"offered_qos_profiles"`
			TypeDescriptionHash string    `yaml:"type_description_hash"`
		} `yaml:"topic_metadata"`
		MessageCount uint64 `yaml:"message_count"`
	} `yaml:"topics_with_message_count"`
	CompressionFormat string `yaml:"compression_format"`
	CompressionMode   string `yaml:"compression_mode"`
	Files             []struct {
		Path         string `yaml:"path"`
		StartingTime struct {
			Nanoseconds int64 `yaml:"nanoseconds_since_epoch"`
		} `yaml:"starting_time"`
		Duration struct {
			Nanoseconds int64 `yaml:"nanoseconds"`
		} `yaml:"duration"`
		MessageCount uint64 `yaml:"message_count"`
	} `yaml:"files"`
	CustomData map[string]string `yaml:"custom_data"`
	ROSDistro  string            `yaml:"ros_distro"`
}

// ReadBag2Metadata reads dir/metadata.yaml.
func ReadBag2Metadata(dir string) (*Bag2Metadata, error) {
	path := filepath.Join(dir, "metadata.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseBag2Metadata(b, path)
}

// ParseBag2Metadata parses the text of a metadata.yaml; file names it in
// errors (a path or a URL).
func ParseBag2Metadata(b []byte, file string) (*Bag2Metadata, error) {
	var w wireMetadata
	if err := yaml.Unmarshal(b, &w); err != nil {
		return nil, &record.Error{File: file, Offset: -1, Field: "metadata.yaml", Err: record.ErrFormat, Detail: err.Error()}
	}
	if w.Info == nil {
		return nil, &record.Error{File: file, Offset: -1, Field: "rosbag2_bagfile_information", Err: record.ErrFormat, Detail: "missing"}
	}
	return fromWire(w.Info, file)
}

// ParseStoredMetadata parses the metadata a storage file stores (what
// Serialized renders: a sqlite3 split's metadata table, an MCAP split's
// rosbag2 record), rosbag2_bagfile_information's mapping without its key;
// file names the storage file in errors.
func ParseStoredMetadata(b []byte, file string) (*Bag2Metadata, error) {
	var in wireInfo
	if err := yaml.Unmarshal(b, &in); err != nil {
		return nil, &record.Error{File: file, Offset: -1, Field: "serialized_metadata", Err: record.ErrFormat, Detail: err.Error()}
	}
	return fromWire(&in, file)
}

// fromWire is the metadata in holds, checked; file names it in errors.
func fromWire(in *wireInfo, file string) (*Bag2Metadata, error) {
	m := &Bag2Metadata{
		Version:           in.Version,
		StorageIdentifier: in.StorageIdentifier,
		RelativeFilePaths: in.RelativeFilePaths,
		StartingTimeNs:    in.StartingTime.Nanoseconds,
		DurationNs:        in.Duration.Nanoseconds,
		MessageCount:      in.MessageCount,
		CompressionFormat: in.CompressionFormat,
		CompressionMode:   in.CompressionMode,
		ROSDistro:         in.ROSDistro,
		CustomData:        in.CustomData,
		file:              file,
	}
	for i, t := range in.Topics {
		qos, err := qosText(&t.Topic.OfferedQoSProfiles)
		if err != nil {
			return nil, &record.Error{File: file, Offset: -1, Field: fmt.Sprintf("topics_with_message_count[%d].topic_metadata.offered_qos_profiles", i), Err: record.ErrFormat, Detail: err.Error()}
		}
		m.Topics = append(m.Topics, Bag2Topic{
			Name:                t.Topic.Name,
			Type:                t.Topic.Type,
			SerializationFormat: t.Topic.SerializationFormat,
			OfferedQoSProfiles:  qos,
			TypeDescriptionHash: t.Topic.TypeDescriptionHash,
			MessageCount:        t.MessageCount,
		})
	}
	for _, f := range in.Files {
		m.Files = append(m.Files, Bag2File{Path: f.Path, StartingTimeNs: f.StartingTime.Nanoseconds, DurationNs: f.Duration.Nanoseconds, MessageCount: f.MessageCount})
	}
	for i, p := range m.RelativeFilePaths {
		if p == "" || filepath.IsAbs(p) || !filepath.IsLocal(p) {
			return nil, &record.Error{File: file, Offset: -1, Field: fmt.Sprintf("relative_file_paths[%d]", i), Err: record.ErrFormat, Detail: fmt.Sprintf("%q is not a path inside the folder", p)}
		}
	}
	return m, nil
}

// qosText returns the QoS profiles as YAML text: the string itself, or a
// YAML list serialised back to text.
func qosText(n *yaml.Node) (string, error) {
	switch n.Kind {
	case 0:
		return "", nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "", nil
		}
		return n.Value, nil
	}
	b, err := yaml.Marshal(n)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
