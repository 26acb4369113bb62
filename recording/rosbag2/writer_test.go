package rosbag2_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/rosbag2"
)

// TestWriterSplits: splits by duration and size are named NAME_N.<ext>,
// metadata.yaml (read back by the rosbag2 metadata parser) counts every
// message once, per topic and per file, and a topic without messages is
// listed; a bad option is refused before anything is written.
func TestWriterSplits(t *testing.T) {
	for _, c := range []struct {
		o     rosbag2.Options
		ext   string
		files int
	}{
		{rosbag2.Options{SplitDuration: 10 * time.Millisecond}, ".mcap", 5},
		{rosbag2.Options{Storage: rosbag2.StorageSQLite, SplitSize: 100}, ".db3", 4}, // 13 messages of 8 bytes each
		{rosbag2.Options{Mode: rosbag2.ModeFile, SplitSize: 250}, ".mcap.zstd", 2},
	} {
		dir := filepath.Join(t.TempDir(), "rec")
		w, err := rosbag2.Create(dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		s := &record.Schema{Name: "std_msgs/msg/Int32", Encoding: "ros2msg", Data: []byte("int32 data\n")}
		id, _ := w.AddChannel(&record.Channel{Topic: "/a", MessageEncoding: "cdr", Schema: s,
			Metadata: map[string]string{"offered_qos_profiles": rosbag2.LatchedQoS, "type_description_hash": "RIHS01_x"}})
		if _, err := w.AddChannel(&record.Channel{Topic: "/empty", MessageEncoding: "cdr", Schema: s, Metadata: map[string]string{}}); err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			at := int64(1e18) + int64(i)*1e6
			if err := w.WriteMessage(id, &record.Message{LogTime: at, Data: []byte{0, 1, 0, 0, byte(i), 0, 0, 0}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		m, err := db3.ReadBag2Metadata(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Files) != c.files || m.MessageCount != 50 || m.Version != db3.MetadataVersion || len(m.Topics) != 2 ||
			m.Topics[0].MessageCount != 50 || m.Topics[1].MessageCount != 0 || m.DurationNs != 49e6 {
			t.Fatalf("%+v: %+v", c.o, m)
		}
		var n uint64
		for i, f := range m.Files {
			n += f.MessageCount
			if want := "rec_" + string(rune('0'+i)) + c.ext; f.Path != want || m.RelativeFilePaths[i] != want {
				t.Errorf("file %d: %s, want %s", i, f.Path, want)
			}
			if _, err := os.Stat(filepath.Join(dir, f.Path)); err != nil {
				t.Error(err)
			}
		}
		if n != 50 {
			t.Errorf("files count %d messages", n)
		}
	}
	for _, o := range []rosbag2.Options{{Storage: "hdf5"}, {Mode: "chunk"}, {ChunkCompression: "bz2"},
		{Storage: rosbag2.StorageSQLite, ChunkCompression: "zstd"}, {SplitSize: -1}} {
		dir := filepath.Join(t.TempDir(), "bad")
		if _, err := rosbag2.Create(dir, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%+v: %s written", o, dir)
		}
	}
}

// TestEncodeMessageLeavesNoEmptySplit: a message whose encoder fails just
// after a split is full leaves no split behind (the next message opens
// it), even when no message follows, in both storages (an MCAP split
// takes the encoder, a sqlite3 one its bytes): the splits and their
// counts are those of writing the other messages alone, every split holds
// messages and the names run on without a gap.
func TestEncodeMessageLeavesNoEmptySplit(t *testing.T) {
	fails := errors.New("does not encode")
	for _, o := range []rosbag2.Options{{SplitSize: 100}, {Storage: rosbag2.StorageSQLite, SplitSize: 100}} {
		var counts [2][]uint64
		for k, encodes := range []bool{false, true} {
			dir := filepath.Join(t.TempDir(), "rec")
			w, err := rosbag2.Create(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			s := &record.Schema{Name: "std_msgs/msg/Int32", Encoding: "ros2msg", Data: []byte("int32 data\n")}
			id, _ := w.AddChannel(&record.Channel{Topic: "/a", MessageEncoding: "cdr", Schema: s, Metadata: map[string]string{}})
			// Each message the writer takes adds 8 bytes to its split; one
			// arriving at a full split (100 bytes) starts the next. The
			// first message at each full split fails, and from the fourth
			// full split on every message does.
			written, inSplit, full, failedHere := 0, 0, 0, false
			for i := range 60 {
				data := []byte{0, 1, 0, 0, byte(i), 0, 0, 0}
				m := &record.Message{LogTime: int64(1e18) + int64(i)*1e6}
				atFull := inSplit >= 100
				if atFull && !failedHere {
					full++
				}
				bad := atFull && (!failedHere || full >= 4)
				failedHere = bad
				if !bad {
					if atFull {
						inSplit = 0
					}
					inSplit += 8
				}
				switch {
				case !encodes && bad:
					continue
				case !encodes:
					m.Data = data
					err = w.WriteMessage(id, m)
				case bad:
					if err = w.EncodeMessage(id, m, func(dst []byte) ([]byte, error) { return dst, fails }); err == fails {
						err = nil
						continue
					}
				default:
					err = w.EncodeMessage(id, m, func(dst []byte) ([]byte, error) { return append(dst, data...), nil })
				}
				if err != nil {
					t.Fatalf("%+v: message %d: %v", o, i, err)
				}
				written++
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			meta, err := db3.ReadBag2Metadata(dir)
			if err != nil {
				t.Fatal(err)
			}
			if meta.MessageCount != uint64(written) {
				t.Errorf("%+v: %d messages in metadata.yaml, %d written", o, meta.MessageCount, written)
			}
			for i, f := range meta.Files {
				if !strings.HasPrefix(f.Path, "rec_"+strconv.Itoa(i)+".") || f.MessageCount == 0 {
					t.Errorf("%+v, encoding %v: split %d: %s with %d messages", o, encodes, i, f.Path, f.MessageCount)
				}
				counts[k] = append(counts[k], f.MessageCount)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(meta.Files)+1 {
				t.Errorf("%+v, encoding %v: %d entries in the folder, %d splits", o, encodes, len(entries), len(meta.Files))
			}
		}
		if !slices.Equal(counts[0], counts[1]) || len(counts[0]) < 4 {
			t.Errorf("%+v: splits of %v messages encoding, %v writing", o, counts[1], counts[0])
		}
	}
}

// TestWriterRefusesNamesNotUTF8: a folder, topic or type name that is not
// UTF-8 is refused, naming it: metadata.yaml, YAML text, cannot hold it.
func TestWriterRefusesNamesNotUTF8(t *testing.T) {
	dir := t.TempDir()
	if _, err := rosbag2.Create(filepath.Join(dir, "rec\xff"), rosbag2.Options{}); err == nil || !strings.Contains(err.Error(), `"rec\xff"`) {
		t.Errorf("folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rec\xff")); !os.IsNotExist(err) {
		t.Errorf("the folder was made: %v", err)
	}
	w, err := rosbag2.Create(filepath.Join(dir, "rec"), rosbag2.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, c := range []record.Channel{
		{Topic: "/cam\xc3", MessageEncoding: "cdr", Schema: &record.Schema{Name: "std_msgs/msg/String"}},
		{Topic: "/cam", MessageEncoding: "cdr", Schema: &record.Schema{Name: "pkg/msg/\xe2\x82"}},
	} {
		if _, err := w.AddChannel(&c); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
			t.Errorf("%q %q: %v", c.Topic, c.Schema.Name, err)
		}
	}
}

// TestWriterKeepsOneTypePerTopic: a topic added again with its type and
// definition gets its first id; with another type, or with a type defined
// otherwise than for an earlier topic, it is refused as unsupported,
// naming both.
func TestWriterKeepsOneTypePerTopic(t *testing.T) {
	for _, storage := range []string{rosbag2.StorageMCAP, rosbag2.StorageSQLite} {
		w, err := rosbag2.Create(filepath.Join(t.TempDir(), "rec"), rosbag2.Options{Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		str := &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")}
		add := func(topic string, s *record.Schema, qos string) (uint32, error) {
			return w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "cdr", Schema: s,
				Metadata: map[string]string{"offered_qos_profiles": qos}})
		}
		a, err := add("/a", str, "")
		if err != nil {
			t.Fatal(err)
		}
		if id, err := add("/a", &record.Schema{Name: str.Name, Encoding: str.Encoding, Data: []byte("string data\n")}, "- durability: 1\n"); id != a || err != nil {
			t.Errorf("%s: /a again: id %d (%v), want %d", storage, id, err, a)
		}
		for _, c := range []struct {
			topic string
			s     *record.Schema
			want  string
		}{
			{"/a", &record.Schema{Name: "std_msgs/msg/Int32", Encoding: "ros2msg", Data: []byte("int32 data\n")}, "topic /a carries std_msgs/msg/String (cdr) and std_msgs/msg/Int32 (cdr)"},
			{"/b", &record.Schema{Name: str.Name, Encoding: "ros2msg", Data: []byte("string data\nint32 n\n")}, "topic /b: its type std_msgs/msg/String is defined unlike on topic /a"},
		} {
			if _, err := add(c.topic, c.s, ""); !errors.Is(err, record.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s %s: %v, want %q", storage, c.topic, c.s.Name, err, c.want)
			}
		}
		w.Abort()
	}
}
