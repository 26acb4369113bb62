package rosbag2_test

import (
	"os"
	"path/filepath"
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
		if len(m.Files) != c.files || m.MessageCount != 50 || m.Version != rosbag2.MetadataVersion || len(m.Topics) != 2 ||
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
