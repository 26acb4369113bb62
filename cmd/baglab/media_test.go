package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/recording/bag"
)

// mediaStudy writes a study whose grasp demonstrations and models carry
// pictures and clouds (studygen.Options.Media, as make demo writes it).
func mediaStudy(t *testing.T) string {
	t.Helper()
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2, Media: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "study.bag")
	if err := studygen.WriteBag(path, s.ROS1, bag.CompressionNone); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMediaCommand: the verb writes the study's frames and index, refuses
// a DIR that holds files without --force, and checks its flags.
func TestMediaCommand(t *testing.T) {
	study := mediaStudy(t)
	out := filepath.Join(t.TempDir(), "media")
	if _, stderr, code := run(t, "media", study, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	pngs, _ := filepath.Glob(filepath.Join(out, "rail_pick_and_place/grasp_demonstrations/image/*.png"))
	pcds, _ := filepath.Glob(filepath.Join(out, "rail_pick_and_place/grasp_models/point_cloud/*.pcd"))
	if len(pngs) != 3 || len(pcds) != 3 {
		t.Errorf("%d demonstration images, %d model clouds; want 3 and 3", len(pngs), len(pcds))
	}
	for _, f := range []string{"index.parquet", "index.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if _, stderr, code := run(t, "media", study, "--out", out); code != exitOutput || !strings.Contains(stderr, "--force") {
		t.Errorf("into a full DIR: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{{"--fps", "10"}, {"--pcd", "text"}, {"--cloud-format", "las"}, {"--cloud-format", "ply", "--pcd", "ascii"}, {}} {
		a := append([]string{"media", study}, args...)
		if len(args) > 0 {
			a = append(a, "--out", filepath.Join(t.TempDir(), "x"))
		}
		if _, stderr, code := run(t, a...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}

// TestReportPictures: the report shows each grasp demonstration's image
// beside its object and grasp rate and each model's cloud, inlined (the
// page names no other file), within --max-media-bytes.
func TestReportPictures(t *testing.T) {
	study := mediaStudy(t)
	imgs := regexp.MustCompile(`<img src="data:image/png;base64,([^"]+)" width="(\d+)" height="(\d+)" alt="([^"]*)"`)
	for _, c := range []struct {
		budget      string
		pictures    int
		maxBase64   int
		leftOutNote bool
	}{{"1048576", 6, 1 << 21, false}, {"2000", 2, 2000 * 4 / 3 * 2, true}, {"0", 0, 0, false}} {
		page := filepath.Join(t.TempDir(), "r.html")
		if _, stderr, code := run(t, "report", study, "-o", page, "--max-media-bytes", c.budget); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		found := imgs.FindAllStringSubmatch(html, -1)
		total := 0
		for _, m := range found {
			total += len(m[1])
		}
		if c.budget == "2000" {
			if len(found) == 0 || len(found) >= 6 || total > c.maxBase64 {
				t.Errorf("budget %s: %d pictures, %d base64 bytes", c.budget, len(found), total)
			}
		} else if len(found) != c.pictures {
			t.Errorf("budget %s: %d pictures, want %d", c.budget, len(found), c.pictures)
		}
		if strings.Contains(html, "more left out") != c.leftOutNote {
			t.Errorf("budget %s: left-out note %v", c.budget, !c.leftOutNote)
		}
		if regexp.MustCompile(`(src|href)="(https?:|//|file:)`).MatchString(html) {
			t.Errorf("budget %s: the page loads something from elsewhere", c.budget)
		}
		if c.budget == "1048576" {
			if !strings.Contains(found[0][4], "Grasp demonstration 1: cup; grasps succeeded") || !strings.Contains(html, "Grasp model 3: the spoon&#39;s cloud seen from above") {
				t.Errorf("captions: %q …", found[0][4])
			}
		}
	}
}

// TestMediaSkipBad: an image whose data is shorter than step x height
// stops the verb with exit 3 naming the file, topic, field and log time,
// and leaves no file behind; with --skip-bad it is reported and the other
// frames are written.
func TestMediaSkipBad(t *testing.T) {
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2, Media: true})
	if err != nil {
		t.Fatal(err)
	}
	var bad int64
	for _, e := range s.ROS1 {
		if e.Topic == "/rail_pick_and_place/grasp_demonstrations" && bad == 0 {
			if err := e.Value.Set("image.height", uint32(1000)); err != nil {
				t.Fatal(err)
			}
			bad = e.LogTime
		}
	}
	path := filepath.Join(t.TempDir(), "study.bag")
	if err := studygen.WriteBag(path, s.ROS1, bag.CompressionNone); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "media")
	_, stderr, code := run(t, "media", path, "--out", out)
	for _, want := range []string{path, "topic /rail_pick_and_place/grasp_demonstrations", "field image.data", "log time " + strconv.FormatInt(bad, 10), "step 288 x height 1000"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	if code != exitBadInput {
		t.Errorf("exit %d, want 3", code)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*")); len(files) != 0 {
		t.Errorf("files left after the error: %v", files)
	}
	_, stderr, code = run(t, "media", path, "--out", out, "--skip-bad", "--quiet")
	pngs, _ := filepath.Glob(filepath.Join(out, "rail_pick_and_place/grasp_demonstrations/image/*.png"))
	if code != 0 || len(pngs) != 2 || !strings.Contains(stderr, "skipped") || !strings.Contains(stderr, "field image.data") {
		t.Errorf("--skip-bad: exit %d, %d images, stderr %s", code, len(pngs), stderr)
	}
}

// TestMediaRemote: a recording named by URL (read with HTTP range
// requests) gives the same frames as the file.
func TestMediaRemote(t *testing.T) {
	study := mediaStudy(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(study))))
	defer srv.Close()
	local, remote := filepath.Join(t.TempDir(), "local"), filepath.Join(t.TempDir(), "remote")
	for _, c := range [][2]string{{study, local}, {srv.URL + "/study.bag", remote}} {
		if _, stderr, code := run(t, "media", c[0], "--out", c[1], "--quiet"); code != 0 {
			t.Fatalf("%s: exit %d: %s", c[0], code, stderr)
		}
	}
	for _, rel := range []string{"rail_pick_and_place/grasp_demonstrations/image", "rail_pick_and_place/grasp_models/point_cloud"} {
		files, _ := filepath.Glob(filepath.Join(local, rel, "*"))
		if len(files) != 3 {
			t.Fatalf("%s: %d files", rel, len(files))
		}
		for _, f := range files {
			a, _ := os.ReadFile(f)
			b, err := os.ReadFile(filepath.Join(remote, rel, filepath.Base(f)))
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: remote copy differs (%v)", f, err)
			}
		}
	}
}

