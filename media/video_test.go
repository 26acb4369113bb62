package media_test

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/media"
	"github.com/baglab/baglab/recording"
)

// probeFrames is what ffprobe reads of an MP4's video frames: their
// presentation times in seconds.
func probeFrames(t *testing.T, path string) []float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
		"-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var r struct {
		Frames []struct {
			PTS string `json:"pts_time"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	var ts []float64
	for _, f := range r.Frames {
		v, err := strconv.ParseFloat(f.PTS, 64)
		if err != nil {
			t.Fatalf("pts_time %q", f.PTS)
		}
		ts = append(ts, v)
	}
	return ts
}

// TestVideo: ffprobe counts one frame per recorded image at its log time
// (variable frame rate), or at i/N s with FPS N; odd sizes are padded.
func TestVideo(t *testing.T) {
	if testing.Short() {
		t.Skip("peer test")
	}
	testenv.RequirePeer(t, "ffmpeg")
	bag := peerBag(t) // one image per topic: make a stream of several with many inputs
	var paths []string
	for range 5 {
		paths = append(paths, bag)
	}
	sel := recording.Selection{Topics: []string{"/cam/rgb8", "/cam/mono16", "/cam/compressed_jpg"}}
	dir, res := extract(t, media.Options{Jobs: 2, Video: &media.VideoOptions{}}, sel, paths...)
	if len(res.Videos) != 3 {
		t.Fatalf("videos %v, want 3", res.Videos)
	}
	// the five inputs hold one frame each at the same log time: they are
	// written as 5 files (…-1.png …) and shown for the same instant
	for _, v := range res.Videos {
		ts := probeFrames(t, v)
		if len(ts) != 5 {
			t.Errorf("%s: %d frames, want 5", v, len(ts))
		}
	}
	// variable rate: a recording of frames at uneven times
	bag2 := filepath.Join(t.TempDir(), "vfr.bag")
	if out, err := exec.Command(testenv.Python, "-c", `
import sys, rosbag, rospy
from sensor_msgs.msg import Image
times = [0.0, 0.1, 0.15, 0.4, 1.0, 1.033]
with rosbag.Bag(sys.argv[1], "w") as b:
    for i, s in enumerate(times):
        m = Image(height=5, width=7, encoding="rgb8", step=21, data=bytes([i * 40] * 105))
        b.write("/cam", m, rospy.Time(1714564800) + rospy.Duration.from_sec(s))
`, bag2).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []float64{0, 0.1, 0.15, 0.4, 1.0, 1.033}
	_, res = extract(t, media.Options{Video: &media.VideoOptions{}}, recording.Selection{}, bag2)
	ts := probeFrames(t, res.Videos[0])
	if len(ts) != len(want) {
		t.Fatalf("VFR: %d frames %v, want %v", len(ts), ts, want)
	}
	for i := range ts {
		if math.Abs((ts[i]-ts[0])-want[i]) > 1e-3 {
			t.Errorf("VFR frame %d at %.6f s, want %.3f", i, ts[i]-ts[0], want[i])
		}
	}
	_, res = extract(t, media.Options{Video: &media.VideoOptions{FPS: 10}}, recording.Selection{}, bag2)
	ts = probeFrames(t, res.Videos[0])
	if len(ts) != len(want) {
		t.Fatalf("--fps 10: %d frames %v, want %d", len(ts), ts, len(want))
	}
	for i := range ts {
		if math.Abs((ts[i]-ts[0])-float64(i)/10) > 1e-3 {
			t.Errorf("--fps 10: frame %d at %.6f s, want %.1f", i, ts[i]-ts[0], float64(i)/10)
		}
	}
	_ = dir
}

// TestVideoNoFFmpeg: a missing ffmpeg is an error naming the program.
func TestVideoNoFFmpeg(t *testing.T) {
	_, err := media.VideoOptions{FFmpeg: "ffmpeg-not-here"}.FindFFmpeg()
	if err == nil || !strings.Contains(err.Error(), "ffmpeg-not-here") || !strings.Contains(err.Error(), "apt-get install ffmpeg") {
		t.Errorf("err = %v", err)
	}
}
