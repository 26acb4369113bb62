package recording_test

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/db3"
)

// TestTypeHashRosbag2: the RIHS01 hash msgdef.TypeHash computes from each
// schema a real rosbag2 recording stores is the type_description_hash
// rosbag2 wrote for it in metadata.yaml (bounded strings with defaults in
// test_msgs/msg/Strings, a service event's bounded sequences).
func TestTypeHashRosbag2(t *testing.T) {
	root := testenv.Fixtures(t, "rosbag2")
	checked := 0
	for _, dir := range []string{"rosbag2_tests/bag_with_topics_and_service_events", "rosbag2_py/talker", "rosbag2_py/wbag",
		"rosbag2_transport/test_bag_for_seek", "rosbag2_tests/cdr_test"} {
		dir = filepath.Join(root, dir)
		meta, err := db3.ReadBag2Metadata(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, tp := range meta.Topics {
			if tp.TypeDescriptionHash != "" {
				want[tp.Type] = tp.TypeDescriptionHash
			}
		}
		r, err := recording.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		chans, err := r.Channels()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chans {
			w, ok := want[ch.Schema.Name]
			if !ok {
				continue
			}
			typ, err := msgdef.FromSchema(ch.Schema.Name, ch.Schema.Encoding, ch.Schema.Data, msgdef.Default())
			if err != nil {
				t.Errorf("%s: %v", ch.Schema.Name, err)
				continue
			}
			if got := msgdef.TypeHash(typ); got != w {
				t.Errorf("%s: TypeHash = %s, rosbag2 wrote %s", ch.Schema.Name, got, w)
			}
			checked++
		}
	}
	if checked < 3 {
		t.Errorf("%d hashes checked", checked)
	}
}
