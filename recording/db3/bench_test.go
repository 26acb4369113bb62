package db3

import (
	"io"
	"os"
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

// BenchmarkWrite writes what BenchmarkConvertToROS2 (cmd/baglab) converts:
// 100,000 messages of 88 bytes and 500 of 64 KB.
func BenchmarkWrite(b *testing.B) {
	dir := b.TempDir()
	small, big := make([]byte, 88), make([]byte, 64<<10)
	for i := range big {
		big[i] = byte(i*131 ^ i>>7)
	}
	b.SetBytes(100_000*int64(len(small)) + 500*int64(len(big)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := Create(filepath.Join(dir, "w.db3"))
		if err != nil {
			b.Fatal(err)
		}
		pose, _ := w.AddChannel(&record.Channel{Topic: "/pose", MessageEncoding: "cdr", Schema: &record.Schema{Name: "geometry_msgs/msg/PoseStamped"}})
		img, _ := w.AddChannel(&record.Channel{Topic: "/camera", MessageEncoding: "cdr", Schema: &record.Schema{Name: "sensor_msgs/msg/Image"}})
		for i := range 100_000 {
			at := int64(i) * 1e6
			if err := w.WriteMessage(pose, &record.Message{LogTime: at, Data: small}); err != nil {
				b.Fatal(err)
			}
			if i%200 == 0 {
				if err := w.WriteMessage(img, &record.Message{LogTime: at, Data: big}); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "w.db3"))
	}
}
