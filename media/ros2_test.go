package media_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
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

// TestROS2Peer: ROS 2 media serialized by npm @foxglove/rosmsg2-serialization
// into an MCAP file written by npm @mcap/core (ros2media.js): the bgr8
// image's rows cut at their width and reordered to RGB, the mono16 image
// in PNG's byte order, the cloud's points, the JPEG's own bytes, each
// with its header stamp.
func TestROS2Peer(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2")
	path := filepath.Join(t.TempDir(), "media.mcap")
	if out, err := exec.Command("node", "testdata/ros2media.js", testenv.NodeDir(t), path).CombinedOutput(); err != nil {
		t.Fatalf("ros2media.js: %v\n%s", err, out)
	}
	dir, res := extract(t, media.Options{}, recording.Selection{}, path)
	if len(res.Entries) != 4 {
		t.Fatalf("%d files, want 4", len(res.Entries))
	}
	for i, e := range res.Entries {
		if e.Stamp != int64(1714564800+i+1)*1e9+7 || e.FrameID != "camera" {
			t.Errorf("%s: stamp %d, frame %q", e.Topic, e.Stamp, e.FrameID)
		}
	}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	img, err := png.Decode(bytes.NewReader(read(res.Entries[0].Path)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.(*image.RGBA).Pix, []byte{3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255, 13, 12, 11, 255, 16, 15, 14, 255, 19, 18, 17, 255}; !bytes.Equal(got, want) {
		t.Errorf("bgr8: %v, want %v", got, want)
	}
	img, err = png.Decode(bytes.NewReader(read(res.Entries[1].Path)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := img.(*image.Gray16).Pix, []byte{0x02, 0x01, 0x04, 0x03, 0x06, 0x05, 0xfe, 0xff}; !bytes.Equal(got, want) {
		t.Errorf("mono16: %v, want %v", got, want)
	}
	pcd := read(res.Entries[2].Path)
	body := pcd[bytes.Index(pcd, []byte("DATA binary\n"))+len("DATA binary\n"):]
	var pts []float32
	for i := 0; i+4 <= len(body); i += 4 {
		pts = append(pts, math.Float32frombits(binary.LittleEndian.Uint32(body[i:])))
	}
	if want := []float32{1.5, -2, 3.25, 4, 5.5, -6}; !slices.Equal(pts, want) {
		t.Errorf("cloud: %v, want %v", pts, want)
	}
	if e := res.Entries[3]; !strings.HasSuffix(e.Path, ".jpg") || !bytes.Equal(read(e.Path), []byte{0xff, 0xd8, 0xff, 0xe0, 1, 2, 3}) {
		t.Errorf("jpeg: %s", e.Path)
	}
}