// TestReportImageWithoutPicture: a grasp demonstration whose image is in
// an encoding with no picture (32SC1, which media writes as .npy) leaves
// the report whole: the other five pictures are shown and one line says
// which image has no thumbnail. Before, the report failed with exit 3.
func TestReportImageWithoutPicture(t *testing.T) {
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2, Media: true})
	if err != nil {
		t.Fatal(err)
	}
	done := false
	for _, e := range s.ROS1 {
		if e.Topic == "/rail_pick_and_place/grasp_demonstrations" && !done {
			step, _ := e.Value.LookupInt("image.step")
			for field, v := range map[string]any{"image.encoding": "32SC1", "image.width": uint32(step / 4)} {
				if err := e.Value.Set(field, v); err != nil {
					t.Fatal(err)
				}
			}
			done = true
		}
	}
	path := filepath.Join(t.TempDir(), "study.bag")
	if err := studygen.WriteBag(path, s.ROS1, bag.CompressionNone); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	_, stderr, code := run(t, "report", path, "-o", page)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `<img src="data:image/png;base64,`); n != 5 {
		t.Errorf("%d pictures, want 5", n)
	}
	if !strings.Contains(stderr, "no thumbnail for 1 image") || !strings.Contains(stderr, `"32SC1"`) {
		t.Errorf("stderr does not name the image without a thumbnail:\n%s", stderr)
	}
}
