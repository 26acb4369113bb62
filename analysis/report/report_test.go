package report

import (
	"bytes"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testenv"
)

func results(t *testing.T) []analysis.Result {
	ty, err := msgdef.Default().Lookup("interactive_world_msgs/Placement")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	a := analysis.NewPlacements(analysis.LearnOptions{PruneFraction: -1})
	for i := 0; i < 30; i++ {
		s := value.New(ty)
		for k, v := range map[string]any{"item.name": "cup<b>", "reference_frame_id": "table",
			"position.x": 0.5 + r.NormFloat64()*0.02, "position.y": r.NormFloat64() * 0.02} {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		a.Add(&analysis.Message{Topic: "/p", LogTime: int64(i), Value: s})
	}
	res, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	return []analysis.Result{res}
}

// TestReportInChromium renders the page in headless Debian chromium and
// checks the screenshot (size, not blank) and the DOM (tables with the
// expected numbers, escaped names).
func TestReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs chromium")
	}
	res := results(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := Render(&b, "baglab report", res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "http://") && strings.Contains(b.String(), "src=\"http") {
		t.Error("page loads external resources")
	}
	shot := filepath.Join(dir, "shot.png")
	testenv.RequirePeer(t, "chromium")
	cmd := exec.Command("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=1200,1600", "--screenshot="+shot, "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	// The first mean_x of placement_groups, as the terminal table shows it.
	var meanX string
	for _, tbl := range res[0].Tables() {
		for ci, c := range tbl.Columns {
			if tbl.Name == "placement_groups" && c.Name == "mean_x" {
				meanX = "<td>" + tbl.Display()[0][ci] + "</td>"
			}
		}
	}
	if meanX == "" || strings.Count(meanX, ".") != 1 || len(meanX) > 20 {
		t.Fatalf("no readable mean_x cell: %q", meanX)
	}
	for _, want := range []string{`data-table="placement_groups"`, `data-table="models"`, "cup&lt;b&gt;", meanX, "<svg"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("DOM lacks %q", want)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	if bd.Dx() != 1200 || bd.Dy() != 1600 {
		t.Errorf("screenshot %v", bd)
	}
	dark := 0
	for y := bd.Min.Y; y < bd.Max.Y; y += 4 {
		for x := bd.Min.X; x < bd.Max.X; x += 4 {
			r, _, _, _ := img.At(x, y).RGBA()
			if r < 0x8000 {
				dark++
			}
		}
	}
	if dark < 500 {
		t.Errorf("screenshot looks blank (%d dark samples)", dark)
	}
}
