package export

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// benchInput is an in-memory recording of ros1-encoded messages.
type benchInput struct {
	msgs  []*record.Message
	decs  map[*record.Channel]decode.Decoder
	bytes int64
}

func (in *benchInput) add(t testing.TB, topic, typ string, n int, make func(rng *rand.Rand, t *msgdef.Type) *value.Struct) {
	reg := msgdef.Default()
	mt, err := reg.Lookup(typ)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ros1.Compile(mt)
	if err != nil {
		t.Fatal(err)
	}
	ch := &record.Channel{Topic: topic, MessageEncoding: "ros1", Schema: &record.Schema{Name: typ, Encoding: "ros1msg"}}
	if in.decs == nil {
		in.decs = map[*record.Channel]decode.Decoder{}
	}
	in.decs[ch] = typed{mt, d}
	rng := rand.New(rand.NewSource(int64(len(in.msgs))))
	for i := 0; i < n; i++ {
		data, err := ros1.Encode(make(rng, mt))
		if err != nil {
			t.Fatal(err)
		}
		lt := int64(1700000000e9) + int64(len(in.msgs))*1e6
		in.msgs = append(in.msgs, &record.Message{Channel: ch, LogTime: lt, PublishTime: lt, Sequence: uint64(len(in.msgs)), Source: "bench.bag", Offset: -1, Data: data})
		in.bytes += int64(len(data))
	}
}

// cloud is a PointCloud2 of about size bytes: x, y, z, intensity float32
// on a smooth surface with noise (compressible like real scans).
func cloud(size int) func(rng *rand.Rand, t *msgdef.Type) *value.Struct {
	return func(rng *rand.Rand, t *msgdef.Type) *value.Struct {
		v := randValue(rng, t)
		n := size / 16
		data := make([]byte, 0, n*16)
		for i := 0; i < n; i++ {
			x, y := float32(i%640)*0.01, float32(i/640)*0.01
			z := float32(math.Sin(float64(x))*math.Cos(float64(y))) + float32(rng.NormFloat64()*0.001)
			for _, f := range []float32{x, y, z, float32(rng.Intn(256))} {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(f))
			}
		}
		for i := range t.Fields {
			if t.Fields[i].Name == "data" {
				v.Fields[i] = data
			}
			if t.Fields[i].Name == "fields" {
				v.Fields[i] = []any{}
			}
		}
		return v
	}
}

func small(rng *rand.Rand, t *msgdef.Type) *value.Struct { return randValue(rng, t) }

