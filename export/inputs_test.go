package export_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// TestDatasetInputs: one input per recording, in order, with its own
// summary, opened lazily to the selected messages: the sample study's bag
// and MCAP hold 343 messages each, 14 of them on
// /interactive_world/placement_sets (rosbag info's counts).
func TestDatasetInputs(t *testing.T) {
	paths := []string{filepath.Join("..", "testdata", "sample", "study.bag"), filepath.Join("..", "testdata", "sample", "study.mcap")}
	in, err := recording.OpenInputs(paths, recording.InputOptions{Selection: recording.Selection{Topics: []string{"/interactive_world/placement_sets"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ds := export.DatasetInputs(context.Background(), in)
	if len(ds) != 2 {
		t.Fatalf("%d inputs, want 2", len(ds))
	}
	for i, d := range ds {
		if d.Path != paths[i] || d.Summary == nil || d.Summary.MessageCount != 343 {
			t.Errorf("input %d: path %q, summary %+v; want %q with 343 messages", i, d.Path, d.Summary, paths[i])
		}
		it, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		recordtest.Each(t, it, func(m *record.Message) {
			if m.Channel.Topic != "/interactive_world/placement_sets" {
				t.Errorf("%s: message of %s outside the selection", d.Path, m.Channel.Topic)
			}
			n++
		})
		if n != 14 {
			t.Errorf("%s: %d selected messages, want 14", d.Path, n)
		}
	}
}

// TestInputsResolver: a decodable channel gets its decoder; an unsupported
// message encoding is left out with one note per topic naming the file; a
// damaged definition stops the export unless the inputs skip bad input.
func TestInputsResolver(t *testing.T) {
	path := filepath.Join("..", "testdata", "sample", "study.bag")
	for _, skipBad := range []bool{false, true} {
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: skipBad})
		if err != nil {
			t.Fatal(err)
		}
		chans, err := in.Channels(0)
		if err != nil || len(chans) < 3 {
			t.Fatalf("channels %d, %v", len(chans), err)
		}
		var notes []string
		resolve := export.InputsResolver(in, func(topic string, err error) { notes = append(notes, topic+": "+err.Error()) })
		good, unsupported, damaged := chans[0], chans[1], chans[2]
		d, err := resolve(good)
		if err != nil || d.Type().Name != good.Schema.Name {
			t.Errorf("skip-bad %v: %s: decoder %v, %v; want one for %s", skipBad, good.Topic, d, err, good.Schema.Name)
		}
		unsupported.MessageEncoding = "protobuf"
		for range 2 {
			if _, err := resolve(unsupported); !errors.Is(err, export.ErrSkipChannel) {
				t.Errorf("skip-bad %v: unsupported encoding: %v, want ErrSkipChannel", skipBad, err)
			}
		}
		damaged.Schema = &record.Schema{Name: damaged.Schema.Name, Encoding: damaged.Schema.Encoding, Data: []byte("float64 x\nnot a field line at all\n")}
		_, err = resolve(damaged)
		switch {
		case skipBad && !errors.Is(err, export.ErrSkipChannel):
			t.Errorf("skip-bad: damaged definition: %v, want ErrSkipChannel", err)
		case !skipBad && (err == nil || errors.Is(err, export.ErrSkipChannel) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), damaged.Topic)):
			t.Errorf("damaged definition: %v, want an error naming %s and %s", err, path, damaged.Topic)
		}
		want := 1
		if skipBad {
			want = 2
		}
		if len(notes) != want || !strings.HasPrefix(notes[0], unsupported.Topic+": ") || !strings.Contains(notes[0], path) || !strings.Contains(notes[0], `"protobuf"`) {
			t.Errorf("skip-bad %v: notes %q, want %d, the first for %s naming %s", skipBad, notes, want, unsupported.Topic, path)
		}
		in.Close()
	}
}
