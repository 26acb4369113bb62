package play_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/live/play"
	"github.com/baglab/baglab/recording"
)

// TestPositional: topic remaps join the Args' remaps in order, the rest
// are the recordings, and the remaps reach the player options.
func TestPositional(t *testing.T) {
	a := play.DefaultArgs()
	files := a.Positional([]string{"a.bag", "/chatter:=/talk", "b.mcap", "odom:=/odom2"})
	if !slices.Equal(files, []string{"a.bag", "b.mcap"}) || !slices.Equal(a.Remaps, []string{"/chatter:=/talk", "odom:=/odom2"}) {
		t.Fatalf("files %q, remaps %q", files, a.Remaps)
	}
	o, err := a.Options()
	if err != nil {
		t.Fatal(err)
	}
	if o.Remap["/chatter"] != "/talk" || o.Remap["/odom"] != "/odom2" {
		t.Errorf("remaps %v, want /chatter -> /talk and /odom -> /odom2", o.Remap)
	}
}

// TestNewFromInputs: the player plays the topics the inputs select, with
// the type and ROS1 MD5 the bag stores (rosbag info's) and a definition.
func TestNewFromInputs(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "sample", "study.bag")
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: true,
		Selection: recording.Selection{Topics: []string{"/interactive_world/placement*"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	p, err := play.NewFromInputs(in, play.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []play.Topic{
		{Name: "/interactive_world/placement", Type: "interactive_world_msgs/Placement", MD5: "4f63d615a22760175f8259186166cef2"},
		{Name: "/interactive_world/placement_sets", Type: "interactive_world_msgs/PlacementSet", MD5: "7bc61d4164a3ca3362d52bfb47f837f5"},
	}
	got := p.Topics()
	if len(got) != len(want) {
		t.Fatalf("topics %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Type != want[i].Type || got[i].MD5 != want[i].MD5 || got[i].Definition == "" {
			t.Errorf("topic %d: %+v, want %+v with its definition", i, got[i], want[i])
		}
	}
}