func (in *benchInput) run(b *testing.B, jobs int, opts ...Option) {
	b.SetBytes(in.bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := New(b.TempDir(), opts...)
		if err != nil {
			b.Fatal(err)
		}
		inputs := []Input{{Path: "bench.bag", Open: decoded(func() (record.Iterator, error) { return &sliceIter{msgs: in.msgs}, nil },
			func(ch *record.Channel) (decode.Decoder, error) { return in.decs[ch], nil })}}
		if err := e.Run(context.Background(), inputs, jobs); err != nil {
			b.Fatal(err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func smallInput(b *testing.B) *benchInput {
	in := &benchInput{}
	in.add(b, "/pose", "geometry_msgs/PoseStamped", 20000, small)
	in.add(b, "/status", "actionlib_msgs/GoalStatusArray", 10000, small)
	in.add(b, "/chatter", "std_msgs/String", 10000, small)
	return in
}

func BenchmarkExportSmall(b *testing.B) { smallInput(b).run(b, 1) }

func BenchmarkExportSmallCSV(b *testing.B) { smallInput(b).run(b, 1, WithFormat(CSV)) }

func BenchmarkExportPointCloud(b *testing.B) {
	in := &benchInput{}
	in.add(b, "/points", "sensor_msgs/PointCloud2", 48, cloud(1<<20))
	in.run(b, 1)
}

func BenchmarkExportPointCloudLZ4(b *testing.B) {
	in := &benchInput{}
	in.add(b, "/points", "sensor_msgs/PointCloud2", 48, cloud(1<<20))
	in.run(b, 1, WithCompression(LZ4))
}

func BenchmarkExportMixed(b *testing.B) {
	in := &benchInput{}
	in.add(b, "/points", "sensor_msgs/PointCloud2", 16, cloud(1<<20))
	in.add(b, "/pose", "geometry_msgs/PoseStamped", 10000, small)
	in.add(b, "/markers", "visualization_msgs/MarkerArray", 2000, small)
	in.run(b, 1)
}

// BenchmarkRowBuilder measures the compiled sink alone: decoding small
// messages into Arrow builders.
func BenchmarkRowBuilder(b *testing.B) {
	in := &benchInput{}
	in.add(b, "/markers", "visualization_msgs/MarkerArray", 2000, small)
	d := in.decs[in.msgs[0].Channel]
	rb, err := NewRowBuilder(nil, d.Type())
	if err != nil {
		b.Fatal(err)
	}
	defer rb.Release()
	b.SetBytes(in.bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range in.msgs {
			if err := rb.Append(MetaOf(m), d, m.Data); err != nil {
				b.Fatal(err)
			}
		}
		rec, err := rb.NewRecordBatch()
		if err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
}

// BenchmarkExportPeakHeap exports about 512 MiB of 1 MiB point clouds
// mixed with small messages, streamed (each cloud is made when the
// iterator reaches it, from one base cloud with new noise), and reports
// the peak Go heap in use.
func BenchmarkExportPeakHeap(b *testing.B) {
	reg := msgdef.Default()
	pc, _ := reg.Lookup("sensor_msgs/PointCloud2")
	ps, _ := reg.Lookup("geometry_msgs/PoseStamped")
	dpc, _ := ros1.Compile(pc)
	dps, _ := ros1.Compile(ps)
	chPC := &record.Channel{Topic: "/points", MessageEncoding: "ros1"}
	chPS := &record.Channel{Topic: "/pose", MessageEncoding: "ros1"}
	decs := map[*record.Channel]decode.Decoder{chPC: typed{pc, dpc}, chPS: typed{ps, dps}}
	rng := rand.New(rand.NewSource(1))
	cloudData, _ := ros1.Encode(cloud(1<<20)(rng, pc))
	poseData, _ := ros1.Encode(randValue(rng, ps))
	const clouds = 512
	b.SetBytes(int64(clouds * (len(cloudData) + 100*len(poseData))))
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := New(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		open := func() (record.Iterator, error) {
			return &streamIter{n: clouds * 101, cloud: cloudData, pose: poseData, chPC: chPC, chPS: chPS}, nil
		}
		resolve := func(ch *record.Channel) (decode.Decoder, error) { return decs[ch], nil }
		if err := e.Run(context.Background(), []Input{{Path: "big.bag", Open: decoded(open, resolve)}}, 1); err != nil {
			b.Fatal(err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	close(stop)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

// streamIter yields one cloud then 100 poses, n messages in all, copying
// each into a reused buffer as a container reader would.
type streamIter struct {
	n, i        int
	cloud, pose []byte
	chPC, chPS  *record.Channel
	buf         []byte
	m           record.Message
}

func (it *streamIter) Next() (*record.Message, error) {
	if it.i >= it.n {
		return nil, io.EOF
	}
	src, ch := it.pose, it.chPS
	if it.i%101 == 0 {
		src, ch = it.cloud, it.chPC
	}
	it.buf = append(it.buf[:0], src...)
	if ch == it.chPC {
		// Vary each cloud (low mantissa bits of every float) so that
		// compression sees new data, as with a real scanner.
		x := uint32(it.i)*2654435761 + 1
		for k := len(it.buf) - 1<<20; k+4 <= len(it.buf); k += 4 {
			x = x*1664525 + 1013904223
			it.buf[k] ^= byte(x >> 24)
		}
	}
	it.m = record.Message{Channel: ch, LogTime: int64(it.i) * 1e6, Sequence: uint64(it.i), Source: "big.bag", Data: it.buf}
	it.i++
	return &it.m, nil
}

func (it *streamIter) Close() error { return nil }
