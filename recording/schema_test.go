package recording_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/mcapfile"
)

// TestUnknownSchemaEncoding: rosbag2 stores schema encoding "unknown" with
// an empty text for a type whose definition it could not find when
// recording. A type the registry knows (remap_msgs) decodes with the
// registry's definition, said once; a type nobody knows is an error, and
// under skip-bad it is skipped while the other topics are read whole
// (issue 10 point 9).
func TestUnknownSchemaEncoding(t *testing.T) {
	src := filepath.Join(genStudy(t), "queries.mcap")
	r, err := recording.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := filepath.Join(t.TempDir(), "unknown.mcap")
	w, err := mcapfile.Create(path, mcapfile.WithProfile("ros2"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]uint32{}
	add := func(topic, typ string) uint32 {
		id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "cdr", Metadata: map[string]string{},
			Schema: &record.Schema{Name: typ, Encoding: "unknown"}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	nope := add("/nope", "nope_msgs/msg/Missing")
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	recordtest.Each(t, it, func(m *record.Message) {
		id, ok := ids[m.Channel.Topic]
		if !ok {
			id = add(m.Channel.Topic, m.Channel.Schema.Name)
			ids[m.Channel.Topic] = id
		}
		c := *m
		if err := w.WriteMessage(id, &c); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessage(nope, &c); err != nil { // any bytes: the type is unknown
			t.Fatal(err)
		}
		want++
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want == 0 || len(ids) == 0 {
		t.Fatal("no messages in queries.mcap")
	}

	// Without skip-bad: only the unknown type is an error.
	var warnings []string
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{OnWarning: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	err = in.RequireDefinitions()
	in.Close()
	if !errors.Is(err, record.ErrUnknownType) || !strings.Contains(err.Error(), "nope_msgs/msg/Missing") || strings.Contains(err.Error(), "remap_msgs") {
		t.Errorf("RequireDefinitions: %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "remap_msgs/srv/Query_Event") || !strings.Contains(warnings[0], `"unknown"`) {
		t.Errorf("warnings %q, want one about remap_msgs/srv/Query_Event", warnings)
	}

	// With skip-bad: every message of the known type decodes, the unknown
	// topic is reported once, nothing stops.
	var skipped []error
	warnings = nil
	in, err = recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: true,
		OnSkip: func(err error) { skipped = append(skipped, err) }, OnWarning: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	decoded := 0
	err = in.Each(context.Background(), recording.EachOptions{Jobs: 1, Visit: func(_ int, m *record.Message, d decode.Decoder) error {
		if _, err := d.DecodeValue(m.Data); err != nil {
			return err
		}
		decoded++
		return nil
	}})
	if err != nil || decoded != want || len(skipped) != 1 || !errors.Is(skipped[0], record.ErrUnknownType) || len(warnings) != 1 {
		t.Errorf("skip-bad: %v; %d of %d decoded; skipped %v; warnings %q", err, decoded, want, skipped, warnings)
	}
}
