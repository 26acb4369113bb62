package mcapfile

import (
	"io"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/baglab/baglab/record"
)

// benchPayloads returns the sizes of the benchmark recording's messages:
// 120 image-like 1 MB messages between 60,000 small ones of 16..1000 bytes,
// about 150 MB in all.
func benchPayloads() (sizes []int, total int64) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60_000 {
		if i%500 == 0 {
			sizes = append(sizes, 1<<20)
		}
		sizes = append(sizes, 16+rng.IntN(985))
	}
	for _, n := range sizes {
		total += int64(n)
	}
	return sizes, total
}

// benchData makes 16 distinct 1 MB images (a gradient with noise; more
// than a zstd window apart when reused) and a 1 MB pool small messages are
// cut from, once, so that write benchmarks time the writer.
var benchData = sync.OnceValues(func() ([][]byte, []byte) {
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(buf []byte) []byte {
		for i := range buf {
			buf[i] = byte(i/3) + byte(rng.IntN(8))
		}
		return buf
	}
	imgs := make([][]byte, 16)
	for i := range imgs {
		imgs[i] = fill(make([]byte, 1<<20))
	}
	return imgs, fill(make([]byte, 1<<20))
})

// writeBench writes the benchmark recording and returns its payload bytes.
func writeBench(b *testing.B, path, comp string) int64 {
	b.Helper()
	w, err := Create(path, WithCompression(comp))
	if err != nil {
		b.Fatal(err)
	}
	img, _ := w.AddChannel(&record.Channel{Topic: "/camera/image", MessageEncoding: "cdr", Schema: &record.Schema{Name: "sensor_msgs/msg/Image", Encoding: "ros2msg", Data: []byte("uint8[] data")}})
	small, _ := w.AddChannel(&record.Channel{Topic: "/odom", MessageEncoding: "cdr", Schema: &record.Schema{Name: "nav_msgs/msg/Odometry", Encoding: "ros2msg", Data: []byte("float64[36] covariance")}})
	sizes, total := benchPayloads()
	imgs, pool := benchData()
	for i, n := range sizes {
		data, ch := imgs[i%len(imgs)], img
		if n < 1<<20 {
			data, ch = pool[(i*997)%(len(pool)-1000):][:n], small
		}
		t := int64(1e18) + int64(i)*1e6
		if err := w.WriteMessage(ch, &record.Message{LogTime: t, PublishTime: t, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return total
}

func benchRead(b *testing.B, comp string, opts ...Option) {
	path := filepath.Join(b.TempDir(), "bench.mcap")
	total := writeBench(b, path, comp)
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Open(path, opts...)
		if err != nil {
			b.Fatal(err)
		}
		it, err := r.Messages(record.Filter{})
		if err != nil {
			b.Fatal(err)
		}
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

func BenchmarkReadIndexed(b *testing.B) {
	for _, comp := range []string{"zstd", "lz4"} {
		b.Run(comp, func(b *testing.B) { benchRead(b, comp) })
		b.Run(comp+"/1worker", func(b *testing.B) { benchRead(b, comp, record.WithWorkers(1)) })
	}
}

func BenchmarkReadLinear(b *testing.B) {
	for _, comp := range []string{"zstd", "lz4"} {
		b.Run(comp, func(b *testing.B) { benchRead(b, comp, record.WithoutIndex()) })
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, comp := range []string{"zstd", "lz4", "none"} {
		b.Run(comp, func(b *testing.B) {
			_, total := benchPayloads()
			b.SetBytes(total)
			b.ReportAllocs()
			for range b.N {
				writeBench(b, filepath.Join(b.TempDir(), "w.mcap"), comp)
			}
		})
	}
}
