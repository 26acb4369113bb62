package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// placementsResult learns a model from two well separated clusters of a
// cup's placements on a 1.2 m × 0.6 m table, in the table's own frame.
func placementsResult(t *testing.T) *analysis.PlacementsResult {
	ty, err := msgdef.Default().Lookup("interactive_world_msgs/Placement")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	a := analysis.NewPlacements(analysis.LearnOptions{PruneFraction: -1})
	for i := 0; i < 60; i++ {
		s := value.New(ty)
		c := float64(i % 2)
		for k, v := range map[string]any{"item.name": "cup", "room.name": "kitchen", "surface.name": "table",
			"surface.width": 1.2, "surface.height": 0.6, "reference_frame_id": "table",
			"position.x": 0.3 + 0.6*c + r.NormFloat64()*0.04, "position.y": 0.2 + 0.2*c + r.NormFloat64()*0.015, "rotation": c} {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Add(&analysis.Message{Topic: "/p", LogTime: int64(i), Value: s}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res.(*analysis.PlacementsResult)
}

// svgDoc is what the tests read back from a figure's SVG: its paths with
// their style and bounding box, and its texts.
type svgDoc struct {
	paths []svgPath
	texts []svgText
}

type svgPath struct {
	style                  string
	minX, minY, maxX, maxY float64
}

func (p svgPath) w() float64 { return p.maxX - p.minX }
func (p svgPath) h() float64 { return p.maxY - p.minY }

type svgText struct {
	x, y float64 // y grows upwards (gonum flips the page)
	text string
}

var (
	pathRe = regexp.MustCompile(`<path d="([^"]*)"\s*style="([^"]*)"`)
	textRe = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)
	numRe  = regexp.MustCompile(`-?[0-9.]+(?:e-?[0-9]+)?`)
)

func renderSVG(t *testing.T, f *Figure) (string, svgDoc) {
	t.Helper()
	var b bytes.Buffer
	if err := f.Render(&b, "svg", 0); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	for _, m := range pathRe.FindAllStringSubmatch(b.String(), -1) {
		p := svgPath{style: m[2], minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
		nums := numRe.FindAllString(m[1], -1)
		for i := 0; i+1 < len(nums); i += 2 {
			x, _ := strconv.ParseFloat(nums[i], 64)
			y, _ := strconv.ParseFloat(nums[i+1], 64)
			p.minX, p.maxX = min(p.minX, x), max(p.maxX, x)
			p.minY, p.maxY = min(p.minY, y), max(p.maxY, y)
		}
		doc.paths = append(doc.paths, p)
	}
	for _, m := range textRe.FindAllStringSubmatch(b.String(), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		doc.texts = append(doc.texts, svgText{x: x, y: -y, text: strings.ReplaceAll(m[3], "&#34;", `"`)})
	}
	return b.String(), doc
}

func (d svgDoc) hasText(s string) bool {
	for _, t := range d.texts {
		if t.text == s {
			return true
		}
	}
	return false
}

// stroked returns the paths drawn with a line of colour c.
func (d svgDoc) stroked(c color.Color, extra string) []svgPath {
	var out []svgPath
	for _, p := range d.paths {
		if strings.Contains(p.style, "stroke:"+hex(c)+";") && strings.Contains(p.style, extra) {
			out = append(out, p)
		}
	}
	return out
}

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// TestPlacementFigureSVG checks the placement figure as drawn: every
// cluster's 1σ and 2σ ellipses in its colour with the cluster's σx:σy
// shape, the surface outline with the table's 2:1 shape, one metre the same
// length on both axes, the legend entries and the axis titles.
func TestPlacementFigureSVG(t *testing.T) {
	r := placementsResult(t)
	figs := figuresOf(r, Options{})
	if len(figs) != 1 || !figs[0].EqualAspect {
		t.Fatalf("figures: %v", figs)
	}
	m := r.Models[0]
	if len(m.ClusterStats) < 2 {
		t.Fatalf("the learner found %d clusters, want 2", len(m.ClusterStats))
	}
	_, doc := renderSVG(t, figs[0])
	// The outline and its legend thumbnail share a style.
	outline := doc.stroked(surfaceColor, "stroke-dasharray:2,2")
	if len(outline) != 2 || outline[0].h() == 0 {
		t.Fatalf("%d surface outlines and thumbnails", len(outline))
	}
	perMetreX, perMetreY := outline[0].w()/1.2, outline[0].h()/0.6
	if !near(perMetreX, perMetreY, 0.003) || perMetreX < 100 {
		t.Errorf("one metre is %.2f pt along x and %.2f pt along y", perMetreX, perMetreY)
	}
	for i, cs := range m.ClusterStats {
		col := colour(i)
		solid := doc.stroked(col, "stroke-width:1.3")
		var one, two []svgPath
		for _, p := range solid {
			if strings.Contains(p.style, "stroke-dasharray:5,3") {
				two = append(two, p)
			} else {
				one = append(one, p)
			}
		}
		if len(one) != 1 || len(two) != 1 {
			t.Errorf("cluster %d: %d 1σ and %d 2σ ellipses in %s", i, len(one), len(two), hex(col))
			continue
		}
		sx, sy := float64(cs.SigmaX), float64(cs.SigmaY)
		if !near(one[0].w(), 2*sx*perMetreX, 0.01) || !near(one[0].h(), 2*sy*perMetreY, 0.01) {
			t.Errorf("cluster %d: 1σ ellipse %.2f × %.2f pt, want %.2f × %.2f", i, one[0].w(), one[0].h(), 2*sx*perMetreX, 2*sy*perMetreY)
		}
		if !near(two[0].w(), 2*one[0].w(), 0.01) || !near(two[0].h(), 2*one[0].h(), 0.01) {
			t.Errorf("cluster %d: 2σ ellipse is not twice the 1σ one", i)
		}
		if !doc.hasText(fmt.Sprintf("cluster %d (n = %d)", cs.Index+1, cs.N)) {
			t.Errorf("no legend entry for cluster %d", cs.Index+1)
		}
	}
	for _, want := range []string{"cluster mean", "1σ ellipse", "2σ ellipse", "model placement", "surface table (1.2 × 0.6 m)",
		"origin of frame table", "x in frame table (m)", "y in frame table (m)", "cup on table (kitchen), frame table"} {
		if !doc.hasText(want) {
			t.Errorf("SVG lacks the text %q", want)
		}
	}
	// Both axes step by the same round number: the x tick labels share a
	// baseline, the others are the y ones.
	byLine := map[float64][]float64{}
	var all []svgText
	for _, tx := range doc.texts {
		if v, err := strconv.ParseFloat(tx.text, 64); err == nil {
			byLine[tx.y] = append(byLine[tx.y], v)
			all = append(all, tx)
		}
	}
	var xTicks, yTicks []float64
	for _, tx := range all {
		v, _ := strconv.ParseFloat(tx.text, 64)
		if len(byLine[tx.y]) >= 3 {
			xTicks = append(xTicks, v)
		} else {
			yTicks = append(yTicks, v)
		}
	}
	if len(xTicks) < 4 || len(yTicks) < 3 {
		t.Fatalf("tick labels x %v, y %v", xTicks, yTicks)
	}
	slices.Sort(xTicks)
	slices.Sort(yTicks)
	if dx, dy := xTicks[1]-xTicks[0], yTicks[1]-yTicks[0]; !near(dx, dy, 1e-9) {
		t.Errorf("x ticks step %v, y ticks %v", dx, dy)
	}
	if !strings.Contains(figs[0].Caption, "1σ and 2σ") || !strings.Contains(figs[0].Caption, "metres") {
		t.Errorf("caption: %s", figs[0].Caption)
	}
}

// TestPNGResolution renders a figure at two resolutions: the pixel size
// follows the dpi, and the picture is not blank.
func TestPNGResolution(t *testing.T) {
	f := figuresOf(placementsResult(t), Options{})[0]
	for _, dpi := range []float64{DefaultDPI, 300} {
		var b bytes.Buffer
		if err := f.Render(&b, "png", dpi); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		want := int(math.Round(float64(f.W/vg.Inch) * dpi))
		if d := img.Bounds().Dx(); d < want-1 || d > want+1 {
			t.Errorf("%v dpi: %d px wide, want %d", dpi, d, want)
		}
		colored := 0
		bd := img.Bounds()
		for y := bd.Min.Y; y < bd.Max.Y; y += 3 {
			for x := bd.Min.X; x < bd.Max.X; x += 3 {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r != g || g != bl {
					colored++
				}
			}
		}
		if colored < 100 {
			t.Errorf("%v dpi: only %d coloured samples", dpi, colored)
		}
	}
	if DefaultDPI < 150 {
		t.Error("default resolution below print quality")
	}
}

func graspsResult() *analysis.GraspsResult {
	rate := func(k, n int64, lo, hi float64) analysis.Rate {
		return analysis.Rate{Successes: k, Attempts: n, SuccessRate: analysis.Num(float64(k) / float64(n)), WilsonLow: analysis.Num(lo), WilsonHigh: analysis.Num(hi)}
	}
	nan := analysis.Num(math.NaN())
	start := int64(1_700_000_010e9)
	r := &analysis.GraspsResult{KindName: "grasps", WindowNs: 10e9,
		Grasps: []analysis.GraspStat{
			{ModelID: "1", GraspID: "1", ObjectName: "cup", Rate: rate(9, 10, 0.6, 0.98)},
			{ModelID: "1", GraspID: "2", ObjectName: "cup", Rate: analysis.Rate{SuccessRate: nan, WilsonLow: nan, WilsonHigh: nan}, Untried: true},
			{ModelID: "2", GraspID: "3", ObjectName: "bowl", Rate: rate(2, 8, 0.07, 0.59)},
		}}
	for w := 0; w < 4; w++ {
		for _, obj := range []string{"bowl", "cup"} {
			r.Curve = append(r.Curve, analysis.WindowRate{ObjectName: obj, Source: "grasp_and_store", Window: w,
				StartNs: start + int64(w)*10e9, EndNs: start + int64(w+1)*10e9, Rate: rate(int64(w), 4, 0.05, 0.9)})
		}
	}
	r.Attempts = []analysis.Attempt{{LogTimeNs: start, ObjectName: "cup", Source: "grasp_and_store"}}
	return r
}

// TestGraspFigures checks the grasp rates name object, model and grasp,
// list untried grasps apart, and that the learning curve has its Wilson
// band and counts time from the recording's start when it is known.
func TestGraspFigures(t *testing.T) {
	r := graspsResult()
	figs := figuresOf(r, Options{StartNs: 1_700_000_000e9})
	if len(figs) != 2 || figs[0].Name != "grasp_rates" || figs[1].Name != "learning_curve_grasp_and_store" {
		t.Fatalf("figures %v", figs)
	}
	_, doc := renderSVG(t, figs[0])
	for _, want := range []string{"cup · model 1 · grasp 1  9/10", "bowl · model 2 · grasp 3  2/8", "cup · model 1 · grasp 2  untried",
		"untried (no attempts)", "Wilson 95% interval", "success rate (successes / attempts)", "bowl", "cup"} {
		if !doc.hasText(want) {
			t.Errorf("grasp rates lack %q", want)
		}
	}
	// The untried grasp is the bottom row, below the tried ones.
	var untriedY, lowestTried = math.Inf(1), math.Inf(1)
	for _, tx := range doc.texts {
		switch {
		case strings.HasSuffix(tx.text, "untried") && strings.Contains(tx.text, "·"):
			untriedY = tx.y
		case strings.Contains(tx.text, "·"):
			lowestTried = min(lowestTried, tx.y)
		}
	}
	if !(untriedY < lowestTried) {
		t.Errorf("untried row at %v, tried rows down to %v", untriedY, lowestTried)
	}
	svg, doc := renderSVG(t, figs[1])
	for _, want := range []string{"time since the recording started (s)", "Wilson 95% band", "success rate", "bowl", "cup",
		"Learning curve (grasp_and_store, 10 s windows)"} {
		if !doc.hasText(want) {
			t.Errorf("learning curve lacks %q", want)
		}
	}
	if !strings.Contains(svg, "fill-opacity:0.2") {
		t.Error("no shaded band")
	}
	_, doc = renderSVG(t, figuresOf(r, Options{})[1])
	if !doc.hasText("time since the first attempt (s)") {
		t.Error("without the start, the axis does not say what time counts from")
	}
}

// TestFactTimeline checks the rows, that the title clears the top row and
// the time axis says what it counts from.
func TestFactTimeline(t *testing.T) {
	start := int64(1_700_000_000e9)
	k := func(s, p, o string) analysis.FactKey {
		return analysis.FactKey{SubjectID: s, Property: p, TargetID: o}
	}
	r := &analysis.FactsResult{KindName: "facts",
		Facts: []analysis.FactStat{{FactKey: k("CUP", "IsOn", "TABLE")}, {FactKey: k("ROBOT", "IsLookingAt", "CUP")}},
		Intervals: []analysis.FactInterval{{FactKey: k("CUP", "IsOn", "TABLE"), StartNs: start + 1e9, EndNs: start + 9e9},
			{FactKey: k("ROBOT", "IsLookingAt", "CUP"), StartNs: start + 3e9, EndNs: start + 12e9, Censored: true}}}
	figs := figuresOf(r, Options{StartNs: start})
	if len(figs) != 1 {
		t.Fatalf("%d figures", len(figs))
	}
	_, doc := renderSVG(t, figs[0])
	var titleY, topRowY float64
	for _, tx := range doc.texts {
		switch tx.text {
		case "Fact timeline":
			titleY = tx.y
		case "CUP IsOn TABLE":
			topRowY = tx.y
		}
	}
	// The title's baseline sits above the top row label's top (its size
	// above its baseline) with room for the title's descent.
	if titleY-3 < topRowY+tickSize {
		t.Errorf("title at %v overlaps the top row at %v", titleY, topRowY)
	}
	for _, want := range []string{"time since the recording started (s)", "IsOn", "IsLookingAt", "still holding at the end", "ROBOT IsLookingAt CUP"} {
		if !doc.hasText(want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
}

// TestNoFigureWithoutData: results without data give no figure; the map
// and query figures render, latency in seconds.
func TestNoFigureWithoutData(t *testing.T) {
	for _, r := range []analysis.Result{&analysis.PlacementsResult{}, &analysis.GraspsResult{}, &analysis.FactsResult{},
		&analysis.MapResult{}, &analysis.QueriesResult{}} {
		if figs := figuresOf(r, Options{}); len(figs) != 0 {
			t.Errorf("%s without data: %d figures", r.Kind(), len(figs))
		}
	}
	m := &analysis.MapResult{Vertices: 4, Degrees: []analysis.DegreeCount{{Degree: 0, Vertices: 1}, {Degree: 2, Vertices: 3}}}
	q := &analysis.QueriesResult{All: analysis.QueryStat{Calls: 3},
		Calls: []analysis.QueryCall{{Latency: 0.02}, {Latency: 0.05}, {Latency: analysis.Num(math.NaN())}}}
	for _, c := range []struct {
		r    analysis.Result
		want string
	}{{m, "vertex degree (edges at the vertex)"}, {q, "latency from request to response (s)"}} {
		figs := figuresOf(c.r, Options{})
		if len(figs) != 1 {
			t.Fatalf("%s: %d figures", c.r.Kind(), len(figs))
		}
		if _, doc := renderSVG(t, figs[0]); !doc.hasText(c.want) {
			t.Errorf("%s: no axis title %q", c.r.Kind(), c.want)
		}
		var b bytes.Buffer
		if err := figs[0].Render(&b, "png", 0); err != nil || b.Len() == 0 {
			t.Errorf("%s png: %v", c.r.Kind(), err)
		}
	}
	if err := figuresOf(q, Options{})[0].Render(&bytes.Buffer{}, "gif", 0); err == nil {
		t.Error("an unknown format renders")
	}
}

// TestSVGTextLength: every text of an SVG figure carries the length it
// was laid out with and metric-compatible fallback fonts, so a viewer
// without Liberation Sans draws it in the same space (TestReportInChromium
// checks it with DejaVu Sans).
func TestSVGTextLength(t *testing.T) {
	r := &analysis.QueriesResult{Calls: []analysis.QueryCall{{Latency: 0.25}, {Latency: 0.5}}}
	var b bytes.Buffer
	if err := QueryLatencies(r).Render(&b, "svg", 0); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	texts := strings.Count(svg, "<text ")
	if texts == 0 || strings.Count(svg, `lengthAdjust="spacingAndGlyphs"`) != texts || strings.Contains(svg, "font-family:Liberation Sans;") ||
		!strings.Contains(svg, "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;") {
		t.Errorf("%d texts:\n%.2000s", texts, svg)
	}
}

// figuresOf draws r with the builder of its type, as the registry
// (package analysis/kinds) does.
func figuresOf(r analysis.Result, o Options) []*Figure {
	for _, b := range []Builder{For(Placements), For(Grasps), For(Facts), For(Map), For(Queries), For(Topics)} {
		if figs := b(r, o); figs != nil {
			return figs
		}
	}
	return nil
}

// figuresAll is figuresOf of every result, in order.
func figuresAll(results []analysis.Result, o Options) []*Figure {
	var out []*Figure
	for _, r := range results {
		out = append(out, figuresOf(r, o)...)
	}
	return out
}
