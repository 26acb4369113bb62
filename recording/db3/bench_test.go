package db3

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/record"
)

// BenchmarkRead streams a db3 of 40,000 small messages and 40 1 MB ones
// (about 60 MB) written by our Writer.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.db3")
	w, err := Create(path)
	if err != nil {
		b.Fatal(err)
	}
	img, _ := w.AddChannel(&record.Channel{Topic: "/image", MessageEncoding: "cdr", Schema: &record.Schema{Name: "sensor_msgs/msg/Image"}})
	odo, _ := w.AddChannel(&record.Channel{Topic: "/odom", MessageEncoding: "cdr", Schema: &record.Schema{Name: "nav_msgs/msg/Odometry"}})
	big, small := make([]byte, 1<<20), make([]byte, 500)
	var total int64
	for i := range 40_000 {
		if i%1000 == 0 {
			w.WriteMessage(img, &record.Message{LogTime: int64(i), Data: big})
			total += int64(len(big))
		}
		w.WriteMessage(odo, &record.Message{LogTime: int64(i), Data: small})
		total += int64(len(small))
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		it, _ := r.Messages(record.Filter{})
		var n int64
		for {
			m, err := it.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(m.Data))
		}
		it.Close()
		r.Close()
		if n != total {
			b.Fatalf("read %d bytes, want %d", n, total)
		}
	}
}
