package studygen

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// BigOptions size a benchmark recording.
type BigOptions struct {
	// Size is the approximate number of message bytes to write.
	Size int64
	// CloudBytes is the size of each point cloud's data (default 1 MiB).
	CloudBytes int
	// SmallPerCloud is how many small messages (facts, placements, objects)
	// accompany each point cloud (default 200).
	SmallPerCloud int
	Seed          uint64
	// Scans makes each point cloud a new scan, as a lidar's are: the
	// float32 x, y, z of a noisy surface that moves a little from one to
	// the next (zstd keeps about four fifths of them). Without it every
	// cloud is the same random bytes, which compress only against each
	// other.
	Scans bool
	// Compression is the chunk compression ("" for the default: a bag's
	// none, an MCAP file's zstd).
	Compression string
}

// WriteBig streams a large recording mixing 1 MB sensor_msgs/PointCloud2
// messages at 10 Hz with small toaster, interactive_world and LaMa messages,
// for benchmarks; memory use does not grow with Size. The format follows the
// extension (.bag uncompressed, .mcap zstd).
func WriteBig(path string, reg *msgdef.Registry, o BigOptions) (int64, error) {
	if o.CloudBytes <= 0 {
		o.CloudBytes = 1 << 20
	}
	if o.SmallPerCloud <= 0 {
		o.SmallPerCloud = 200
	}
	var w record.Writer
	var abort func()
	switch {
	case len(path) > 4 && path[len(path)-4:] == ".bag":
		bw, err := bag.Create(path, bag.WithCompression(cmp.Or(o.Compression, "none")))
		if err != nil {
			return 0, err
		}
		w, abort = bw, func() { _ = bw.Abort() }
	case len(path) > 5 && path[len(path)-5:] == ".mcap":
		opts := []mcapfile.WriterOption{mcapfile.WithProfile("ros1")}
		if o.Compression != "" {
			opts = append(opts, mcapfile.WithCompression(o.Compression))
		}
		mw, err := mcapfile.Create(path, opts...)
		if err != nil {
			return 0, err
		}
		w, abort = mw, mw.Abort
	default:
		return 0, fmt.Errorf("%s: want .bag or .mcap", path)
	}
	b := &builder{reg: reg, rng: rand.New(rand.NewPCG(o.Seed, 0xb16)), study: &Study{}}
	cloud := b.newValue("sensor_msgs/PointCloud2")
	b.pointCloud(cloud, "", o.CloudBytes/12, StartNs)
	// Re-use one template per small type; vary a few fields per message.
	b.facts()
	b.lamaMap()
	b.placements(2)
	smalls := b.study.ROS1
	if b.err != nil {
		abort()
		return 0, b.err
	}
	ch := &channels{w: w, ids: map[string]uint32{}}
	var written int64
	t := StartNs
	var seq uint64
	put := func(topic string, v *value.Struct) error {
		id, err := ch.id(Event{Topic: topic, Value: v})
		if err != nil {
			return err
		}
		data, err := ros1.Encode(v)
		if err != nil {
			return err
		}
		written += int64(len(data))
		seq++
		return w.WriteMessage(id, &record.Message{LogTime: t, PublishTime: t, Sequence: seq, Data: data})
	}
	var scan []byte
	for written < o.Size {
		if o.Scans {
			scan = b.scan(scan[:0], o.CloudBytes/12, int(seq))
			_ = cloud.Set("data", scan)
		}
		_ = cloud.Set("header.seq", seq)
		_ = cloud.Set("header.stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
		if err := put("/camera/depth/points", cloud); err != nil {
			abort()
			return written, err
		}
		for i := 0; i < o.SmallPerCloud; i++ {
			t += 100e6 / int64(o.SmallPerCloud)
			e := smalls[(int(seq)+i)%len(smalls)]
			if err := put(e.Topic, e.Value); err != nil {
				abort()
				return written, err
			}
		}
	}
	return written, w.Close()
}

// scan appends to dst the n points of lidar scan k: rings of 512 points
// around the sensor, each at a range that follows a surface moving with k,
// plus 2 cm of noise, as float32 x, y, z.
func (b *builder) scan(dst []byte, n, k int) []byte {
	for i := range n {
		angle := 2 * math.Pi * float64(i%512) / 512
		ring := float64(i / 512)
		r := 10 + math.Sin(3*angle+float64(k)*0.01) + b.rng.NormFloat64()*0.02
		for _, c := range [3]float64{r * math.Cos(angle), r * math.Sin(angle), ring*0.02 - 1} {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(c)))
		}
	}
	return dst
}
