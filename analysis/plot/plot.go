package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/baglab/baglab/analysis"
)

// DefaultDPI is the PNG resolution used when none is given: enough for
// print at the figures' physical size.
const DefaultDPI = 150

// Figure is one named plot.
type Figure struct {
	// Name is the file stem ("grasp_rates").
	Name string
	// Title is drawn above the plot.
	Title string
	// Caption says in a sentence or two what the figure shows, with units.
	Caption string
	// Plots are the panels, stacked top to bottom with their data areas
	// aligned; most figures have one.
	Plots []*plot.Plot
	// Legend, when it has entries, is drawn to the right of the panels so
	// it never covers data.
	Legend *plot.Legend
	// W and H are the physical size of the whole figure.
	W, H vg.Length
	// EqualAspect makes one unit of x and one unit of y the same length
	// in a single panel (positions on a floor plan): the shorter axis
	// range is widened and both axes get the same tick step.
	EqualAspect bool
}

// Options are what figures need beyond a result.
type Options struct {
	// StartNs is when the recording started (ns since the Unix epoch);
	// time axes count from it. 0: from the first event the result holds,
	// and the axis says so.
	StartNs int64
}

// Builder draws the figures of one kind of result; it returns none when
// the result has nothing to show. The registry (package analysis/kinds)
// names each kind's.
type Builder func(analysis.Result, Options) []*Figure

// For is the Builder that draws the results of one type with build: none
// for a result of another type or without data.
func For[R analysis.Result](build func(R, Options) []*Figure) Builder {
	return func(r analysis.Result, o Options) []*Figure {
		x, ok := r.(R)
		if !ok || !analysis.HasData(r) {
			return nil
		}
		var out []*Figure
		for _, f := range build(x, o) {
			if f != nil {
				out = append(out, f)
			}
		}
		return out
	}
}

// Render writes the figure as "png" (at dpi dots per inch; <= 0 means
// DefaultDPI) or "svg".
func (f *Figure) Render(w io.Writer, format string, dpi float64) error {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		if dpi <= 0 {
			dpi = DefaultDPI
		}
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.W, f.H), vgimg.UseDPI(int(math.Round(dpi))),
			vgimg.UseBackgroundColor(color.White))}
	case "svg":
		s := vgsvg.New(f.W, f.H)
		f.draw(draw.New(s))
		var b bytes.Buffer
		if _, err := s.WriteTo(&b); err != nil {
			return err
		}
		_, err := w.Write(fitSVGText(b.Bytes()))
		return err
	default:
		return fmt.Errorf("plot: unknown format %q (want png or svg)", format)
	}
	f.draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// Spacing in points: around the figure, between the plot and its legend,
// between stacked panels.
const (
	margin    = 6
	legendGap = 10
	panelGap  = 10
)

func (f *Figure) draw(c draw.Canvas) {
	c = draw.Crop(c, margin, -margin, margin, -margin)
	if f.Title != "" {
		sty := titleStyle()
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y + sty.FontExtents().Descent}, f.Title) // hangs from the point
		c.Max.Y -= sty.Rectangle(f.Title).Size().Y + vg.Points(8)
	}
	pc := c
	var lc draw.Canvas
	if f.Legend != nil && f.Legend.Rectangle(c).Size().X > 0 {
		lw := f.Legend.Rectangle(c).Size().X
		pc = draw.Crop(c, 0, -(lw + legendGap), 0, 0)
		lc = draw.Crop(c, c.Size().X-lw, 0, 0, 0)
	}
	if len(f.Plots) == 0 {
		return
	}
	canvases := []draw.Canvas{pc}
	if len(f.Plots) == 1 {
		if f.EqualAspect {
			p := f.Plots[0]
			for range 3 {
				equalAspect(p, pc)
				step := roundStep(math.Max(p.X.Max-p.X.Min, p.Y.Max-p.Y.Min) / 8)
				p.X.Tick.Marker, p.Y.Tick.Marker = roundTicks{step: step}, roundTicks{step: step}
			}
			equalAspect(p, pc)
		}
	} else {
		grid := make([][]*plot.Plot, len(f.Plots))
		for i, p := range f.Plots {
			grid[i] = []*plot.Plot{p}
		}
		tiles := draw.Tiles{Rows: len(f.Plots), Cols: 1, PadY: vg.Points(panelGap)}
		canvases = canvases[:0]
		for _, row := range plot.Align(grid, tiles, pc) {
			canvases = append(canvases, row[0])
		}
	}
	for i, p := range f.Plots {
		p.Draw(canvases[i])
	}
	if lc.Canvas != nil {
		lc.Max.Y = f.Plots[0].DataCanvas(canvases[0]).Max.Y // level with the top of the data
		f.Legend.Draw(lc)
	}
}

// equalAspect widens the x or the y range of p so one unit has the same
// length on both axes in the data area p gets inside c. The data area
// depends on the tick labels and so on the ranges: a few rounds settle it.
func equalAspect(p *plot.Plot, c draw.Canvas) {
	for range 4 {
		da := p.DataCanvas(c)
		w, h := float64(da.Size().X), float64(da.Size().Y)
		dx, dy := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
		if w <= 0 || h <= 0 || !(dx > 0) || !(dy > 0) {
			return
		}
		sx, sy := w/dx, h/dy // length per unit
		switch {
		case math.Abs(sx-sy) <= 1e-9*sx:
			return
		case sx > sy:
			grow(&p.X.Min, &p.X.Max, w/sy)
		default:
			grow(&p.Y.Min, &p.Y.Max, h/sx)
		}
	}
}

// grow widens [*lo, *hi] about its centre to width.
func grow(lo, hi *float64, width float64) {
	mid := (*lo + *hi) / 2
	*lo, *hi = mid-width/2, mid+width/2
}

