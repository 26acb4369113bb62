// Command playlat is the measuring side of testdata/bench/live_play.sh,
// the timing benchmark of `baglab play` against `rosbag play`.
//
//	playlat gen -o load.bag [-secs 30]
//
// writes the load of issue 8 as an lz4 bag: 10 std_msgs/String topics at
// 1 kHz (32-byte payloads) and one sensor_msgs/PointCloud2 topic of 1 MiB
// clouds (incompressible data) at 10 Hz, each message carrying its index.
//
//	playlat sub -bag load.bag -rate R [-label L]
//
// subscribes (through baglab's ROS1 node, type "*") to every topic of the
// bag, receives until it has every message or nothing came for 5 s, and
// prints, for the player that published them, how late each message
// arrived against the bag's schedule: arrival time minus first arrival,
// minus (log time minus first log time) / R; p50, p99 and max of its
// absolute value, the messages lost and any payload not in the bag.
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc64"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: playlat gen|sub [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "sub":
		err = sub(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "playlat:", err)
		os.Exit(1)
	}
}

const (
	smallTopics = 10
	smallHz     = 1000
	cloudHz     = 10
	cloudBytes  = 1 << 20
	t0          = int64(1_700_000_000) * 1e9
)

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("o", "", "output bag")
	secs := fs.Int("secs", 30, "seconds of load")
	_ = fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("gen: -o required")
	}
	w, err := recording.Create(*out, recording.CreateOptions{Compression: "lz4"})
	if err != nil {
		return err
	}
	reg := msgdef.Default()
	schema := func(name string) (*record.Schema, error) {
		t, err := reg.Lookup(name)
		if err != nil {
			return nil, err
		}
		return &record.Schema{Name: name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(t)), MD5: msgdef.MD5(t)}, nil
	}
	str, err := schema("std_msgs/String")
	if err != nil {
		return err
	}
	pc, err := schema("sensor_msgs/PointCloud2")
	if err != nil {
		return err
	}
	var small []uint32
	for i := range smallTopics {
		id, err := w.AddChannel(&record.Channel{Topic: fmt.Sprintf("/small_%d", i), MessageEncoding: "ros1", Schema: str,
			Metadata: map[string]string{"callerid": "/loadgen"}})
		if err != nil {
			return err
		}
		small = append(small, id)
	}
	cloudID, err := w.AddChannel(&record.Channel{Topic: "/points", MessageEncoding: "ros1", Schema: pc, Metadata: map[string]string{"callerid": "/loadgen"}})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, cloudBytes)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	// Small topics are offset by 0.1 ms each, as independent publishers.
	for ms := range *secs * 1000 {
		for i, id := range small {
			ns := t0 + int64(ms)*1e6 + int64(i)*1e5
			s := fmt.Sprintf("%032d", ms)
			data := append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
			if err := w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: data}); err != nil {
				return err
			}
		}
		if ms%(1000/cloudHz) == 0 {
			ns := t0 + int64(ms)*1e6 + 5e5
			if err := w.WriteMessage(cloudID, &record.Message{LogTime: ns, PublishTime: ns, Data: cloud(ms/(1000/cloudHz), noise)}); err != nil {
				return err
			}
		}
	}
	return w.Close()
}

// cloud serializes a PointCloud2 whose header seq is its index and whose
// data is the noise, rotated by the index so that every cloud differs.
func cloud(seq int, noise []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(seq)) // header.seq
	b = binary.LittleEndian.AppendUint64(b, 0)              // header.stamp
	b = binary.LittleEndian.AppendUint32(b, 0)              // header.frame_id ""
	b = binary.LittleEndian.AppendUint32(b, 1)              // height
	b = binary.LittleEndian.AppendUint32(b, uint32(len(noise)/16))
	b = binary.LittleEndian.AppendUint32(b, 0) // fields: none
	b = append(b, 0)                           // is_bigendian
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(noise)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(noise)))
	k := seq * 4099 % len(noise)
	b = append(b, noise[k:]...)
	b = append(b, noise[:k]...)
	return append(b, 1) // is_dense
}

