package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// demoInputs writes the study `make demo` reports on (go run ./testdata/gen:
// seed 1, 30 sessions) and returns study.bag and queries.mcap.
func demoInputs(t *testing.T) []string {
	t.Helper()
	dir := studytest.Dir(t, studygen.Options{Seed: 1, Sessions: 30})
	return []string{filepath.Join(dir, "study.bag"), filepath.Join(dir, "queries.mcap")}
}

// analyse runs every analysis over paths through the library's front door
// and describes the paths from what it read (analysis.DescribePaths).
func analyse(t *testing.T, paths []string) ([]analysis.Result, []analysis.Input) {
	t.Helper()
	return analyseWith(t, paths, recording.InputOptions{}, 2)
}

// analyseWith is analyse with the inputs opened with opts and read jobs
// at once.
func analyseWith(t *testing.T, paths []string, opts recording.InputOptions, jobs int) ([]analysis.Result, []analysis.Input) {
	t.Helper()
	in, err := recording.OpenInputs(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := analysis.Run(context.Background(), in, kinds.All(), analysis.Options{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := analysis.DescribePaths(in)
	if err != nil {
		t.Fatal(err)
	}
	return out.Results, inputs
}

// demoPage renders the report of the demo inputs.
func demoPage(t *testing.T) (string, []string, []analysis.Result) {
	t.Helper()
	paths := demoInputs(t)
	results, inputs := analyse(t, paths)
	args := append([]string{"baglab", "report"}, paths...)
	args = append(args, "-o", "report.html", "--title", "it's a test")
	prov := NewProvenance("1.2.3-test", args, []Option{{Name: "theta", Value: "linear", Default: true}, {Name: "title", Value: "it's a test"}}, inputs)
	var b bytes.Buffer
	if err := Render(&b, Page{Title: "baglab report: demo", Provenance: prov, Results: results}); err != nil {
		t.Fatal(err)
	}
	return b.String(), paths, results
}

// TestProvenance checks the provenance block against the files: sizes,
// digests computed here, formats, times and message counts.
func TestProvenance(t *testing.T) {
	page, paths, _ := demoPage(t)
	i := strings.Index(page, `<section id="provenance">`)
	if i < 0 || i > strings.Index(page, `<section id="placements">`) {
		t.Fatal("no provenance block before the analyses")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		for _, want := range []string{hex.EncodeToString(sum[:]), ">" + strconv.Itoa(len(data)) + "<", ">" + p + "<"} {
			if !strings.Contains(page, want) {
				t.Errorf("provenance lacks %q", want)
			}
		}
	}
	for _, want := range []string{"baglab 1.2.3-test", `baglab report `, `&#39;it&#39;\&#39;&#39;s a test&#39;`, ">bag<", ">mcap<",
		"--theta", ">default<", "T", "Z<"} {
		if !strings.Contains(page, want) {
			t.Errorf("provenance lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<dd class="time">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ</dd>`).MatchString(page) {
		t.Error("no RFC 3339 creation time")
	}
}

// TestNothingToReport: without data the page says so and Render says
// ErrNothing.
func TestNothingToReport(t *testing.T) {
	var b bytes.Buffer
	err := Render(&b, Page{Title: "empty", Results: []analysis.Result{&analysis.PlacementsResult{}, &analysis.QueriesResult{}}})
	if !errors.Is(err, ErrNothing) {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(b.String(), "Nothing to report") || !strings.Contains(b.String(), "placements, queries found nothing") {
		t.Errorf("page:\n%s", b.String())
	}
}

// chromium runs headless Debian chromium on page at the given window
// width and returns the DOM after the page's scripts and the probe ran,
// and a screenshot.
func chromium(t *testing.T, page string, width int) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size="+strconv.Itoa(width)+",1400", "--screenshot="+shot, "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	return string(dom), png
}

// probe is appended to the page under test: it writes what the checks
// need into the DOM for --dump-dom to show — the page's width against the
// window's, and the first cells of a numeric column after a click on its
// header (the sort script).
const probe = `<script>
window.addEventListener("load", function () {
  var d = document.documentElement, out = document.createElement("pre");
  out.id = "probe";
  out.style.whiteSpace = "pre-wrap";
  out.style.wordBreak = "break-all";
  var th = document.querySelector('table[data-table="placement_groups"] th:nth-child(5)');
  th.click();
  var col = Array.prototype.map.call(document.querySelectorAll('table[data-table="placement_groups"] tbody tr td:nth-child(5)'), function (c) { return c.dataset.v; });
  var clipped = [];
  Array.prototype.forEach.call(document.querySelectorAll("figure svg"), function (svg) {
    var box = svg.getBoundingClientRect();
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (t) {
      var r = t.getBoundingClientRect();
      if (t.textContent.trim() !== "" && (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)) {
        clipped.push(t.textContent + " [" + Math.round(r.left - box.left) + ".." + Math.round(r.right - box.left) + " of " + Math.round(box.width) + "]");
      }
    });
  });
  out.textContent = JSON.stringify({clipped: clipped, scrollWidth: d.scrollWidth, innerWidth: window.innerWidth, sortedN: col,
    figures: document.querySelectorAll("figure svg").length, overflowing: Array.prototype.filter.call(document.querySelectorAll("figure"), function (f) { return f.getBoundingClientRect().right > window.innerWidth; }).length});
  document.body.appendChild(out);
});
</script>`

// TestReportInChromium renders the demo report in headless Debian
// chromium at 1000 and 1600 px and checks the DOM: provenance first, a
// caption on every table and figure, text left- and numbers right-aligned,
// long tables collapsed with their row count, the sort script working, and
// no horizontal page scroll; then the screenshot is not blank.
func TestReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs chromium")
	}
	testenv.RequirePeer(t, "chromium")
	page, _, results := demoPage(t)
	if strings.Contains(page, `src="http`) || strings.Contains(page, `href="http`) {
		t.Error("page loads external resources")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(strings.Replace(page, "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := os.Getenv("BAGLAB_REPORT_OUT"); d != "" { // to look at it
		_ = os.WriteFile(filepath.Join(d, "report.html"), []byte(page), 0o644)
	}
	// The figures' text stays inside the figures with a font wider than
	// the one they were measured with (a viewer without Liberation Sans:
	// DejaVu Sans, the sans-serif of many Linux systems).
	wide := filepath.Join(dir, "wide.html")
	style := `<style>svg text { font-family: "DejaVu Sans" !important; }</style>`
	if err := os.WriteFile(wide, []byte(strings.Replace(strings.Replace(page, "</body>", probe+"</body>", 1), "</head>", style+"</head>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if dom, _ := chromium(t, wide, 1000); !strings.Contains(dom, `"clipped":[]`) {
		t.Errorf("DejaVu Sans: text outside its figure: %s", regexp.MustCompile(`"clipped":\[[^\]]*\]`).FindString(dom))
	}
	tables, figures := 0, 0
	for _, r := range results {
		if !analysis.HasData(r) {
			continue
		}
		for _, tb := range r.Tables() {
			if !tb.Detail && len(tb.Rows) > 0 {
				tables++
			}
		}
	}
	figures = strings.Count(page, `<figure id="figure-`)
	for _, width := range []int{1000, 1600} {
		dom, shot := chromium(t, file, width)
		m := regexp.MustCompile(`<pre id="probe"[^>]*>([^<]*)</pre>`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%d px: the probe did not run", width)
		}
		probe := m[1]
		// Every text of every figure lies inside its viewBox (legends used
		// to be cut at the right edge: "origin of frame worl").
		if !strings.Contains(probe, `"clipped":[]`) {
			t.Errorf("%d px: text outside its figure: %s", width, regexp.MustCompile(`"clipped":\[[^\]]*\]`).FindString(probe))
		}
		sw := regexp.MustCompile(`"scrollWidth":(\d+),"innerWidth":(\d+)`).FindStringSubmatch(probe)
		if sw == nil {
			t.Fatalf("%d px: probe %s", width, probe)
		}
		if scroll, inner := atoi(sw[1]), atoi(sw[2]); inner != width || scroll > inner {
			t.Errorf("%d px: the page is %d px wide in a %d px window", width, scroll, inner)
		}
		if !strings.Contains(probe, `"overflowing":0`) {
			t.Errorf("%d px: a figure sticks out of the window: %s", width, probe)
		}
		if !strings.Contains(probe, `"figures":`+strconv.Itoa(figures)) || figures < 10 {
			t.Errorf("%d px: %d figures in the page, probe %s", width, figures, probe)
		}
		// Column 5 of placement_groups is n: after the click it ascends.
		ns := regexp.MustCompile(`"sortedN":\[([^\]]*)\]`).FindStringSubmatch(probe)
		if ns == nil {
			t.Fatalf("no sorted column: %s", probe)
		}
		prev := -1.0
		for _, s := range strings.Split(ns[1], ",") {
			v, err := strconv.ParseFloat(strings.Trim(s, `"`), 64)
			if err != nil || v < prev {
				t.Errorf("%d px: n column after a click on its header: %s", width, ns[1])
				break
			}
			prev = v
		}
		if p, a := strings.Index(dom, `id="provenance"`), strings.Index(dom, `id="placements"`); p < 0 || a < p {
			t.Errorf("%d px: provenance is not first", width)
		}
		if got := strings.Count(dom, `<p class="summary">`); got != len(results) {
			t.Errorf("%d px: %d section summaries, want one per analysis", width, got)
		}
		if got := strings.Count(dom, "<figcaption>Table "); got != tables {
			t.Errorf("%d px: %d table captions, want %d", width, got, tables)
		}
		if got := strings.Count(dom, "<figcaption>Figure "); got != figures {
			t.Errorf("%d px: %d figure captions, want %d", width, got, figures)
		}
		for _, want := range []string{`<th class="txt">item</th>`, `<th class="num">mean_x (m)</th>`, `<td class="txt">cup</td>`,
			`<th class="time">`, `<summary>Table `, `: 60 rows (click to show)</summary>`, "(s)", "Learning curve",
			"x in frame kitchen_table (m)", "time since the recording started (s)"} {
			if !strings.Contains(dom, want) {
				t.Errorf("%d px: DOM lacks %q", width, want)
			}
		}
		cells := regexp.MustCompile(`<td class="num"[^>]*>([^<]*)</td>`).FindAllStringSubmatch(dom, -1)
		for _, c := range cells {
			if _, err := strconv.ParseFloat(c[1], 64); err != nil && c[1] != "" {
				t.Errorf("%d px: %q in a numeric cell", width, c[1])
				break
			}
		}
		if len(cells) < 100 {
			t.Errorf("%d px: only %d numeric cells", width, len(cells))
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		if d := img.Bounds().Dx(); d != width {
			t.Errorf("screenshot %d px wide, want %d", d, width)
		}
		dark := 0
		for y := 0; y < img.Bounds().Dy(); y += 4 {
			for x := 0; x < img.Bounds().Dx(); x += 4 {
				if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
					dark++
				}
			}
		}
		if dark < 500 {
			t.Errorf("%d px: screenshot looks blank (%d dark samples)", width, dark)
		}
		if d := os.Getenv("BAGLAB_REPORT_OUT"); d != "" {
			_ = os.WriteFile(filepath.Join(d, "shot-"+strconv.Itoa(width)+".png"), shot, 0o644)
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestProvenanceFolder: a rosbag2 folder is described by its files, and
// its digest is the one coreutils gives for its sha256sum listing.
func TestProvenanceFolder(t *testing.T) {
	testenv.RequirePeer(t, "sha256sum")
	dir := filepath.Join(filepath.Dir(demoInputs(t)[0]), "queries_rosbag2")
	_, inputs := analyse(t, []string{dir})
	in := inputs[0]
	cmd := exec.Command("sh", "-c", "find . -type f | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Fields(string(out))[0]; in.SHA256 != want {
		t.Errorf("folder digest %s, sha256sum listing %s", in.SHA256, want)
	}
	if in.Format != "db3" || len(in.Files) != 2 || in.MessageCount == 0 || in.Size != in.Files[0].Size+in.Files[1].Size {
		t.Errorf("folder input %+v", in)
	}
}

// TestDefaultTitle: without a title the page is named after the base
// names of its inputs, in order.
func TestDefaultTitle(t *testing.T) {
	prov := NewProvenance("1.0", []string{"baglab", "report"}, nil, []analysis.Input{{Path: "runs/day1/study.bag"}, {Path: "queries_rosbag2"}})
	for title, want := range map[string]string{"": "<title>baglab report: study.bag, queries_rosbag2</title>", "Mine": "<title>Mine</title>"} {
		var b bytes.Buffer
		_ = Render(&b, Page{Title: title, Provenance: prov, Results: []analysis.Result{&analysis.QueriesResult{}}})
		if !strings.Contains(b.String(), want) {
			t.Errorf("title %q: no %s in\n%.300s", title, want, b.String())
		}
	}
}

// TestReportRepeatable: the page over the damaged samples (four cuts of
// one study, read with skip-bad: the same facts at the same times in
// several files) is the same on every run in one process, where maps are
// iterated in a new order every time, but for the time it was made, as
// the report's help says. Before, the fact timeline drew tied intervals
// in map order.
func TestReportRepeatable(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "sample", "broken", "*"))
	if err != nil || len(paths) < 4 {
		t.Fatalf("damaged samples: %v %v", paths, err)
	}
	madeAt := regexp.MustCompile(`<dt>Made at</dt><dd class="time">[^<]*</dd>`)
	var want []byte
	for run := range 10 {
		results, inputs := analyseWith(t, paths, recording.InputOptions{SkipBad: true, OnSkip: func(error) {}}, 1+run%3)
		prov := NewProvenance("1.0", append([]string{"baglab", "report", "--skip-bad"}, paths...), nil, inputs)
		var b bytes.Buffer
		if err := Render(&b, Page{Provenance: prov, Results: results}); err != nil {
			t.Fatal(err)
		}
		if madeAt.FindIndex(b.Bytes()) == nil || !bytes.Contains(b.Bytes(), []byte(`id="figure-fact_timeline"`)) {
			t.Fatal("no creation time or no fact timeline in the page")
		}
		got := madeAt.ReplaceAll(b.Bytes(), nil)
		if run == 0 {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("run %d differs from run 0:\n%s", run, testenv.FirstDiff(got, want))
		}
	}
}
