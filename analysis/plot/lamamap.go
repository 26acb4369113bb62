package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/baglab/baglab/analysis"
)

// Map returns the degree histogram of the map.
func Map(r *analysis.MapResult, _ Options) []*Figure { return []*Figure{MapDegrees(r)} }

// MapDegrees draws the degree histogram of a map's vertices; nil when the
// map has none.
func MapDegrees(r *analysis.MapResult) *Figure {
	if len(r.Degrees) == 0 {
		return nil
	}
	p := newPlot("", "vertex degree (edges at the vertex)", "vertices")
	addGrid(p, true)
	vals := make(plotter.Values, len(r.Degrees))
	names := make([]string, len(r.Degrees))
	top := 0.0
	for i, d := range r.Degrees {
		vals[i] = float64(d.Vertices)
		names[i] = fmt.Sprint(d.Degree)
		top = max(top, vals[i])
	}
	if bars, err := plotter.NewBarChart(vals, vg.Points(22)); err == nil {
		bars.Color = palette[0]
		bars.LineStyle.Width = 0
		p.Add(bars)
		p.NominalX(names...)
	}
	p.Y.Min, p.Y.Max = 0, top*1.08
	p.Y.Tick.Marker = countTicks{}
	return &Figure{Name: "map_degrees", Title: "Vertex degrees",
		Caption: fmt.Sprintf("How many of the map's %d vertices have each degree (non-dangling edges at the vertex).", r.Vertices),
		Plots:   []*plot.Plot{p}, W: 5 * vg.Inch, H: 3.4 * vg.Inch}
}
