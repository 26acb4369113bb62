package play

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// discardNet advertises publishers that drop everything.
type discardNet struct{}

type discardPub struct{}

func (discardNet) Advertise(Topic) (Publisher, error) { return discardPub{}, nil }
func (discardPub) Publish([]byte) error               { return nil }
func (discardPub) NumSubscribers() int                { return 1 }

// BenchmarkPlayImmediate measures the player's own cost per message —
// reading an lz4 bag ahead, planning, publishing — with -i and publishers
// that discard: 10 000 small messages and 10 clouds of 1 MiB per pass.
func BenchmarkPlayImmediate(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.bag")
	w, err := recording.Create(path, recording.CreateOptions{Compression: "lz4"})
	if err != nil {
		b.Fatal(err)
	}
	small, _ := w.AddChannel(&record.Channel{Topic: "/small", MessageEncoding: "ros1", Schema: stringDef})
	big, _ := w.AddChannel(&record.Channel{Topic: "/big", MessageEncoding: "ros1", Schema: stringDef})
	var total int64
	cloud := ros1String(string(make([]byte, 1<<20)))
	for i := range 10_000 {
		ns := t0 + int64(i)*1e5
		data := ros1String("a small message of some 32 bytes")
		if err := w.WriteMessage(small, &record.Message{LogTime: ns, PublishTime: ns, Data: data}); err != nil {
			b.Fatal(err)
		}
		total += int64(len(data))
		if i%1000 == 0 {
			if err := w.WriteMessage(big, &record.Message{LogTime: ns, PublishTime: ns, Data: cloud}); err != nil {
				b.Fatal(err)
			}
			total += int64(len(cloud))
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	r, err := recording.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	o := DefaultOptions()
	o.Immediate, o.Delay = true, 0
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		p, err := New(r, decode.NewResolver(nil), o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Run(context.Background(), discardNet{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10_010), "ns/msg")
}
