package db3

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"
)

// FuzzReader opens damaged and hostile .db3 files and reads every message:
// each step gives data or a *record.Error (a db3 file names its damage
// like the other containers), never a panic. The seed is a small database
// our writer made, with two topics, a definition and QoS metadata.
func FuzzReader(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.db3")
	w, err := Create(seed, WithROSDistro("jazzy"))
	if err != nil {
		f.Fatal(err)
	}
	str := &record.Channel{Topic: "/chatter", MessageEncoding: "cdr",
		Schema:   &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")},
		Metadata: map[string]string{"offered_qos_profiles": "- history: 3"}}
	id1, err := w.AddChannel(str)
	if err != nil {
		f.Fatal(err)
	}
	id2, err := w.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "cdr", Schema: &record.Schema{Name: "pkg/msg/X"}})
	if err != nil {
		f.Fatal(err)
	}
	payload := []byte{0, 1, 0, 0, 3, 0, 0, 0, 'h', 'i', 0}
	for i := range 20 {
		id := id1
		if i%4 == 0 {
			id = id2
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: int64(1000 + i), Data: payload}); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	path := filepath.Join(f.TempDir(), "fuzz.db3")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readDamaged(t, path, "fuzz input")
	})
}
