package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/baglab/baglab/analysis"
)

// Line styles shared by the figure and its legend.
var (
	dash2Sigma   = []vg.Length{vg.Points(5), vg.Points(3)}
	dashSurface  = []vg.Length{vg.Points(2), vg.Points(2)}
	surfaceColor = grey
)

// Placements returns one figure per placement group: the placements
// coloured by the EM cluster the learner put them in, every cluster's mean
// with its 1σ and 2σ ellipses in its colour, the learned model's placement,
// the surface outline (when the group's frame is the surface's own) and the
// origin of the reference frame, on equal x and y scales in metres.
// Without a learned model the group's mean and standard deviations stand
// for a single cluster.
func Placements(r *analysis.PlacementsResult, _ Options) []*Figure {
	var figs []*Figure
	for gi, g := range r.Groups {
		if gi >= len(r.Points) || len(r.Points[gi]) == 0 {
			continue
		}
		var m *analysis.LearnedModel
		if gi < len(r.Models) && len(r.Models[gi].ClusterStats) > 0 {
			m = &r.Models[gi]
		}
		figs = append(figs, placementFigure(r, gi, g, m))
	}
	return figs
}

// cluster is what one ellipse pair is drawn from.
type cluster struct {
	index      int
	n          int
	mx, my     float64
	sx, sy     float64
	points     plotter.XYs
	chosen     bool
	label      string
	colourFrom int
}

