package plot

import (
	"bytes"
	"html"
	"regexp"
	"strconv"

	"gonum.org/v1/plot/font"
)

// svgTextRe matches a <text> element vgsvg writes: its attributes up to its
// font size, its size in user units (points) and its content.
var svgTextRe = regexp.MustCompile(`(<text [^>]*style="[^"]*font-size:([0-9.]+)px")>([^<]*)</text>`)

// svgFontFamily is the font family vgsvg writes, and what replaces it:
// Liberation Sans, then fonts with the same metrics, then any sans-serif.
const (
	svgFontFamily  = "font-family:Liberation Sans;"
	svgFontChoices = "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"
)

// fitSVGText makes the text of an SVG document written by vgsvg keep the
// length the figure was laid out with in any viewer: every <text> gets
// textLength (its width in Liberation Sans, as measured for the layout)
// with lengthAdjust="spacingAndGlyphs", and the font family lists
// metric-compatible fonts before the generic sans-serif. Without it a
// viewer without Liberation Sans drew legends in a wider font, cut at the
// figure's right edge ("origin of frame worl").
func fitSVGText(svg []byte) []byte {
	out := svgTextRe.ReplaceAllFunc(svg, func(m []byte) []byte {
		sub := svgTextRe.FindSubmatch(m)
		size, err := strconv.ParseFloat(string(sub[2]), 64)
		if err != nil || size <= 0 {
			return m
		}
		face := font.DefaultCache.Lookup(font.Font{Typeface: sans.Typeface, Variant: sans.Variant, Style: sans.Style,
			Weight: sans.Weight}, font.Length(size))
		w := float64(face.Width(html.UnescapeString(string(sub[3]))))
		if !(w > 0) {
			return m
		}
		b := append([]byte(nil), sub[1]...)
		b = append(b, ` textLength="`...)
		b = strconv.AppendFloat(b, w, 'f', 2, 64)
		b = append(b, `" lengthAdjust="spacingAndGlyphs">`...)
		b = append(b, sub[3]...)
		return append(b, "</text>"...)
	})
	return bytes.ReplaceAll(out, []byte(svgFontFamily), []byte(svgFontChoices))
}
