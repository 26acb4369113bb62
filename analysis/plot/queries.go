package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/baglab/baglab/analysis"
)

// Queries returns the histogram of the query latencies.
func Queries(r *analysis.QueriesResult, _ Options) []*Figure { return []*Figure{QueryLatencies(r)} }

// QueryLatencies draws the histogram of the query calls' latencies in
// seconds; nil when no call has one.
func QueryLatencies(r *analysis.QueriesResult) *Figure {
	var s plotter.Values
	for _, c := range r.Calls {
		if l := float64(c.Latency); !math.IsNaN(l) && !math.IsInf(l, 0) {
			s = append(s, l)
		}
	}
	if len(s) == 0 {
		return nil
	}
	p := newPlot("", "latency from request to response (s)", "calls")
	addGrid(p, true)
	bins := min(max(int(math.Sqrt(float64(len(s)))), 5), 30)
	h, err := plotter.NewHist(s, bins)
	if err != nil {
		return nil
	}
	h.FillColor = palette[0]
	h.LineStyle.Color = color.White
	h.LineStyle.Width = vg.Points(0.8)
	p.Add(h)
	top := 0.0
	for _, b := range h.Bins {
		top = max(top, b.Weight)
	}
	p.Y.Min, p.Y.Max = 0, top*1.08
	p.Y.Tick.Marker = countTicks{}
	return &Figure{Name: "query_latency", Title: "Query latency",
		Caption: fmt.Sprintf("Latency of the %d query calls with both request and response, from request to response, in seconds (%d bins).", len(s), bins),
		Plots:   []*plot.Plot{p}, W: 5 * vg.Inch, H: 3.4 * vg.Inch}
}