func placementFigure(r *analysis.PlacementsResult, gi int, g analysis.PlacementGroup, m *analysis.LearnedModel) *Figure {
	frame := g.ReferenceFrameID
	p := newPlot("", "x in frame "+frame+" (m)", "y in frame "+frame+" (m)")
	addGrid(p, true)
	legend := newLegend()
	pts := r.Points[gi]
	var clusters []*cluster
	if m != nil {
		byIndex := map[int]*cluster{}
		for _, cs := range m.ClusterStats {
			c := &cluster{index: cs.Index, n: cs.N, mx: float64(cs.MeanX), my: float64(cs.MeanY),
				sx: float64(cs.SigmaX), sy: float64(cs.SigmaY), colourFrom: len(clusters)}
			c.chosen = m.HasPlacement && cs.MeanX == m.Placement.Position.X && cs.MeanY == m.Placement.Position.Y
			c.label = fmt.Sprintf("cluster %d (n = %d)", cs.Index+1, cs.N)
			byIndex[cs.Index] = c
			clusters = append(clusters, c)
		}
		unassigned := &cluster{index: -1, label: "placement without cluster", colourFrom: -1}
		for i, q := range pts {
			c := unassigned
			if i < len(m.Assignments) && byIndex[m.Assignments[i]] != nil {
				c = byIndex[m.Assignments[i]]
			}
			c.points = append(c.points, plotter.XY{X: q.X, Y: q.Y})
		}
		if len(unassigned.points) > 0 {
			clusters = append(clusters, unassigned)
		}
	} else {
		c := &cluster{index: 0, n: g.N, mx: float64(g.MeanX), my: float64(g.MeanY), sx: float64(g.SDX), sy: float64(g.SDY),
			label: fmt.Sprintf("placements (n = %d, no model)", g.N)}
		for _, q := range pts {
			c.points = append(c.points, plotter.XY{X: q.X, Y: q.Y})
		}
		clusters = append(clusters, c)
	}
	xs, ys := newSpan(), newSpan()
	for _, q := range pts {
		xs.add(q.X)
		ys.add(q.Y)
	}
	w, h, hasSurface := r.SurfaceSize(gi)
	hasSurface = hasSurface && frame == g.Surface
	if hasSurface {
		outline := plotter.XYs{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}, {X: 0, Y: 0}}
		if l, err := plotter.NewLine(outline); err == nil {
			l.LineStyle = draw.LineStyle{Color: surfaceColor, Width: vg.Points(1.2), Dashes: dashSurface}
			p.Add(l)
		}
		xs.add(0, w)
		ys.add(0, h)
	}
	// The frame's origin is shown when it is near the data: no farther
	// from the placements than they spread.
	ox, oy := xs, ys
	ox.add(0)
	oy.add(0)
	showOrigin := hasSurface || (ox.hi-ox.lo <= 2*math.Max(xs.hi-xs.lo, 0.05) && oy.hi-oy.lo <= 2*math.Max(ys.hi-ys.lo, 0.05))
	if showOrigin {
		xs, ys = ox, oy
	}
	colourOf := func(c *cluster) color.Color {
		if c.colourFrom < 0 {
			return grey
		}
		return colour(c.colourFrom)
	}
	// The placements first, then every cluster's ellipses and mean on top.
	for _, c := range clusters {
		if s, err := plotter.NewScatter(c.points); err == nil {
			s.GlyphStyle = draw.GlyphStyle{Color: faded(colourOf(c), 0.55), Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
			p.Add(s)
			legend.Add(c.label, s)
		}
	}
	for _, c := range clusters {
		if c.index < 0 || c.n < 1 {
			continue
		}
		col := colourOf(c)
		for k := 1; k <= 2; k++ {
			e := ellipse(c.mx, c.my, float64(k)*c.sx, float64(k)*c.sy)
			if e == nil {
				continue
			}
			if l, err := plotter.NewLine(e); err == nil {
				l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.3)}
				if k == 2 {
					l.LineStyle.Dashes = dash2Sigma
				}
				p.Add(l)
			}
			xs.add(c.mx-float64(k)*c.sx, c.mx+float64(k)*c.sx)
			ys.add(c.my-float64(k)*c.sy, c.my+float64(k)*c.sy)
		}
		if s, err := plotter.NewScatter(plotter.XYs{{X: c.mx, Y: c.my}}); err == nil {
			s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
			p.Add(s)
		}
		if c.chosen {
			if s, err := plotter.NewScatter(plotter.XYs{{X: c.mx, Y: c.my}}); err == nil {
				s.GlyphStyle = chosenGlyph()
				p.Add(s)
			}
		}
	}
	if showOrigin {
		if s, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}}); err == nil {
			s.GlyphStyle = originGlyph()
			p.Add(s)
		}
	}
	// Style entries, in black: what the marks mean for every cluster.
	legend.Add("cluster mean", glyphThumb(draw.GlyphStyle{Color: black, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}))
	legend.Add("1σ ellipse", lineThumb(draw.LineStyle{Color: black, Width: vg.Points(1.3)}))
	legend.Add("2σ ellipse", lineThumb(draw.LineStyle{Color: black, Width: vg.Points(1.3), Dashes: dash2Sigma}))
	if m != nil && m.HasPlacement {
		legend.Add("model placement", glyphThumb(chosenGlyph()))
	}
	if hasSurface {
		legend.Add(fmt.Sprintf("surface %s (%s × %s m)", g.Surface, fmtLen(w), fmtLen(h)),
			lineThumb(draw.LineStyle{Color: surfaceColor, Width: vg.Points(1.2), Dashes: dashSurface}))
	}
	if showOrigin {
		legend.Add("origin of frame "+frame, glyphThumb(originGlyph()))
	}
	p.X.Min, p.X.Max = xs.padded(0.06)
	p.Y.Min, p.Y.Max = ys.padded(0.06)

	title := fmt.Sprintf("%s on %s (%s), frame %s", g.Item, g.Surface, g.Room, frame)
	caption := fmt.Sprintf("Placements of %s on %s in %s, in frame %s (n = %d), coloured by EM cluster; "+
		"a cross marks each cluster's mean, solid and dashed ellipses its 1σ and 2σ extent in x and y",
		g.Item, g.Surface, g.Room, frame, g.N)
	if m == nil {
		caption = fmt.Sprintf("Placements of %s on %s in %s, in frame %s (n = %d), no model learned; "+
			"the cross marks their mean, solid and dashed ellipses 1σ and 2σ", g.Item, g.Surface, g.Room, frame, g.N)
	} else if m.HasPlacement {
		caption += "; the ring marks the learned model's placement"
	}
	if hasSurface {
		caption += fmt.Sprintf("; the dashed grey rectangle is the surface (%s × %s m from its frame's origin)", fmtLen(w), fmtLen(h))
	}
	caption += ". Axes in metres at equal scale."
	// The data area gets about 4.5 in on its longer side; the figure's
	// shape follows the data's.
	dx, dy := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
	aspect := math.Min(math.Max(dy/dx, 0.35), 1.6)
	const dataW = 4.5
	name := fmt.Sprintf("placements_%02d_%s_%s_%s", gi, fileSafe(g.Item), fileSafe(g.Surface), fileSafe(frame))
	return &Figure{Name: name, Title: title, Caption: caption, Plots: []*plot.Plot{p}, Legend: legend, EqualAspect: true,
		W: (dataW + 2.6) * vg.Inch, H: vg.Length(math.Max(dataW*aspect+1.1, 3.2)) * vg.Inch}
}

func chosenGlyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: black, Radius: vg.Points(7), Shape: draw.RingGlyph{}}
}

func originGlyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: black, Radius: vg.Points(4), Shape: draw.PlusGlyph{}}
}

// fmtLen shows a length in metres with up to three decimals.
func fmtLen(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".")
}

// ellipse is the axis-aligned ellipse of radii rx, ry about (cx, cy); nil
// when a radius is not a positive number.
func ellipse(cx, cy, rx, ry float64) plotter.XYs {
	if !(rx > 0) || !(ry > 0) || math.IsInf(rx, 0) || math.IsInf(ry, 0) {
		return nil
	}
	const n = 96
	pts := make(plotter.XYs, n+1)
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i) / n
		pts[i] = plotter.XY{X: cx + rx*math.Cos(a), Y: cy + ry*math.Sin(a)}
	}
	return pts
}
