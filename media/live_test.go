package media_test

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/media"
	"github.com/baglab/baglab/recording"
)

// TestPeerExtractImages: image_view's extract_images, fed by rosbag play,
// writes the pixels of every frame of a topic as we do (its PNGs through
// cv_bridge's bgr8 and cv::imwrite), for an rgb8 and a bgr8 topic.
func TestPeerExtractImages(t *testing.T) {
	if testing.Short() {
		t.Skip("live peer test")
	}
	testenv.RequirePeer(t, "rosbag", "ros-msgs", "image_view")
	dir := t.TempDir()
	bag := filepath.Join(dir, "cam.bag")
	if out, err := exec.Command(testenv.Python, "-c", `
import sys, rosbag, rospy, numpy as np
from sensor_msgs.msg import Image
rng = np.random.default_rng(3)
with rosbag.Bag(sys.argv[1], "w") as b:
    for i in range(8):
        for topic, enc in (("/cam_rgb", "rgb8"), ("/cam_bgr", "bgr8")):
            m = Image(height=12, width=16, encoding=enc, step=48, data=rng.integers(0, 256, 576, dtype=np.uint8).tobytes())
            m.header.seq = i
            b.write(topic, m, rospy.Time(1714564800) + rospy.Duration.from_sec(0.25 * i))
`, bag).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, res := extract(t, media.Options{}, recording.Selection{}, bag)
	ours := map[string][]string{}
	for _, e := range res.Entries {
		ours[e.Topic] = append(ours[e.Topic], e.Path)
	}
	m := rostest.StartMaster(t)
	for _, topic := range []string{"/cam_rgb", "/cam_bgr"} {
		frames := filepath.Join(dir, topic[1:])
		if err := os.Mkdir(frames, 0o755); err != nil {
			t.Fatal(err)
		}
		m.Start(t, "extract"+topic[1:], "/usr/lib/image_view/extract_images", "image:="+topic,
			"__name:=extract_"+topic[1:], "_filename_format:="+frames+"/frame%04i.png", "_sec_per_frame:=0.0")
	}
	time.Sleep(3 * time.Second) // the extractors subscribe
	if out, err := m.Output(t, 2*time.Minute, "rosbag", "play", "-d", "2", bag); err != nil {
		t.Fatalf("rosbag play: %v\n%s", err, out)
	}
	time.Sleep(2 * time.Second)
	for _, topic := range []string{"/cam_rgb", "/cam_bgr"} {
		theirs, _ := filepath.Glob(filepath.Join(dir, topic[1:], "frame*.png"))
		if len(theirs) != len(ours[topic]) {
			t.Fatalf("%s: extract_images wrote %d frames, we %d\n%s", topic, len(theirs), len(ours[topic]), m.Log("extract"+topic[1:]))
		}
		for i, f := range theirs {
			a, b := pixels(t, f), pixels(t, filepath.Join(res.Index[0], "..", ours[topic][i]))
			if !bytes.Equal(a, b) {
				t.Errorf("%s frame %d: extract_images' %s and our %s differ", topic, i, f, ours[topic][i])
			}
		}
	}
}

// pixels decodes a PNG to 8-bit RGBA bytes.
func pixels(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", path, err))
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba.Pix
}
