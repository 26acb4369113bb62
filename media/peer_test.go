package media_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/media"
	"github.com/baglab/baglab/recording"
)

// peerBag writes testdata/peer.py's recording with Debian rosbag and
// genpy: images of every encoding (plain, rows padded past the width,
// big-endian), compressed images, compressedDepth and point clouds.
func peerBag(t *testing.T) string {
	t.Helper()
	testenv.RequirePeer(t, "rosbag", "ros-msgs", "cv_bridge")
	bag := filepath.Join(t.TempDir(), "peer.bag")
	if out, err := exec.Command(testenv.Python, "testdata/peer.py", "write", bag).CombinedOutput(); err != nil {
		t.Fatalf("peer.py write: %v\n%s", err, out)
	}
	return bag
}

// extract runs Extract on paths into a new directory.
func extract(t *testing.T, o media.Options, sel recording.Selection, paths ...string) (string, *media.Result) {
	t.Helper()
	in, err := recording.OpenInputs(paths, recording.InputOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dir := filepath.Join(t.TempDir(), "out")
	res, err := media.Extract(context.Background(), in, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

type peerLine struct {
	Topic string `json:"topic"`
	T     int64  `json:"t"`
	File  string `json:"file"`
	OK    bool   `json:"ok"`
	Why   string `json:"why"`
	What  string `json:"what"`
}

// peerCheck has peer.py read every message of bag with cv_bridge,
// sensor_msgs.point_cloud2 and OpenCV, and the files under dir with
// OpenCV, Open3D and PCL, and fails t for each that differs.
func peerCheck(t *testing.T, bag, dir string, opts ...string) []peerLine {
	t.Helper()
	cmd := exec.Command(testenv.Python, append([]string{"testdata/peer.py", "check", bag, dir}, opts...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("peer.py check: %v\n%s", err, stderr.String())
	}
	var lines []peerLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var l peerLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("peer.py line %q: %v", sc.Text(), err)
		}
		if !l.OK {
			t.Errorf("%s at %d (%s): %s", l.Topic, l.T, l.File, l.Why)
		}
		lines = append(lines, l)
	}
	return lines
}

// TestPeerImages: for every encoding cv_bridge reads (rgb8 … yuv422,
// Bayer demosaiced, 32FC1 in mm, padded rows, big-endian data), OpenCV
// reads from our PNG the pixels cv_bridge reads from the message, and
// numpy from our .npy (8SC*, 16SC*, 32SC*, 32FC2-4, 64FC*) its array bit
// for bit; the
// compressed bytes are the message's; compressedDepth decodes as the
// plugin does, and the RVL and PNG messages compressed_depth_image_transport
// itself encoded (testdata/rvl) to the depths its decoder gives; Open3D and pcl_pcd2ply read the message's points from our
// binary PCD.
func TestPeerImages(t *testing.T) {
	if testing.Short() {
		t.Skip("peer test")
	}
	testenv.RequirePeer(t, "open3d", "pcl")
	bag := peerBag(t)
	dir, res := extract(t, media.Options{Jobs: 2}, recording.Selection{}, bag)
	lines := peerCheck(t, bag, dir)
	if len(lines) != 137 || len(res.Entries) != 137 {
		t.Errorf("%d messages checked, %d files written; want 137 (123 images, 11 compressed, 3 clouds)", len(lines), len(res.Entries))
	}
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l.Topic] = true
	}
	for _, topic := range []string{"/cam/rgb8/padded", "/cam/bgra16/big", "/cam/8uc2", "/cam/16uc4", "/cam/32fc1/big",
		"/cam/bayer_grbg16", "/cam/yuv422", "/cam/8sc3", "/cam/32fc2/padded", "/cam/64fc4/big", "/cam/compressed_jpg", "/cam/depth32/compressedDepth", "/depth/depth16_rvl", "/depth/depth32_rvl", "/depth/depth32_png",
		"/cloud/organized", "/cloud/packed"} {
		if !seen[topic] {
			t.Errorf("%s was not checked", topic)
		}
	}
}

// TestPeerRawASCII: --raw writes the Bayer mosaic cv_bridge passes
// through; --pcd ascii clouds: Open3D reads their points and colours,
// PCL's reader (pcl_convert_pcd_ascii_binary) every field with the packed
// rgb bit for bit, and PCL's ASCII writer makes of our binary PCD of the
// same message the header we wrote (rgb of TYPE U) and the same values.
func TestPeerRawASCII(t *testing.T) {
	if testing.Short() {
		t.Skip("peer test")
	}
	testenv.RequirePeer(t, "open3d", "pcl")
	bag := peerBag(t)
	dir, _ := extract(t, media.Options{Jobs: 2, Raw: true, ASCII: true}, recording.Selection{Topics: []string{"re:^/cam/bayer", "re:^/cloud"}}, bag)
	bin, _ := extract(t, media.Options{}, recording.Selection{Topics: []string{"re:^/cloud"}}, bag)
	if n := len(peerCheck(t, bag, dir, "raw", "ascii", "twin="+bin)); n != 23 {
		t.Errorf("%d messages checked, want 23", n)
	}
}

// TestPeerCloudOptions: --drop-nan keeps the points PCL's
// removeNaNFromPointCloud keeps (binary and ASCII); --cloud-format ply is
// read by Open3D.
func TestPeerCloudOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("peer test")
	}
	testenv.RequirePeer(t, "open3d", "pcl")
	bag := peerBag(t)
	sel := recording.Selection{Topics: []string{"re:^/cloud"}}
	dir, res := extract(t, media.Options{DropNaN: true}, sel, bag)
	peerCheck(t, bag, dir, "dropnan")
	if res.Entries[0].Points != 8 || res.Entries[1].Points != 10 || res.Entries[2].Points != 19 {
		t.Errorf("points kept %d, %d, %d; want 8, 10 and 19 (two NaN points, two, one)", res.Entries[0].Points, res.Entries[1].Points, res.Entries[2].Points)
	}
	dir, _ = extract(t, media.Options{DropNaN: true, ASCII: true}, sel, bag)
	peerCheck(t, bag, dir, "dropnan", "ascii")
	dir, _ = extract(t, media.Options{Cloud: media.PLY}, sel, bag)
	peerCheck(t, bag, dir)
}
