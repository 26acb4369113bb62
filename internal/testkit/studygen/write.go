package studygen

import (
	"io"

	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/mcapfile"
)

// File is one recording WriteAll produced.
type File struct {
	Name string // path relative to the output directory
	// Broken is set for the damaged variants.
	Broken string `json:",omitempty"`
}

// WriteAll writes the study in every format and compression into dir, the
// damaged variants into dir/broken, and truth.json.
func WriteAll(dir string, s *Study) ([]File, error) {
	if err := os.MkdirAll(filepath.Join(dir, "broken"), 0o755); err != nil {
		return nil, err
	}
	var files []File
	add := func(name string, write func(path string) error) error {
		if err := write(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, File{Name: name})
		return nil
	}
	for _, c := range []bag.Compression{bag.CompressionNone, bag.CompressionLZ4, bag.CompressionBZ2} {
		name := "study.bag"
		if c != bag.CompressionNone {
			name = "study-" + string(c) + ".bag"
		}
		if err := add(name, func(p string) error { return WriteBag(p, s.ROS1, c) }); err != nil {
			return nil, err
		}
	}
	for _, c := range []string{"zstd", "lz4", "none"} {
		name := "study.mcap"
		if c != "zstd" {
			name = "study-" + c + ".mcap"
		}
		if err := add(name, func(p string) error { return WriteMCAP(p, s.ROS1, c, "ros1") }); err != nil {
			return nil, err
		}
	}
	if err := add("queries.mcap", func(p string) error { return WriteMCAP(p, s.ROS2, "zstd", "ros2") }); err != nil {
		return nil, err
	}
	if err := add("all_types.bag", func(p string) error { return WriteBag(p, s.AllROS1, bag.CompressionLZ4) }); err != nil {
		return nil, err
	}
	if err := add("all_types.mcap", func(p string) error { return WriteMCAP(p, s.AllROS1, "zstd", "ros1") }); err != nil {
		return nil, err
	}
	if err := add("all_types_ros2.mcap", func(p string) error { return WriteMCAP(p, s.AllROS2, "zstd", "ros2") }); err != nil {
		return nil, err
	}
	if err := add("all_types_ros2.db3", func(p string) error { return WriteDB3(p, s.AllROS2) }); err != nil {
		return nil, err
	}
	if err := add("queries.db3", func(p string) error { return WriteDB3(p, s.ROS2) }); err != nil {
		return nil, err
	}
	if err := add("queries_rosbag2", func(p string) error {
		if err := os.RemoveAll(p); err != nil { // a folder is not replaced by a rename
			return err
		}
		return WriteDB3(p, s.ROS2)
	}); err != nil {
		return nil, err
	}
	broken, err := writeBroken(dir)
	if err != nil {
		return nil, err
	}
	files = append(files, broken...)
	truth, err := json.MarshalIndent(s.Truth, "", "  ")
	if err != nil {
		return nil, err
	}
	return files, writeFileAtomic(filepath.Join(dir, "truth.json"), append(truth, '\n'))
}

func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// channels registers each topic of events once and encodes its messages.
type channels struct {
	w    record.Writer
	ids  map[string]uint32
	ros2 bool
}

func (c *channels) id(e Event) (uint32, error) {
	if id, ok := c.ids[e.Topic]; ok {
		return id, nil
	}
	t := e.Value.Type
	ch := &record.Channel{Topic: e.Topic}
	if c.ros2 {
		ch.MessageEncoding = "cdr"
		ch.Schema = &record.Schema{Name: ros2TypeName(t), Encoding: "ros2msg", Data: []byte(decode.ROS2Bundle(t))}
		if t.Dialect == msgdef.ROS2 && len(t.Fields) == 3 && t.Fields[0].Name == "info" {
			// a service event: rosbag2 stores the bare .srv text.
			ch.Schema.Data = []byte(serviceText(t))
		}
	} else {
		ch.MessageEncoding = "ros1"
		ch.Schema = &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(t)), MD5: msgdef.MD5(t)}
		ch.Metadata = map[string]string{"callerid": "/baglab_studygen", "latching": "0"}
		if e.Topic == "/interactive_world/configuration" {
			ch.Metadata["latching"] = "1"
		}
	}
	id, err := c.w.AddChannel(ch)
	if err != nil {
		return 0, err
	}
	c.ids[e.Topic] = id
	return id, nil
}

func ros2TypeName(t *msgdef.Type) string {
	if t.FullName != "" {
		return t.FullName
	}
	return t.Name
}

// serviceText is the .srv text of a service event type: request fields,
// "---", response fields.
func serviceText(t *msgdef.Type) string {
	req := t.Fields[1].Msg
	resp := t.Fields[2].Msg
	return req.Text + "\n---\n" + resp.Text
}

func (c *channels) write(events []Event) error {
	for i, e := range events {
		id, err := c.id(e)
		if err != nil {
			return err
		}
		var data []byte
		if c.ros2 {
			data, err = cdr.Encode(e.Value, false)
		} else {
			data, err = ros1.Encode(e.Value)
		}
		if err != nil {
			return fmt.Errorf("encode %s on %s: %w", e.Value.Type.Name, e.Topic, err)
		}
		m := &record.Message{LogTime: e.LogTime, PublishTime: e.LogTime, Sequence: uint64(i), Data: data}
		if err := c.w.WriteMessage(id, m); err != nil {
			return err
		}
	}
	return nil
}

// WriteBag writes ROS1 events as a bag.
func WriteBag(path string, events []Event, c bag.Compression) error {
	w, err := bag.Create(path, bag.WithCompression(string(c)), bag.WithChunkSize(64<<10))
	if err != nil {
		return err
	}
	if err := (&channels{w: w, ids: map[string]uint32{}}).write(events); err != nil {
		_ = w.Abort()
		return err
	}
	return w.Close()
}

// WriteDB3 writes ROS2 events as a rosbag2 sqlite3 recording: a bare file
// when path ends in .db3, else a rosbag2 folder with metadata.yaml.
func WriteDB3(path string, events []Event) error {
	w, err := db3.Create(path)
	if err != nil {
		return err
	}
	if err := (&channels{w: w, ids: map[string]uint32{}, ros2: true}).write(events); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// WriteMCAP writes events as MCAP with the given chunk compression and
// profile ("ros1": ros1 encoding; "ros2": cdr).
func WriteMCAP(path string, events []Event, compression, profile string) error {
	w, err := mcapfile.Create(path, mcapfile.WithCompression(compression), mcapfile.WithProfile(profile), mcapfile.WithChunkSize(64<<10))
	if err != nil {
		return err
	}
	if err := w.AddMetadata("study", map[string]string{"experiment": "breakfast table", "generator": "baglab studygen"}); err != nil {
		w.Abort()
		return err
	}
	if err := (&channels{w: w, ids: map[string]uint32{}, ros2: profile == "ros2"}).write(events); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
