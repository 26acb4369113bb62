package recording_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// TestFileView: one File per recording, in order, with its own summary,
// opened lazily to the selected messages: the sample study's bag and MCAP
// hold 343 messages each, 14 of them on /interactive_world/placement_sets
// (rosbag info's counts). (Was export's TestDatasetInputs.)
func TestFileView(t *testing.T) {
	paths := []string{filepath.Join("..", "testdata", "sample", "study.bag"), filepath.Join("..", "testdata", "sample", "study.mcap")}
	in, err := recording.OpenInputs(paths, recording.InputOptions{Selection: recording.Selection{Topics: []string{"/interactive_world/placement_sets"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Len() != 2 {
		t.Fatalf("%d inputs, want 2", in.Len())
	}
	for i := range in.Len() {
		f := in.File(i)
		if f.Path() != paths[i] || f.Summary() == nil || f.Summary().MessageCount != 343 {
			t.Errorf("input %d: path %q, summary %+v; want %q with 343 messages", i, f.Path(), f.Summary(), paths[i])
		}
		it, err := f.Messages(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		recordtest.Each(t, it, func(m *record.Message) {
			if m.Channel.Topic != "/interactive_world/placement_sets" {
				t.Errorf("%s: message of %s outside the selection", f.Path(), m.Channel.Topic)
			}
			n++
		})
		if n != 14 {
			t.Errorf("%s: %d selected messages, want 14", f.Path(), n)
		}
	}
}

// TestPlanSkipRule: a decodable channel gets its decoder; a channel of an
// unsupported message encoding or with a damaged definition is an error
// naming the file and topic, or under SkipBad is left out and reported
// once, however many of its messages come. (Was export's
// TestInputsResolver; an unsupported encoding is now the same error as a
// missing definition in every verb, where export alone noted it.)
func TestPlanSkipRule(t *testing.T) {
	path := filepath.Join("..", "testdata", "sample", "study.bag")
	for _, skipBad := range []bool{false, true} {
		var notes []string
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: skipBad,
			OnSkip: func(err error) { notes = append(notes, err.Error()) }})
		if err != nil {
			t.Fatal(err)
		}
		chans, err := in.File(0).Channels()
		if err != nil || len(chans) < 3 {
			t.Fatalf("channels %d, %v", len(chans), err)
		}
		plan := recording.NewPlan(in, nil)
		msg := func(ch *record.Channel) *record.Message { return &record.Message{Channel: ch, Source: path} }
		good, unsupported, damaged := chans[0], chans[1], chans[2]
		d, ok, err := plan.Decoder(msg(good))
		if err != nil || !ok || d.Type().Name != good.Schema.Name {
			t.Errorf("skip-bad %v: %s: decoder %v, %v; want one for %s", skipBad, good.Topic, d, err, good.Schema.Name)
		}
		unsupported.MessageEncoding = "protobuf"
		damaged.Schema = &record.Schema{Name: damaged.Schema.Name, Encoding: damaged.Schema.Encoding, Data: []byte("float64 x\nnot a field line at all\n")}
		for _, ch := range []*record.Channel{unsupported, damaged} {
			for range 2 {
				_, ok, err := plan.Decoder(msg(ch))
				err = in.Skip(err)
				switch {
				case ok:
					t.Errorf("skip-bad %v: %s: handed on", skipBad, ch.Topic)
				case skipBad && err != nil:
					t.Errorf("skip-bad: %s: %v, want it left out", ch.Topic, err)
				case !skipBad && (err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), ch.Topic)):
					t.Errorf("%s: %v, want an error naming %s and %s", ch.Topic, err, path, ch.Topic)
				}
			}
		}
		want := 0
		if skipBad {
			want = 2
		}
		if len(notes) != want || want > 0 && (!strings.Contains(notes[0], unsupported.Topic) || !strings.Contains(notes[0], `"protobuf"`) || !strings.Contains(notes[1], damaged.Topic)) {
			t.Errorf("skip-bad %v: reports %q, want %d: %s (protobuf), %s", skipBad, notes, want, unsupported.Topic, damaged.Topic)
		}
		in.Close()
	}
}
