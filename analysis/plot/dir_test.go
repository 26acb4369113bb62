package plot

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/baglab/baglab/analysis"
)

// TestWriteDir: every figure of the results as PNG at the resolution
// asked for and as SVG, under its name; results without data add none.
func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "figs")
	results := []analysis.Result{placementsResult(t), &analysis.FactsResult{}, graspsResult()}
	n, err := WriteDir(dir, figuresAll(results, Options{}), 300)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range results {
		for _, f := range figuresOf(r, Options{}) {
			want = append(want, f.Name+".png", f.Name+".svg")
		}
	}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(want)
	if n != len(want)/2 || n < 3 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%d figures: %v, want %v", n, got, want)
	}
	f := figuresOf(results[0], Options{})[0]
	data, _ := os.ReadFile(filepath.Join(dir, f.Name+".png"))
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w < int(float64(f.W)/72*300)-1 {
		t.Errorf("%s.png is %d px wide at 300 dpi", f.Name, w)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, f.Name+".svg"))
	if !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("%s.svg: %.80s", f.Name, svg)
	}
	if _, err := WriteDir(filepath.Join(dir, f.Name+".png"), figuresAll(results, Options{}), 96); err == nil {
		t.Error("a file as the directory")
	}
}

// TestWriteDirMode: the folder WriteDir makes has the mode of every
// output's folder, 0777 less the umask (0775 under umask 002), not a fixed
// 0755.
func TestWriteDirMode(t *testing.T) {
	old := syscall.Umask(0o002)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "figs")
	if _, err := WriteDir(dir, figuresAll([]analysis.Result{graspsResult()}, Options{}), 96); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o775 {
		t.Errorf("%s: mode %v, want 0775", dir, st.Mode().Perm())
	}
}
