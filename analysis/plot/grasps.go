package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/baglab/baglab/analysis"
)

// Grasps returns the grasp success rates and, when the result has one, a
// learning curve per attempt source.
func Grasps(r *analysis.GraspsResult, o Options) []*Figure {
	figs := []*Figure{GraspRates(r)}
	return append(figs, LearningCurves(r, o)...)
}

// GraspRates draws every grasp of every grasp model as one row: its
// success rate with the Wilson 95% interval, named by object, model and
// grasp with successes/attempts, coloured by object. Untried grasps (no
// attempts, no rate) are listed apart below the tried ones. nil without
// grasps.
func GraspRates(r *analysis.GraspsResult) *Figure {
	if len(r.Grasps) == 0 {
		return nil
	}
	objects := objectColours(r)
	var tried, untried []analysis.GraspStat
	for _, g := range r.Grasps {
		if g.Untried {
			untried = append(untried, g)
		} else {
			tried = append(tried, g)
		}
	}
	// Rows from the top: tried grasps, a gap, untried grasps.
	rows := len(tried) + len(untried)
	if len(untried) > 0 && len(tried) > 0 {
		rows++
	}
	names := make([]string, rows)
	yOf := func(i int) float64 { return float64(rows - 1 - i) }
	p := newPlot("", "success rate (successes / attempts)", "")
	addGrid(p, false)
	legend := newLegend()
	byObject := map[string]plotter.XYs{}
	for i, g := range tried {
		names[rows-1-i] = fmt.Sprintf("%s · model %s · grasp %s  %d/%d", g.ObjectName, g.ModelID, g.GraspID, g.Successes, g.Attempts)
		y := yOf(i)
		col := colour(objects[g.ObjectName])
		if l, err := plotter.NewLine(plotter.XYs{{X: float64(g.WilsonLow), Y: y}, {X: float64(g.WilsonHigh), Y: y}}); err == nil {
			l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.6)}
			p.Add(l)
			for _, x := range []float64{float64(g.WilsonLow), float64(g.WilsonHigh)} {
				bar, _ := plotter.NewLine(plotter.XYs{{X: x, Y: y - 0.22}, {X: x, Y: y + 0.22}})
				if bar != nil {
					bar.LineStyle = l.LineStyle
					p.Add(bar)
				}
			}
		}
		byObject[g.ObjectName] = append(byObject[g.ObjectName], plotter.XY{X: float64(g.SuccessRate), Y: y})
	}
	for _, name := range sortedNames(objects) {
		pts := byObject[name]
		if len(pts) == 0 {
			continue
		}
		if s, err := plotter.NewScatter(pts); err == nil {
			s.GlyphStyle = draw.GlyphStyle{Color: colour(objects[name]), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
			p.Add(s)
			legend.Add(name, s)
		}
	}
	if len(tried) > 0 {
		legend.Add("Wilson 95% interval", lineThumb(draw.LineStyle{Color: black, Width: vg.Points(1.6)}))
	}
	if len(untried) > 0 {
		first := rows - len(untried)
		var marks plotter.XYs
		for j, g := range untried {
			i := first + j
			names[rows-1-i] = fmt.Sprintf("%s · model %s · grasp %s  untried", g.ObjectName, g.ModelID, g.GraspID)
			marks = append(marks, plotter.XY{X: 0, Y: yOf(i)})
		}
		if s, err := plotter.NewScatter(marks); err == nil {
			s.GlyphStyle = untriedGlyph()
			p.Add(s)
			legend.Add("untried (no attempts)", s)
		}
		if len(tried) > 0 {
			gap := yOf(first - 1)
			if l, err := plotter.NewLine(plotter.XYs{{X: -0.02, Y: gap}, {X: 1.02, Y: gap}}); err == nil {
				l.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(0.6), Dashes: dashSurface}
				p.Add(l)
			}
		}
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = tickSize
	p.Y.Min, p.Y.Max = -0.7, float64(rows)-0.3
	p.X.Min, p.X.Max = -0.02, 1.02
	caption := "Success rate of each grasp (successes / attempts, dot) with its Wilson 95% interval (bar), " +
		"coloured by object"
	if len(untried) > 0 {
		caption += fmt.Sprintf("; the %d untried grasps (no attempts, no rate) are listed below the line", len(untried))
	}
	return &Figure{Name: "grasp_rates", Title: "Grasp success rates", Caption: caption + ".", Plots: []*plot.Plot{p}, Legend: legend,
		W: 8 * vg.Inch, H: vg.Length(1.3+0.26*float64(rows)) * vg.Inch}
}

func untriedGlyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
}

// LearningCurves draws, per attempt source, one panel per object: its
// success rate in consecutive windows (a dot at the window's middle) with
// the Wilson 95% band shaded, panels sharing the time axis; windows
// without attempts break the line. None without attempts.
func LearningCurves(r *analysis.GraspsResult, o Options) []*Figure {
	if len(r.Curve) == 0 {
		return nil
	}
	first := r.Curve[0].StartNs
	for _, c := range r.Curve {
		first = min(first, c.StartNs)
	}
	t0, xLabel := timeAxis(o, first, "first attempt")
	bySource := map[string][]analysis.WindowRate{}
	objects := objectColours(r)
	xs := newSpan()
	for _, c := range r.Curve {
		bySource[c.Source] = append(bySource[c.Source], c)
		xs.add(secondsSince(c.StartNs, t0), secondsSince(c.EndNs, t0))
	}
	names := sortedNames(objects)
	x0, x1 := fromZero(xs.padded(0.01))
	window := fmtLen(float64(r.WindowNs) / 1e9)
	var figs []*Figure
	for _, source := range sortedNames(bySource) {
		series := map[string][]analysis.WindowRate{}
		for _, c := range bySource[source] {
			series[c.ObjectName] = append(series[c.ObjectName], c)
		}
		var panels []*plot.Plot
		for _, name := range names {
			if len(series[name]) == 0 {
				continue
			}
			p := newPlot(name, "", "success rate")
			addGrid(p, true)
			curvePanel(p, series[name], t0, colour(objects[name]))
			p.Y.Min, p.Y.Max = -0.03, 1.03
			p.X.Min, p.X.Max = x0, x1
			p.Y.Tick.Marker = roundTicks{step: 0.25}
			panels = append(panels, p)
		}
		if len(panels) == 0 {
			continue
		}
		panels[len(panels)-1].X.Label.Text = xLabel
		legend := newLegend()
		legend.Add("success rate in a window", lineThumb(draw.LineStyle{Color: black, Width: vg.Points(1.5)}),
			glyphThumb(draw.GlyphStyle{Color: black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}))
		legend.Add("Wilson 95% band", bandThumb{faded(black, 0.2)})
		figs = append(figs, &Figure{
			Name:  "learning_curve_" + fileSafe(source),
			Title: fmt.Sprintf("Learning curve (%s, %s s windows)", source, window),
			Caption: fmt.Sprintf("Success rate of the %s attempts in consecutive %s s windows, one panel per object, "+
				"with the Wilson 95%% interval of each window shaded; x is the %s.", source, window, xLabel),
			Plots: panels, Legend: legend, W: 8 * vg.Inch, H: vg.Length(0.9+1.75*float64(len(panels))) * vg.Inch,
		})
	}
	return figs
}

// curvePanel adds one object's windows to p.
func curvePanel(p *plot.Plot, windows []analysis.WindowRate, t0 int64, col color.Color) {
	var line, lo, hi plotter.XYs
	flush := func() {
		if len(line) == 0 {
			return
		}
		band := append(append(plotter.XYs{}, lo...), reversed(hi)...)
		if poly, err := plotter.NewPolygon(band); err == nil && len(line) > 1 {
			poly.Color = faded(col, 0.2)
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		if l, err := plotter.NewLine(line); err == nil {
			l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
			p.Add(l)
		}
		if s, err := plotter.NewScatter(line); err == nil {
			s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(s)
		}
		line, lo, hi = nil, nil, nil
	}
	for _, c := range windows {
		if c.Attempts == 0 || math.IsNaN(float64(c.SuccessRate)) {
			flush()
			continue
		}
		x := secondsSince(c.StartNs+(c.EndNs-c.StartNs)/2, t0)
		line = append(line, plotter.XY{X: x, Y: float64(c.SuccessRate)})
		lo = append(lo, plotter.XY{X: x, Y: float64(c.WilsonLow)})
		hi = append(hi, plotter.XY{X: x, Y: float64(c.WilsonHigh)})
	}
	flush()
}

// objectColours gives each object of r a colour index, in name order, the
// same in every grasp figure.
func objectColours(r *analysis.GraspsResult) map[string]int {
	objects := map[string]int{}
	for _, g := range r.Grasps {
		objects[g.ObjectName] = 0
	}
	for _, c := range r.Curve {
		objects[c.ObjectName] = 0
	}
	for i, name := range sortedNames(objects) {
		objects[name] = i
	}
	return objects
}

func reversed(xy plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(xy))
	for i, v := range xy {
		out[len(xy)-1-i] = v
	}
	return out
}
