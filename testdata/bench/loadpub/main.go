// Command loadpub is the load generator of testdata/bench/live_record.sh:
// it publishes N small std_msgs/String topics at a fixed rate and one
// sensor_msgs/PointCloud2 topic of a fixed size, through baglab's own ROS1
// publisher, once every topic has the wanted number of subscribers, for a
// fixed time. It prints one "published TOPIC COUNT DROPS" line per topic.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/live/rosnode"
)

func main() {
	topics := flag.Int("topics", 10, "small-message topics")
	rate := flag.Float64("rate", 1000, "rate of each small topic (Hz)")
	size := flag.Int("size", 32, "small message payload bytes")
	cloudBytes := flag.Int("cloud-bytes", 1<<20, "point cloud data bytes")
	cloudHz := flag.Float64("cloud-hz", 10, "point cloud rate (Hz)")
	cloudDef := flag.String("cloud-def", "", "file holding sensor_msgs/PointCloud2's full definition")
	cloudMD5 := flag.String("cloud-md5", "1158d486dd51d683ce2f1be655c3c181", "its md5sum")
	duration := flag.Duration("duration", 30*time.Second, "publishing time")
	subs := flag.Int("subs", 1, "subscribers to wait for on every topic")
	queue := flag.Int("queue", 100000, "each subscriber's publisher queue (messages)")
	flag.Parse()
	def, err := os.ReadFile(*cloudDef)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	node, err := rosnode.New(ctx, rosnode.Options{Name: "/loadpub", PublishQueue: *queue})
	if err != nil {
		fail(err)
	}
	defer node.Close()
	type topic struct {
		pub     *rosnode.Publisher
		hz      float64
		payload func(seq int) []byte
		count   atomic.Int64
	}
	var all []*topic
	for i := range *topics {
		p, err := node.Advertise(fmt.Sprintf("/small_%d", i), rosnode.TopicInfo{Type: "std_msgs/String",
			MD5: "992ce8a1687cec8c8bd883ec73ca41d1", Definition: "string data\n"})
		if err != nil {
			fail(err)
		}
		all = append(all, &topic{pub: p, hz: *rate, payload: func(seq int) []byte {
			s := fmt.Sprintf("%0*d", *size, seq)
			return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
		}})
	}
	cp, err := node.Advertise("/points", rosnode.TopicInfo{Type: "sensor_msgs/PointCloud2", MD5: *cloudMD5, Definition: string(def)})
	if err != nil {
		fail(err)
	}
	all = append(all, &topic{pub: cp, hz: *cloudHz, payload: func(seq int) []byte { return cloud(seq, *cloudBytes) }})

	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	for _, t := range all {
		if err := t.pub.WaitForSubscribers(wctx, *subs); err != nil {
			fail(fmt.Errorf("%s: waiting for %d subscribers: %w", t.pub.Topic(), *subs, err))
		}
	}
	cancel()
	time.Sleep(time.Second)
	start := time.Now()
	var wg sync.WaitGroup
	for _, t := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			period := time.Duration(float64(time.Second) / t.hz)
			for seq := 0; ; seq++ {
				next := start.Add(time.Duration(seq) * period)
				if next.Sub(start) >= *duration {
					return
				}
				time.Sleep(time.Until(next))
				_ = t.pub.Publish(t.payload(seq))
				t.count.Add(1)
			}
		}()
	}
	wg.Wait()
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, t := range all {
		_ = t.pub.Flush(fctx)
	}
	for _, t := range all {
		fmt.Printf("published %s %d %d\n", t.pub.Topic(), t.count.Load(), t.pub.Drops())
	}
}

// cloud serializes a sensor_msgs/PointCloud2 of n data bytes (x, y, z,
// intensity float32 points).
func cloud(seq, n int) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(seq))
	now := time.Now()
	b = binary.LittleEndian.AppendUint32(b, uint32(now.Unix()))
	b = binary.LittleEndian.AppendUint32(b, uint32(now.Nanosecond()))
	b = appendString(b, "lidar")
	points := n / 16
	b = binary.LittleEndian.AppendUint32(b, 1)              // height
	b = binary.LittleEndian.AppendUint32(b, uint32(points)) // width
	b = binary.LittleEndian.AppendUint32(b, 4)              // fields
	for i, name := range []string{"x", "y", "z", "intensity"} {
		b = appendString(b, name)
		b = binary.LittleEndian.AppendUint32(b, uint32(4*i))
		b = append(b, 7) // FLOAT32
		b = binary.LittleEndian.AppendUint32(b, 1)
	}
	b = append(b, 0)                                           // is_bigendian
	b = binary.LittleEndian.AppendUint32(b, 16)                // point_step
	b = binary.LittleEndian.AppendUint32(b, uint32(16*points)) // row_step
	b = binary.LittleEndian.AppendUint32(b, uint32(16*points))
	data := noise(16 * points)
	off := (seq * 4099) % len(data) // vary the content between clouds
	b = append(b, data[off:]...)
	b = append(b, data[:off]...)
	return append(b, 1) // is_dense
}

var noiseBuf []byte

// noise is n random bytes (made once): incompressible, like real sensor
// noise at its worst for lz4.
func noise(n int) []byte {
	if len(noiseBuf) != n {
		noiseBuf = make([]byte, n)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range noiseBuf {
			noiseBuf[i] = byte(r.Uint32())
		}
	}
	return noiseBuf
}

func appendString(b []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(s))), s...)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadpub:", err)
	os.Exit(1)
}