type arrival struct {
	at  time.Time
	sum uint64 // CRC-64 of the payload
}

var crcTable = crc64.MakeTable(crc64.ECMA)

func sub(args []string) error {
	fs := flag.NewFlagSet("sub", flag.ExitOnError)
	bagPath := fs.String("bag", "", "the bag being played")
	rate := fs.Float64("rate", 1, "the player's rate")
	label := fs.String("label", "player", "name printed with the figures")
	_ = fs.Parse(args)
	sched, err := schedule(*bagPath)
	if err != nil {
		return err
	}
	want := 0
	for _, s := range sched {
		want += len(s)
	}
	node, err := rosnode.New(context.Background(), rosnode.Options{Name: "/playlat"})
	if err != nil {
		return err
	}
	defer node.Close()
	var mu sync.Mutex
	got := map[string][]arrival{}
	n := 0
	last := time.Now()
	for topic := range sched {
		if _, err := node.Subscribe(topic, rosnode.SubscribeOptions{OnMessage: func(m *rosnode.Message) {
			mu.Lock()
			defer mu.Unlock()
			got[topic] = append(got[topic], arrival{at: m.Received, sum: crc64.Checksum(m.Data, crcTable)})
			n++
			last = time.Now()
		}}); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "playlat: subscribed to %d topics, waiting for %d messages\n", len(sched), want)
	for {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		done := n >= want || (n > 0 && time.Since(last) > 5*time.Second)
		mu.Unlock()
		if done {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return report(os.Stdout, *label, *rate, sched, got)
}

// scheduled is one message of the bag: its log time and payload CRC.
type scheduled struct {
	t   int64
	sum uint64
}

func schedule(path string) (map[string][]scheduled, error) {
	r, err := recording.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	out := map[string][]scheduled{}
	for {
		m, err := it.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out[m.Channel.Topic] = append(out[m.Channel.Topic], scheduled{t: m.LogTime, sum: crc64.Checksum(m.Data, crcTable)})
	}
}

func report(w io.Writer, label string, rate float64, sched map[string][]scheduled, got map[string][]arrival) error {
	// The schedule is anchored at the first message, as both players do.
	var firstAt time.Time
	firstT := int64(1<<63 - 1)
	for topic, as := range got {
		if len(as) > 0 && (firstAt.IsZero() || as[0].at.Before(firstAt)) {
			firstAt = as[0].at
		}
		if s := sched[topic]; len(s) > 0 {
			firstT = min(firstT, s[0].t)
		}
	}
	// Messages are matched by payload (every payload of a topic differs),
	// so that a lost message does not shift the others.
	var lateness []float64
	lost, unknown := 0, 0
	for topic, s := range sched {
		byPayload := make(map[uint64]int64, len(s))
		for _, m := range s {
			byPayload[m.sum] = m.t
		}
		matched := 0
		for _, a := range got[topic] {
			t, ok := byPayload[a.sum]
			if !ok {
				unknown++
				continue
			}
			matched++
			want := time.Duration(float64(t-firstT) / rate)
			lateness = append(lateness, math.Abs((a.at.Sub(firstAt)-want).Seconds()*1e3))
		}
		lost += len(s) - matched
	}
	if len(lateness) == 0 {
		return fmt.Errorf("%s: no message received", label)
	}
	slices.Sort(lateness)
	q := func(p float64) float64 { return lateness[min(len(lateness)-1, int(p*float64(len(lateness))))] }
	fmt.Fprintf(w, "%-8s rate %-3g received %7d  lost %5d  unknown payloads %d  |timing error| p50 %7.3f ms  p99 %8.3f ms  max %8.3f ms\n",
		label, rate, len(lateness), lost, unknown, q(0.5), q(0.99), lateness[len(lateness)-1])
	return nil
}
