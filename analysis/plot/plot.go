package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/baglab/baglab/analysis"
)

// Figure is one named plot.
type Figure struct {
	Name  string
	Title string
	Plot  *plot.Plot
	W, H  vg.Length
}

// WriteTo renders the figure in format "png" or "svg".
func (f *Figure) WriteTo(w io.Writer, format string) error {
	wt, err := f.Plot.WriterTo(f.W, f.H, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// fileSafe keeps letters, digits, '-' and '_' of s for use in a file name.
func fileSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
}

// Placements returns one figure per group with at least one placement:
// the placements (colored by EM cluster), and the model mean with its 1σ
// and 2σ ellipses.
func Placements(r *analysis.PlacementsResult) []*Figure {
	var figs []*Figure
	for gi, g := range r.Groups {
		p := plot.New()
		p.Title.Text = g.GroupKey.String()
		p.X.Label.Text = "x (m)"
		p.Y.Label.Text = "y (m)"
		var m *analysis.LearnedModel
		if gi < len(r.Models) {
			m = &r.Models[gi]
		}
		byCluster := map[int]plotter.XYs{}
		for i, q := range r.Points[gi] {
			c := -1
			if m != nil && i < len(m.Assignments) {
				c = m.Assignments[i]
			}
			byCluster[c] = append(byCluster[c], plotter.XY{X: q.X, Y: q.Y})
		}
		for c := -1; c < 16; c++ {
			pts, ok := byCluster[c]
			if !ok {
				continue
			}
			s, err := plotter.NewScatter(pts)
			if err != nil {
				continue
			}
			s.GlyphStyle.Radius = vg.Points(2)
			s.GlyphStyle.Color = palette[(c+len(palette))%len(palette)]
			p.Add(s)
		}
		if m != nil && m.HasPlacement {
			mx, my := float64(m.Placement.Position.X), float64(m.Placement.Position.Y)
			sx, sy := float64(m.SigmaX), float64(m.SigmaY)
			for k, dash := range [][]vg.Length{nil, {vg.Points(4), vg.Points(3)}} {
				l, err := plotter.NewLine(ellipse(mx, my, float64(k+1)*sx, float64(k+1)*sy))
				if err == nil {
					l.LineStyle.Width = vg.Points(1.2)
					l.LineStyle.Dashes = dash
					p.Add(l)
				}
			}
			c, err := plotter.NewScatter(plotter.XYs{{X: mx, Y: my}})
			if err == nil {
				c.GlyphStyle.Shape = draw.CrossGlyph{}
				c.GlyphStyle.Radius = vg.Points(5)
				p.Add(c)
			}
		}
		name := fmt.Sprintf("placements_%02d_%s_%s_%s", gi, fileSafe(g.Item), fileSafe(g.Surface), fileSafe(g.ReferenceFrameID))
		figs = append(figs, &Figure{Name: name, Title: p.Title.Text, Plot: p, W: 5 * vg.Inch, H: 5 * vg.Inch})
	}
	return figs
}

func ellipse(cx, cy, rx, ry float64) plotter.XYs {
	const n = 72
	pts := make(plotter.XYs, n+1)
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i) / n
		pts[i] = plotter.XY{X: cx + rx*math.Cos(a), Y: cy + ry*math.Sin(a)}
	}
	return pts
}

// GraspRates returns the success rate of every tried grasp with its
// Wilson 95% interval.
func GraspRates(r *analysis.GraspsResult) *Figure {
	p := plot.New()
	p.Title.Text = "grasp success rates (Wilson 95%)"
	p.Y.Label.Text = "success rate"
	p.Y.Min, p.Y.Max = 0, 1
	var pts plotter.XYs
	var errs plotter.YErrors
	var names []string
	for _, g := range r.Grasps {
		if g.Untried {
			continue
		}
		rate := float64(g.SuccessRate)
		pts = append(pts, plotter.XY{X: float64(len(pts)), Y: rate})
		errs = append(errs, struct{ Low, High float64 }{rate - float64(g.WilsonLow), float64(g.WilsonHigh) - rate})
		names = append(names, g.ModelID+"/"+g.GraspID)
	}
	if len(pts) > 0 {
		type xyyerr struct {
			plotter.XYs
			plotter.YErrors
		}
		if eb, err := plotter.NewYErrorBars(xyyerr{pts, errs}); err == nil {
			p.Add(eb)
		}
		if s, err := plotter.NewScatter(pts); err == nil {
			p.Add(s)
		}
		p.NominalX(names...)
	}
	return &Figure{Name: "grasp_rates", Title: p.Title.Text, Plot: p, W: vg.Length(math.Max(5, float64(len(pts))*0.4)) * vg.Inch, H: 4 * vg.Inch}
}

