package media_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/media"
	"github.com/baglab/baglab/recording"
)

// ros2Image is sensor_msgs/msg/Image as rosbag2 stores it (one bundle).
const ros2Image = `std_msgs/Header header
uint32 height
uint32 width
string encoding
uint8 is_bigendian
uint32 step
uint8[] data
================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
`

// TestROS2Containers: a sensor_msgs/msg/Image in CDR (header.stamp a
// builtin_interfaces/Time struct) is found and written alike from MCAP and
// from a rosbag2 sqlite3 file.
func TestROS2Containers(t *testing.T) {
	typ, err := msgdef.ParseBundle("sensor_msgs/msg/Image", ros2Image, msgdef.ROS2, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := value.New(typ)
	pix := []byte{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 0, 0} // 2x2 bgr8, rows of 7 bytes (1 of padding)
	for path, x := range map[string]any{"header.stamp.sec": int32(1714564800), "header.stamp.nanosec": uint32(42),
		"header.frame_id": "cam", "height": uint32(2), "width": uint32(2), "encoding": "bgr8", "step": uint32(7), "data": pix} {
		if err := v.Set(path, x); err != nil {
			t.Fatalf("set %s: %v", path, err)
		}
	}
	events := []studygen.Event{{Topic: "/camera/color", LogTime: 1714564801e9, Value: v}}
	dir := t.TempDir()
	mcap, db3 := filepath.Join(dir, "r.mcap"), filepath.Join(dir, "r.db3")
	if err := studygen.WriteMCAP(mcap, events, "zstd", "ros2"); err != nil {
		t.Fatal(err)
	}
	if err := studygen.WriteDB3(db3, events); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{mcap, db3} {
		out, res := extract(t, media.Options{}, recording.Selection{}, in)
		if len(res.Entries) != 1 {
			t.Fatalf("%s: %d files", in, len(res.Entries))
		}
		e := res.Entries[0]
		if e.Stamp != 1714564800e9+42 || e.FrameID != "cam" || e.Path != "camera/color/1714564801000000000.png" {
			t.Errorf("%s: entry %+v", in, e)
		}
		b, err := os.ReadFile(filepath.Join(out, e.Path))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		rgba, ok := img.(*image.RGBA)
		if !ok {
			t.Fatalf("%s: decoded %T", in, img)
		}
		want := []byte{30, 20, 10, 255, 60, 50, 40, 255, 100, 90, 80, 255, 0, 120, 110, 255}
		if !bytes.Equal(rgba.Pix, want) {
			t.Errorf("%s: pixels %v, want %v", in, rgba.Pix, want)
		}
	}
}
