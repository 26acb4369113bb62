package recording_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// TestDescriptionText: the info text of a bag of three std_msgs/String
// messages 1 ms apart from 2001-09-09T01:46:40Z, and of an MCAP file with
// metadata and an attachment but no topics.
func TestDescriptionText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "three.bag")
	bw, err := bag.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	writeStrings(t, bw, stringMD5, "string data\n", 3)
	d, err := recording.Describe(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "path:        " + path + `
format:      bag
duration:    2ms
start:       2001-09-09T01:46:40Z (1000000000.000000000)
end:         2001-09-09T01:46:40.002Z (1000000000.002000000)
messages:    3
compression: none
topics:
  /x  3 msgs  1000 Hz  std_msgs/String  ros1  ` + stringMD5 + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// The index line names the repair that indexes the file.
	for format, verb := range map[string]string{"bag": "reindex", "mcap": "recover"} {
		b.Reset()
		d.Format, d.Unindexed = format, "index ignored on request"
		if err := d.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		want := "\nindex:       unindexed (index ignored on request), read by scanning; `baglab " + verb + " " + path + "` makes it indexed\ntopics:\n"
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s, unindexed: got\n%s\nwant a line %q", format, b.String(), want)
		}
	}
	// An MCAP file with metadata and an attachment but no channel lists
	// them after "topics: none".
	path = filepath.Join(t.TempDir(), "extras.mcap")
	mw, err := mcapfile.Create(path, mcapfile.WithCompression("none"))
	if err != nil {
		t.Fatal(err)
	}
	if err := mw.AddMetadata("study", map[string]string{"b": "2", "a": "1"}); err != nil {
		t.Fatal(err)
	}
	if err := mw.AddAttachment("cal.yaml", "text/yaml", 0, 0, []byte("fx: 525.0\nfy: 525\n")); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	if d, err = recording.Describe(path); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want = "path:        " + path + `
format:      mcap
duration:    0s
start:       -
end:         -
messages:    0
compression: none
topics:      none
metadata study:
  a: 1
  b: 2
attachment cal.yaml: text/yaml, 18 bytes
`
	if b.String() != want {
		t.Errorf("no topics: got\n%s\nwant\n%s", b.String(), want)
	}
}

// shortWriter takes up to n bytes in all and fails past them, as a full
// disk does.
type shortWriter struct{ n int }

func (w *shortWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	return n, errors.New("no space left on device")
}

// TestDescriptionTextWriteError: a writer that fails on the last line (an
// attachment's) makes WriteText fail, as one failing on the first does.
func TestDescriptionTextWriteError(t *testing.T) {
	d := &recording.Description{Summary: &record.Summary{Path: "x.mcap", Format: "mcap"},
		Topics:      []recording.TopicDescription{{TopicSummary: record.TopicSummary{Topic: "/x", Type: "std_msgs/String"}}},
		Attachments: []recording.AttachmentInfo{{Name: "cal.yaml", MediaType: "text/yaml", Size: 12}}}
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, b.Len() - 5} {
		if err := d.WriteText(&shortWriter{n}); err == nil {
			t.Errorf("writer failing after %d of %d bytes: no error", n, b.Len())
		}
	}
}

// TestDescriptionTextTimeZero: a recording made under simulated time that
// starts at 0 has a start, and one message is "1 msg"; only a recording
// without messages has none ("-").
func TestDescriptionTextTimeZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sim.bag")
	bw, err := bag.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := bw.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "ros1",
		Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: stringMD5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.WriteMessage(id, &record.Message{Data: stringMsg("hello")}); err != nil {
		t.Fatal(err)
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := recording.Describe(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nstart:       1970-01-01T00:00:00Z (0.000000000)\n",
		"\nend:         1970-01-01T00:00:00Z (0.000000000)\n",
		"\n  /x  1 msg    std_msgs/String",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("got\n%s\nwant a line %q", b.String(), want)
		}
	}
	d.MessageCount = 0
	b.Reset()
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nstart:       -\n") {
		t.Errorf("no messages: got\n%s\nwant start -", b.String())
	}
}

// TestDescriptionTextEscapes: what the recording names is printed escaped,
// so that a terminal escape or a newline in a topic, type, metadata entry,
// attachment or custom_data entry shows as such instead of acting on the
// terminal or forging a line; a metadata value of several lines (the
// rosbag2 record's YAML) is printed as an indented block.
func TestDescriptionTextEscapes(t *testing.T) {
	d := &recording.Description{
		Summary: &record.Summary{Path: "x.mcap", Format: "mcap", Compression: "zstd"},
		ROSBag2: &recording.ROSBag2Info{Version: 9, Storage: "mcap", ROSDistro: "jazzy\x1b]0;pwned\a",
			CustomData: map[string]string{"op\u202eerator": "ann\nmessages: 0"}},
		Topics: []recording.TopicDescription{{TopicSummary: record.TopicSummary{Topic: "/a\x1b[31mred\nmessages:    999",
			Type: "pkg/msg/T\x1b[0m", Encoding: "cdr", MD5: "\x9b", MessageCount: 1}}},
		Metadata: []recording.MetadataInfo{{Name: "rosbag2\x1b[2J", Metadata: map[string]string{
			"serialized_metadata": "version: 9\nname: \x1b[1mbold\n",
			"one":                 "line\r",
		}}},
		Attachments: []recording.AttachmentInfo{{Name: "cal\n.yaml", MediaType: "text/\x07yaml", Size: 3}},
	}
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `path:        x.mcap
format:      mcap
duration:    0s
start:       -
end:         -
messages:    0
compression: zstd
rosbag2:     metadata version 9, mcap, 0 files, ros_distro jazzy\x1b]0;pwned\a
custom_data: op\u202eerator: ann\nmessages: 0
topics:
  /a\x1b[31mred\nmessages:    999  1 msg    pkg/msg/T\x1b[0m  cdr  \x9b
metadata rosbag2\x1b[2J:
  one: line\r
  serialized_metadata:
    version: 9
    name: \x1b[1mbold
attachment cal\n.yaml: text/\ayaml, 3 bytes
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestDescriptionTextStoredMetadata: the "rosbag2" records of a recording
// the rosbag2 line describes (one per MCAP split, each the whole
// recording's metadata) are counted on one line, where other records are
// printed whole; without a rosbag2 line (stored metadata that does not
// parse) the record is printed whole too.
func TestDescriptionTextStoredMetadata(t *testing.T) {
	stored := recording.MetadataInfo{Name: "rosbag2", Metadata: map[string]string{"serialized_metadata": "version: 9\nstorage_identifier: mcap\n"}}
	d := &recording.Description{
		Summary:  &record.Summary{Path: "rec", Format: "mcap"},
		ROSBag2:  &recording.ROSBag2Info{Version: 9, Storage: "mcap", Files: []string{"rec_0.mcap", "rec_1.mcap"}},
		Metadata: []recording.MetadataInfo{stored, {Name: "study", Metadata: map[string]string{"a": "1"}}, stored},
	}
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "topics:      none\nmetadata study:\n  a: 1\nmetadata rosbag2: 2 records of the metadata the files store, as on the rosbag2 line (info --json holds them whole)\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to end\n%s", b.String(), want)
	}
	d.ROSBag2, d.Metadata = nil, d.Metadata[:1]
	b.Reset()
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want = "topics:      none\nmetadata rosbag2:\n  serialized_metadata:\n    version: 9\n    storage_identifier: mcap\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("without a rosbag2 line: got\n%s\nwant it to end\n%s", b.String(), want)
	}
}
