package recording_test

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/rosbag2"
)

// TestROSDistroOfSplit: an MCAP split of a rosbag2 folder, read on its
// own, names the distribution the folder was written for through the
// "rosbag2" metadata record the writer ends it with (as rosbag2's MCAP
// storage does); the folder names it in metadata.yaml.
func TestROSDistroOfSplit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	w, err := rosbag2.Create(dir, rosbag2.Options{ROSDistro: "humble", SplitSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	s := &record.Schema{Name: "std_msgs/msg/Int32", Encoding: "ros2msg", Data: []byte("int32 data\n")}
	id, err := w.AddChannel(&record.Channel{Topic: "/a", MessageEncoding: "cdr", Schema: s, Metadata: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.WriteMessage(id, &record.Message{LogTime: int64(i), Data: []byte{0, 1, 0, 0, byte(i), 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, filepath.Join(dir, "rec_0.mcap"), filepath.Join(dir, "rec_2.mcap")} {
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := in.NamedDistro(); got != "humble" {
			t.Errorf("%s: ROS distribution %q, want humble", path, got)
		}
		in.Close()
	}
}
