package recording

import (
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/remote"
)

// Description is one recording as `baglab info` shows it: its summary
// plus what only some formats carry. It marshals to the `info --json`
// object.
type Description struct {
	*record.Summary
	Topics      []TopicDescription `json:"topics"`
	Metadata    []MetadataInfo     `json:"metadata,omitempty"`
	Attachments []AttachmentInfo   `json:"attachments,omitempty"`
	ROSBag2     *ROSBag2Info       `json:"rosbag2,omitempty"`
}

// ROSBag2Info is what a rosbag2 folder's metadata.yaml says of the folder
// (as ros2 bag info shows it): the metadata version, the storage, the
// files, the compression, the ROS distribution and the custom data.
type ROSBag2Info struct {
	Version           int               `json:"version"`
	Storage           string            `json:"storage_identifier"`
	Files             []string          `json:"relative_file_paths"`
	CompressionFormat string            `json:"compression_format"`
	CompressionMode   string            `json:"compression_mode"`
	ROSDistro         string            `json:"ros_distro"`
	CustomData        map[string]string `json:"custom_data,omitempty"`
}

// TopicDescription is one topic; Types lists every type when its
// connections carry several (Type is then the first).
type TopicDescription struct {
	record.TopicSummary
	Types []string `json:"types,omitempty"`
}

// MetadataInfo is one metadata record (MCAP).
type MetadataInfo struct {
	Name     string            `json:"name"`
	Metadata map[string]string `json:"metadata"`
}

// AttachmentInfo describes one attachment (MCAP).
type AttachmentInfo struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      uint64 `json:"size"`
	LogTimeNs uint64 `json:"log_time_ns"`
}

// Describe summarises the one recording at path (a file or a rosbag2
// folder; a plain folder is an *InputError, see Expand).
func Describe(path string) (*Description, error) {
	return DescribeWith(path, OpenOptions{})
}

// DescribeWith is Describe with options (o.Remote reads URLs).
func DescribeWith(path string, o OpenOptions) (*Description, error) {
	if _, err := Expand([]string{path}); err != nil {
		return nil, err
	}
	r, err := OpenWith(path, o)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sum, err := r.Summary()
	if err != nil {
		return nil, err
	}
	sum.Path = path
	d := &Description{Summary: sum, Topics: []TopicDescription{}}
	types := map[string][]string{}
	for _, ch := range sum.Channels {
		if t := TypeName(ch); t != "" && !slices.Contains(types[ch.Topic], t) {
			types[ch.Topic] = append(types[ch.Topic], t)
		}
	}
	for _, t := range sum.Topics {
		td := TopicDescription{TopicSummary: t}
		if len(types[t.Topic]) > 1 {
			td.Types = types[t.Topic]
		}
		d.Topics = append(d.Topics, td)
	}
	mds, atts, err := Extras(r)
	if err != nil {
		return nil, err
	}
	for _, m := range mds {
		d.Metadata = append(d.Metadata, MetadataInfo{Name: m.Name, Metadata: m.Metadata})
	}
	for _, a := range atts {
		d.Attachments = append(d.Attachments, AttachmentInfo{Name: a.Name, MediaType: a.MediaType, Size: a.Size, LogTimeNs: a.LogTime})
	}
	m := bag2Metadata(path, o)
	if m == nil {
		m = storedMetadata(r, mds)
	}
	if m != nil {
		d.ROSBag2 = &ROSBag2Info{Version: m.Version, Storage: m.StorageIdentifier, Files: m.RelativeFilePaths,
			CompressionFormat: m.CompressionFormat, CompressionMode: m.CompressionMode, ROSDistro: m.ROSDistro, CustomData: m.CustomData}
	}
	return d, nil
}

// storedMetadata is the rosbag2 metadata a storage file read alone
// stores: a .db3's metadata table, an MCAP file's last "rosbag2" record
// among mds; nil when it stores none, or none that parses (info shows
// what it can).
func storedMetadata(r record.Reader, mds []Metadata) *db3.Bag2Metadata {
	for _, p := range parts(r) {
		if d, ok := p.(*db3.Reader); ok {
			m, _ := d.StoredMetadata()
			return m
		}
	}
	for i := len(mds) - 1; i >= 0; i-- {
		if mds[i].Name == "rosbag2" {
			m, err := db3.ParseStoredMetadata([]byte(mds[i].Metadata["serialized_metadata"]), "")
			if err != nil {
				return nil
			}
			return m
		}
	}
	return nil
}

// bag2Metadata reads the metadata.yaml of the rosbag2 folder or prefix
// at path; nil for another recording, or one without it (a reading of it
// has just read it, or done without).
func bag2Metadata(path string, o OpenOptions) *db3.Bag2Metadata {
	if remote.IsPrefix(path) {
		s, private := o.session()
		if private {
			defer s.Close()
		}
		m, err := readURLMetadata(s, path)
		if err != nil {
			return nil
		}
		return m
	}
	return folderMetadata(path)
}
