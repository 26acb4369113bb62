package bag

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/baglab/baglab/record"
)

// benchBag describes a generated bag.
type benchBag struct {
	msgSize, count int
	comp           Compression
}

func (b benchBag) String() string {
	return fmt.Sprintf("%dB-x%d-%s", b.msgSize, b.count, b.comp)
}

var benchBags = []benchBag{
	{1 << 20, 128, CompressionNone},
	{1 << 20, 128, CompressionLZ4},
	{100, 300000, CompressionNone},
	{100, 300000, CompressionLZ4},
}

var (
	benchDir   string
	benchFiles sync.Map // benchBag -> path
)

// payload fills b with bytes that compress about 2:1 with LZ4, like
// sensor data.
func payload(b []byte, rng *rand.Rand) {
	for i := range b {
		b[i] = byte(rng.IntN(16)) * 17
	}
}

// benchPath writes the bag once per test binary run.
func benchPath(b *testing.B, bb benchBag) string {
	if p, ok := benchFiles.Load(bb); ok {
		return p.(string)
	}
	if benchDir == "" {
		d, err := os.MkdirTemp("", "bagbench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = d
	}
	path := filepath.Join(benchDir, bb.String()+".bag")
	w, err := Create(path, WithCompression(string(bb.comp)))
	if err != nil {
		b.Fatal(err)
	}
	ids := []uint32{addString(b, w, "/a"), addString(b, w, "/b"), addString(b, w, "/c")}
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, bb.msgSize)
	for i := range bb.count {
		payload(data[:min(len(data), 4096)], rng)
		if err := w.WriteMessage(ids[i%3], &record.Message{LogTime: 1e18 + int64(i)*1e6, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	benchFiles.Store(bb, path)
	return path
}

// BenchmarkRead iterates every message of generated bags, through the index
// (parallel decompression, time merge) and by scanning. MB/s counts message
// bytes.
func BenchmarkRead(b *testing.B) {
	for _, bb := range benchBags {
		for _, linear := range []bool{false, true} {
			mode := "indexed"
			var opts []Option
			if linear {
				mode = "linear"
				opts = append(opts, record.WithoutIndex())
			}
			b.Run(bb.String()+"/"+mode, func(b *testing.B) {
				path := benchPath(b, bb)
				b.SetBytes(int64(bb.msgSize) * int64(bb.count))
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
					into := it.(interface{ NextInto(*record.Message) error })
					var m record.Message
					n := 0
					for {
						err := into.NextInto(&m)
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					if n != bb.count {
						b.Fatalf("%d messages, want %d", n, bb.count)
					}
					it.Close()
					r.Close()
				}
			})
		}
	}
}

// BenchmarkSummary opens an indexed bag and summarises it from its index.
func BenchmarkSummary(b *testing.B) {
	bb := benchBags[3]
	path := benchPath(b, bb)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := r.Summary()
		if err != nil || s.MessageCount != uint64(bb.count) {
			b.Fatal(s, err)
		}
		r.Close()
	}
}

// BenchmarkWrite writes messages into chunks and compresses them. MB/s
// counts message bytes.
func BenchmarkWrite(b *testing.B) {
	for _, bb := range []benchBag{{1 << 20, 16, CompressionNone}, {1 << 20, 16, CompressionLZ4}, {100, 20000, CompressionNone}, {100, 20000, CompressionLZ4}} {
		b.Run(bb.String(), func(b *testing.B) {
			data := make([]byte, bb.msgSize)
			payload(data, rand.New(rand.NewPCG(1, 2)))
			b.SetBytes(int64(bb.msgSize) * int64(bb.count))
			b.ReportAllocs()
			var ws writeSeeker
			for range b.N {
				ws.buf, ws.pos = ws.buf[:0], 0
				w, err := NewWriter(&ws, WithCompression(string(bb.comp)))
				if err != nil {
					b.Fatal(err)
				}
				id := addString(b, w, "/a")
				for i := range bb.count {
					if err := w.WriteMessage(id, &record.Message{LogTime: int64(i), Data: data}); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
