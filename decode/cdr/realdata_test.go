package cdr

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/foxglove/mcap/go/mcap"
)

// TestRealRosbag2 decodes every cdr message of the rosbag2 MCAPs recorded by
// ROS 2 itself (ros2/rosbag2 test resources): each decodes without error,
// re-encodes to the same bytes (up to the writer's trailing padding), and the
// first and last message of each topic equal what @mcap/core +
// @foxglove/rosmsg2-serialization decoded (the .foxglove-npm.json files).
func TestRealRosbag2(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.Fixtures(t, "rosbag2"), "*", "*", "*.mcap"))
	if err != nil || len(files) < 10 {
		t.Fatalf("rosbag2 fixtures: %d files, %v", len(files), err)
	}
	total, padded, garbage := 0, 0, 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var truth struct {
				Topics map[string]struct {
					First json.RawMessage `json:"first_message"`
					Last  json.RawMessage `json:"last_message"`
				} `json:"topics"`
			}
			b, err := os.ReadFile(path + ".foxglove-npm.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &truth); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := mcap.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			it, err := r.Messages(mcap.UsingIndex(false))
			if err != nil {
				t.Fatal(err)
			}
			decs := map[uint16]*Decoder{}
			last := map[string]any{}
			first := map[string]any{}
			for {
				s, ch, m, err := it.NextInto(nil)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if ch.MessageEncoding != "cdr" {
					continue
				}
				d := decs[s.ID]
				if d == nil {
					typ, err := msgdef.FromSchema(s.Name, s.Encoding, s.Data, msgdef.Default())
					if err != nil {
						t.Fatal(err)
					}
					if d, err = Compile(typ); err != nil {
						t.Fatal(err)
					}
					decs[s.ID] = d
				}
				sink := treeSink{blobArrays: true}
				if err := d.Decode(m.Data, &sink); err != nil {
					t.Fatalf("%s: %v", ch.Topic, err)
				}
				if _, ok := first[ch.Topic]; !ok {
					first[ch.Topic] = sink.root
				}
				last[ch.Topic] = sink.root
				v, err := d.DecodeValue(m.Data)
				if err != nil {
					t.Fatal(err)
				}
				enc, err := Encode(v, false)
				if err != nil {
					t.Fatal(err)
				}
				// Writers leave padding bytes as they find them (rclcpp on
				// Eloquent left 0x73 before /rosout's line), so bytes may
				// differ only where we wrote padding zeros.
				if len(m.Data) < len(enc) || len(m.Data)-len(enc) > 3 {
					t.Fatalf("%s: re-encoded %d bytes, recorded %d", ch.Topic, len(enc), len(m.Data))
				}
				for i := range enc {
					if enc[i] != m.Data[i] && enc[i] != 0 {
						t.Fatalf("%s: re-encoded differs at %d\n% x\nrecorded\n% x", ch.Topic, i, enc, m.Data)
					}
					if enc[i] != m.Data[i] {
						garbage++
					}
				}
				again, err := d.DecodeValue(enc)
				if err != nil || !equalValue(again, v) {
					t.Fatalf("%s: re-encoded value differs (%v)", ch.Topic, err)
				}
				total++
				if len(m.Data) > len(enc) {
					padded++
				}
			}
			for topic, want := range truth.Topics {
				if want.First == nil {
					continue // the peer could not decode it (service events)
				}
				for _, c := range []struct {
					got  any
					want json.RawMessage
				}{{first[topic], want.First}, {last[topic], want.Last}} {
					var w any
					dec := json.NewDecoder(bytes.NewReader(c.want))
					dec.UseNumber()
					if err := dec.Decode(&w); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(c.got, normJSON(w)) {
						t.Errorf("%s:\n got %s\nwant %s", topic, js(c.got), c.want)
					}
				}
			}
		})
	}
	t.Logf("%d recorded messages decoded, %d with trailing padding, %d non-zero padding bytes", total, padded, garbage)
	if total < 1000 {
		t.Errorf("only %d messages", total)
	}
}
