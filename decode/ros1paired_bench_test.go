package decode

import (
	"testing"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// BenchmarkToROS1MarkerArray converts a Jazzy MarkerArray of 50 markers
// (10 points each) into ROS1's MarkerArray through values, the texture
// fields left out (paired), and into an equivalent of its own fields by
// the byte transcoding (keep).
func BenchmarkToROS1MarkerArray(b *testing.B) {
	jazzy := jazzyRegistry(b)
	array, err := jazzy.Lookup("visualization_msgs/msg/MarkerArray")
	if err != nil {
		b.Fatal(err)
	}
	marker := array.Field("markers").Msg
	markers := make([]any, 50)
	for i := range markers {
		m := value.New(marker)
		points := make([]any, 10)
		for j := range points {
			p := value.New(marker.Field("points").Msg)
			_ = p.Set("x", float64(j))
			points[j] = p
		}
		_ = m.Set("points", points)
		_ = m.Set("ns", "objects")
		_ = m.Set("header.frame_id", "map")
		markers[i] = m
	}
	v := value.New(array)
	if err := v.Set("markers", markers); err != nil {
		b.Fatal(err)
	}
	src, err := cdr.Encode(v, false)
	if err != nil {
		b.Fatal(err)
	}
	ch := &record.Channel{Topic: "/m", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: array.FullName, Encoding: "ros2msg", Data: []byte(ROS2Bundle(array))}}
	for _, keep := range []bool{false, true} {
		name := map[bool]string{false: "paired", true: "keep"}[keep]
		b.Run(name, func(b *testing.B) {
			conv, _, _, err := NewResolver(jazzy).ToROS1(ch, keep)
			if err != nil {
				b.Fatal(err)
			}
			var dst []byte
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if dst, err = conv(dst[:0], src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
