package plot

import (
	"fmt"

	"github.com/baglab/baglab/analysis/topics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Topics returns the topic timeline.
func Topics(r *topics.Result, o Options) []*Figure { return []*Figure{TopicTimeline(r, o)} }

// TopicTimeline draws one row per topic: a bar from its first to its last
// message, and each gap (two consecutive messages further apart than the
// topic's threshold) as a red band over it, against the time since the
// recording started. nil without topics.
func TopicTimeline(r *topics.Result, o Options) *Figure {
	n := len(r.Topics)
	if n == 0 {
		return nil
	}
	first := r.Topics[0].FirstNs
	for _, s := range r.Topics {
		first = min(first, s.FirstNs)
	}
	t0, xLabel := timeAxis(o, first, "first message")
	row := map[string]int{}
	names := make([]string, n)
	for i, s := range r.Topics {
		row[s.Topic] = n - 1 - i // the first topic on top
		names[n-1-i] = s.Topic
	}
	p := newPlot("", xLabel, "")
	addGrid(p, false)
	xs := newSpan()
	band := func(x0, x1, y, half float64, col draw.LineStyle, fill bool) {
		box := plotter.XYs{{X: x0, Y: y - half}, {X: x1, Y: y - half}, {X: x1, Y: y + half}, {X: x0, Y: y + half}}
		poly, err := plotter.NewPolygon(box)
		if err != nil {
			return
		}
		poly.LineStyle = col
		if fill {
			poly.Color = col.Color
		}
		p.Add(poly)
	}
	present := draw.LineStyle{Color: faded(colour(0), 0.45), Width: vg.Points(0.5)}
	gapStyle := draw.LineStyle{Color: colour(3), Width: vg.Points(0.8)}
	for _, s := range r.Topics {
		x0, x1 := secondsSince(s.FirstNs, t0), secondsSince(s.LastNs, t0)
		xs.add(x0, x1)
		band(x0, x1, float64(row[s.Topic]), 0.28, present, true)
	}
	for _, g := range r.Gaps {
		y, ok := row[g.Topic]
		if !ok {
			continue
		}
		band(secondsSince(g.StartNs, t0), secondsSince(g.EndNs, t0), float64(y), 0.36, gapStyle, true)
	}
	legend := newLegend()
	legend.Add("first to last message", bandThumb{present.Color})
	if len(r.Gaps) > 0 {
		legend.Add("gap", bandThumb{gapStyle.Color})
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.X.Min, p.X.Max = fromZero(xs.padded(0.02))
	threshold := "3× its median period"
	if r.GapNs > 0 {
		threshold = fmt.Sprintf("%g s", float64(r.GapNs)/1e9)
	}
	return &Figure{Name: "topic_timeline", Title: "Topic timeline",
		Caption: fmt.Sprintf("When each of the %d topics had messages (one row per topic, a bar from its first to its "+
			"last message) and its %d gaps in red: two consecutive messages further apart than %s; x is the %s.",
			n, len(r.Gaps), threshold, xLabel),
		Plots: []*plot.Plot{p}, Legend: legend, W: 8 * vg.Inch, H: vg.Length(1.4+0.3*float64(n)) * vg.Inch}
}
