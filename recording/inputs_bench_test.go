package recording_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/mcapfile"
)

// BenchmarkInputsEach: the per-message cost of Inputs.Each over an
// uncompressed MCAP file of 100,000 small std_msgs/String messages on 64
// channels, its reading and the lookup of each message's decoder. The
// channels come round-robin (interleaved: every message on another channel
// than the one before) or in runs (of 100 messages on one channel, as a
// fast topic beside slow ones).
func BenchmarkInputsEach(b *testing.B) {
	for _, c := range []struct {
		name string
		run  int
	}{{"interleaved", 1}, {"runs", 100}} {
		b.Run(c.name, func(b *testing.B) {
			const n, channels = 100_000, 64
			path := filepath.Join(b.TempDir(), "each.mcap")
			w, err := mcapfile.Create(path, mcapfile.WithCompression("none"))
			if err != nil {
				b.Fatal(err)
			}
			var ids []uint32
			for i := range channels {
				id, err := w.AddChannel(&record.Channel{Topic: fmt.Sprintf("/x%d", i), MessageEncoding: "ros1",
					Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: stringMD5}})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, id)
			}
			data := stringMsg("hello")
			for i := range n {
				at := int64(1e18) + int64(i)*1e6
				if err := w.WriteMessage(ids[i/c.run%channels], &record.Message{LogTime: at, PublishTime: at, Data: data}); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			b.ReportAllocs()
			for b.Loop() {
				got := 0
				err := in.Each(context.Background(), recording.EachOptions{Jobs: 1, Visit: func(_ int, _ *record.Message, dec decode.Decoder) error {
					if dec != nil {
						got++
					}
					return nil
				}})
				if err != nil || got != n {
					b.Fatalf("%d messages with a decoder, %v; want %d", got, err, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
		})
	}
}
