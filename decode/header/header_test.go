package header_test

import (
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/header"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// TestRead reads the header of ROS1 messages that have one (PoseStamped,
// Imu) and finds none in a type without one (Pose).
func TestRead(t *testing.T) {
	reg := msgdef.Default()
	res := decode.NewResolver(reg)
	for _, c := range []struct {
		typ   string
		set   map[string]any
		want  header.Header
		found bool
	}{
		{"geometry_msgs/PoseStamped", map[string]any{"header.stamp": value.Time{Sec: 1700000000, Nsec: 5}, "header.frame_id": "base_link", "pose.position.x": 1.0},
			header.Header{Stamp: 1700000000*1e9 + 5, FrameID: "base_link"}, true},
		{"sensor_msgs/Imu", map[string]any{"header.stamp": value.Time{Sec: 3, Nsec: 999999999}, "header.frame_id": "imu"},
			header.Header{Stamp: 3999999999, FrameID: "imu"}, true},
		{"geometry_msgs/Pose", map[string]any{"position.x": 2.0}, header.Header{}, false},
	} {
		typ, err := reg.Lookup(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		v := value.New(typ)
		for p, x := range c.set {
			if err := v.Set(p, x); err != nil {
				t.Fatal(err)
			}
		}
		data, err := ros1.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		ch := &record.Channel{Topic: "/x", MessageEncoding: "ros1", Schema: &record.Schema{Name: c.typ, Encoding: "ros1msg", Data: []byte(msgdef.FullText(typ))}}
		dec, err := res.For(ch)
		if err != nil {
			t.Fatal(err)
		}
		if header.Has(typ) != c.found {
			t.Errorf("%s: Has = %v", c.typ, !c.found)
		}
		h, ok, err := header.Read(dec, data)
		if err != nil || ok != c.found || h != c.want {
			t.Errorf("%s: %+v %v %v, want %+v %v", c.typ, h, ok, err, c.want, c.found)
		}
	}
}
