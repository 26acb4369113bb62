package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/baglab/baglab/analysis"
)

// Facts returns the fact timeline.
func Facts(r *analysis.FactsResult, o Options) []*Figure { return []*Figure{FactTimeline(r, o)} }

// FactTimeline draws one row per fact (subject, property, target) and a
// bar per interval it held, coloured by property, against the time since
// the recording started (or, not knowing it, since the first interval);
// intervals still holding at the end are drawn lighter. nil without
// intervals.
func FactTimeline(r *analysis.FactsResult, o Options) *Figure {
	if len(r.Intervals) == 0 || len(r.Facts) == 0 {
		return nil
	}
	first := r.Intervals[0].StartNs
	for _, iv := range r.Intervals {
		first = min(first, iv.StartNs)
	}
	t0, xLabel := timeAxis(o, first, "first fact")
	row := map[analysis.FactKey]int{}
	properties := map[string]int{}
	n := len(r.Facts)
	names := make([]string, n)
	for i, f := range r.Facts {
		row[f.FactKey] = n - 1 - i // the first fact on top
		names[n-1-i] = f.SubjectID + " " + f.Property + " " + f.TargetID
		properties[f.Property] = 0
	}
	for i, name := range sortedNames(properties) {
		properties[name] = i
	}
	p := newPlot("", xLabel, "")
	addGrid(p, false)
	xs := newSpan()
	censored := false
	for _, iv := range r.Intervals {
		y, ok := row[iv.FactKey]
		if !ok {
			continue
		}
		x0, x1 := secondsSince(iv.StartNs, t0), secondsSince(iv.EndNs, t0)
		xs.add(x0, x1)
		fy := float64(y)
		box := plotter.XYs{{X: x0, Y: fy - 0.32}, {X: x1, Y: fy - 0.32}, {X: x1, Y: fy + 0.32}, {X: x0, Y: fy + 0.32}}
		poly, err := plotter.NewPolygon(box)
		if err != nil {
			continue
		}
		col := colour(properties[iv.Property])
		poly.Color = col
		poly.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(0.5)}
		if iv.Censored {
			censored = true
			poly.Color = faded(col, 0.35)
			poly.LineStyle.Dashes = dashSurface
		}
		p.Add(poly)
	}
	legend := newLegend()
	for _, name := range sortedNames(properties) {
		legend.Add(name, bandThumb{colour(properties[name])})
	}
	if censored {
		legend.Add("still holding at the end", bandThumb{faded(grey, 0.35)})
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.X.Min, p.X.Max = fromZero(xs.padded(0.02))
	return &Figure{Name: "fact_timeline", Title: "Fact timeline",
		Caption: fmt.Sprintf("When each of the %d facts held (one row per subject, property and target; bars coloured "+
			"by property, lighter when still holding at the end of the recording); x is the %s.", n, xLabel),
		Plots: []*plot.Plot{p}, Legend: legend, W: 8 * vg.Inch, H: vg.Length(1.4+0.32*float64(n)) * vg.Inch}
}