// FactTimeline draws each fact's intervals as horizontal bars against time
// (seconds from the first interval).
func FactTimeline(r *analysis.FactsResult) *Figure {
	p := plot.New()
	p.Title.Text = "fact timeline"
	p.X.Label.Text = "time (s)"
	if len(r.Intervals) == 0 {
		return &Figure{Name: "fact_timeline", Title: p.Title.Text, Plot: p, W: 6 * vg.Inch, H: 3 * vg.Inch}
	}
	t0 := r.Intervals[0].StartNs
	for _, iv := range r.Intervals {
		t0 = min(t0, iv.StartNs)
	}
	row := map[analysis.FactKey]int{}
	var names []string
	for _, f := range r.Facts {
		row[f.FactKey] = len(names)
		names = append(names, f.SubjectID+" "+f.Property+" "+f.TargetID)
	}
	for _, iv := range r.Intervals {
		y := float64(row[iv.FactKey])
		l, err := plotter.NewLine(plotter.XYs{{X: float64(iv.StartNs-t0) / 1e9, Y: y}, {X: float64(iv.EndNs-t0) / 1e9, Y: y}})
		if err != nil {
			continue
		}
		l.LineStyle.Width = vg.Points(6)
		l.LineStyle.Color = palette[row[iv.FactKey]%len(palette)]
		p.Add(l)
	}
	p.NominalY(names...)
	return &Figure{Name: "fact_timeline", Title: p.Title.Text, Plot: p, W: 7 * vg.Inch, H: vg.Length(1+0.3*float64(len(names))) * vg.Inch}
}

// MapDegrees draws the degree histogram of a map's vertices; nil when the
// map has none.
func MapDegrees(r *analysis.MapResult) *Figure {
	if len(r.Degrees) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = "vertex degrees"
	p.X.Label.Text = "degree"
	p.Y.Label.Text = "vertices"
	vals := make(plotter.Values, len(r.Degrees))
	names := make([]string, len(r.Degrees))
	for i, d := range r.Degrees {
		vals[i] = float64(d.Vertices)
		names[i] = fmt.Sprint(d.Degree)
	}
	if bars, err := plotter.NewBarChart(vals, vg.Points(20)); err == nil {
		bars.Color = palette[0]
		p.Add(bars)
		p.NominalX(names...)
	}
	return &Figure{Name: "map_degrees", Title: p.Title.Text, Plot: p, W: 4 * vg.Inch, H: 3 * vg.Inch}
}

// QueryLatencies draws the histogram of the query calls' latencies in
// milliseconds; nil when no call has one.
func QueryLatencies(r *analysis.QueriesResult) *Figure {
	var ms plotter.Values
	for _, c := range r.Calls {
		if l := float64(c.Latency); !math.IsNaN(l) && !math.IsInf(l, 0) {
			ms = append(ms, l*1e3)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = "query latency"
	p.X.Label.Text = "latency (ms)"
	p.Y.Label.Text = "calls"
	bins := min(max(int(math.Sqrt(float64(len(ms)))), 5), 30)
	if h, err := plotter.NewHist(ms, bins); err == nil {
		h.FillColor = palette[0]
		p.Add(h)
	}
	return &Figure{Name: "query_latency", Title: p.Title.Text, Plot: p, W: 5 * vg.Inch, H: 3 * vg.Inch}
}

// Figures returns the figures for any analysis result.
func Figures(r analysis.Result) []*Figure {
	var one *Figure
	switch x := r.(type) {
	case *analysis.PlacementsResult:
		return Placements(x)
	case *analysis.GraspsResult:
		one = GraspRates(x)
	case *analysis.FactsResult:
		one = FactTimeline(x)
	case *analysis.MapResult:
		one = MapDegrees(x)
	case *analysis.QueriesResult:
		one = QueryLatencies(x)
	}
	if one == nil {
		return nil
	}
	return []*Figure{one}
}