// palette is colour-blind safe (Okabe–Ito, without yellow).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{213, 94, 0, 255}, color.RGBA{204, 121, 167, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{120, 94, 60, 255}, color.RGBA{80, 80, 80, 255},
}

func colour(i int) color.Color { return palette[((i%len(palette))+len(palette))%len(palette)] }

// faded is c at the given opacity (0..1), premultiplied as color.RGBA is.
func faded(c color.Color, opacity float64) color.Color {
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(float64(r>>8) * opacity), uint8(float64(g>>8) * opacity), uint8(float64(b>>8) * opacity), uint8(255 * opacity)}
}

var (
	black = color.Black
	grey  = color.RGBA{120, 120, 120, 255}
)

// Font sizes in points.
const (
	titleSize  = 12
	labelSize  = 11
	tickSize   = 9.5
	legendSize = 9.5
)

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func titleStyle() text.Style {
	sty := plot.New().Title.TextStyle
	sty.Font = sans
	sty.Font.Size = titleSize
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	return sty
}

// newPlot returns a panel with sans-serif text at readable sizes and
// ticks at round numbers; title is the panel's own (figures have theirs).
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	set := func(sty *plot.Axis) {
		sty.Label.TextStyle.Font = sans
		sty.Label.TextStyle.Font.Size = labelSize
		sty.Tick.Label.Font = sans
		sty.Tick.Label.Font.Size = tickSize
		sty.Tick.Marker = roundTicks{}
		sty.Label.Padding = vg.Points(4)
	}
	set(&p.X)
	set(&p.Y)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Title.Text = title
	p.Title.TextStyle.Font = sans
	p.Title.TextStyle.Font.Size = labelSize
	p.Title.Padding = vg.Points(4)
	return p
}

// addGrid adds light grid lines at the major ticks, vertical ones only
// unless horizontal; call it before adding data so it is drawn beneath.
func addGrid(p *plot.Plot, horizontal bool) {
	g := plotter.NewGrid()
	light := color.RGBA{215, 215, 222, 255}
	g.Vertical.Color, g.Horizontal.Color = light, light
	if !horizontal {
		g.Horizontal.Color = nil
	}
	p.Add(g)
}

// newLegend returns a legend for the right of a figure.
func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = sans
	l.TextStyle.Font.Size = legendSize
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(24)
	l.Padding = vg.Points(3)
	return &l
}

// roundTicks puts 5 to 10 labelled ticks at round numbers (1, 2, 2.5 or 5
// times a power of ten) with unlabelled ticks between, all labels of an
// axis with the same number of decimals. A step > 0 is used as given.
type roundTicks struct{ step float64 }

// Ticks implements plot.Ticker.
func (t roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	step := t.step
	if !(step > 0) || (hi-lo)/step > 40 {
		step = roundStep((hi - lo) / 8)
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if s := step * math.Pow(10, float64(decimals)); math.Abs(s-math.Round(s)) > 1e-6 {
		decimals++ // 2.5 × 10^k
	}
	var ticks []plot.Tick
	minor := step / 2
	for i := math.Ceil(lo/minor - 1e-9); i*minor <= hi+1e-9*step; i++ {
		v := i * minor
		if int64(i)%2 == 0 {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v+0, 'f', decimals, 64)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// roundStep is the round number (1, 2, 2.5, 5 × 10^k) nearest above x.
func roundStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
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

// span is a growing [lo, hi] range.
type span struct{ lo, hi float64 }

func newSpan() span { return span{math.Inf(1), math.Inf(-1)} }

func (s *span) add(vs ...float64) {
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s.lo, s.hi = min(s.lo, v), max(s.hi, v)
		}
	}
}

// padded is s widened by frac of its width on each side (a unit width
// when s is a single value).
func (s span) padded(frac float64) (float64, float64) {
	w := s.hi - s.lo
	if w <= 0 {
		w = math.Max(math.Abs(s.lo), 1)
	}
	return s.lo - frac*w, s.hi + frac*w
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// secondsSince is t as seconds since start.
func secondsSince(t, start int64) float64 { return float64(t-start) / 1e9 }

// fromZero is the range [lo, hi] of a time axis starting at zero when lo
// is near it.
func fromZero(lo, hi float64) (float64, float64) {
	if lo > 0 && lo < 0.25*(hi-lo) {
		lo = 0
	}
	return lo, hi
}

// timeAxis returns the time origin for events whose earliest is first,
// and the axis title saying what the time counts from.
func timeAxis(o Options, first int64, what string) (int64, string) {
	if o.StartNs != 0 && o.StartNs <= first {
		return o.StartNs, "time since the recording started (s)"
	}
	return first, "time since the " + what + " (s)"
}

// glyphThumb and lineThumb draw legend thumbnails of a style alone.
type glyphThumb draw.GlyphStyle

func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(draw.GlyphStyle(g), c.Center()) }

type lineThumb draw.LineStyle

// thumbGap keeps line and band thumbnails off the legend text.
const thumbGap = 5

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X-thumbGap, y)
}

// bandThumb is a filled box, the thumbnail of a shaded band.
type bandThumb struct{ fill color.Color }

func (b bandThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	r.Max.X -= thumbGap
	r.Min.Y += (r.Size().Y) / 4
	r.Max.Y -= (r.Size().Y) / 4
	c.SetColor(b.fill)
	c.Fill(r.Path())
}

var (
	_ plot.Thumbnailer = glyphThumb{}
	_ plot.Thumbnailer = lineThumb{}
	_ plot.Thumbnailer = bandThumb{}
)

// countTicks labels whole numbers only (counts).
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, roundStep(math.Max(hi-lo, 1)/6))
	step = math.Ceil(step)
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}
