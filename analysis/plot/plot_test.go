package plot

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

func placementsResult(t *testing.T) *analysis.PlacementsResult {
	ty, err := msgdef.Default().Lookup("interactive_world_msgs/Placement")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	a := analysis.NewPlacements(analysis.LearnOptions{PruneFraction: -1})
	for i := 0; i < 40; i++ {
		s := value.New(ty)
		c := float64(i % 2)
		for k, v := range map[string]any{"item.name": "cup", "reference_frame_id": "table",
			"position.x": c + r.NormFloat64()*0.05, "position.y": c + r.NormFloat64()*0.05, "rotation": c} {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		a.Add(&analysis.Message{Topic: "/p", LogTime: int64(i), Value: s})
	}
	res, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res.(*analysis.PlacementsResult)
}

// TestRenderPlacements renders the placement figure as PNG and SVG and
// checks the picture is not blank.
func TestRenderPlacements(t *testing.T) {
	figs := Figures(placementsResult(t))
	if len(figs) != 1 {
		t.Fatalf("figures: %d", len(figs))
	}
	var b bytes.Buffer
	if err := figs[0].WriteTo(&b, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	if bd.Dx() < 300 || bd.Dy() < 300 {
		t.Fatalf("png %v", bd)
	}
	colored := 0
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != g || g != bl { // a colored pixel: a placement glyph
				colored++
			}
		}
	}
	if colored < 50 {
		t.Errorf("only %d colored pixels", colored)
	}
	b.Reset()
	if err := figs[0].WriteTo(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<svg") {
		t.Error("no svg element")
	}
}

// TestMapAndQueryFigures renders the degree histogram and the latency
// histogram, and gives no figure without data.
func TestMapAndQueryFigures(t *testing.T) {
	m := &analysis.MapResult{Degrees: []analysis.DegreeCount{{Degree: 0, Vertices: 1}, {Degree: 2, Vertices: 3}}}
	q := &analysis.QueriesResult{Calls: []analysis.QueryCall{{Latency: 0.02}, {Latency: 0.05}, {Latency: analysis.Num(math.NaN())}}}
	for _, figs := range [][]*Figure{Figures(m), Figures(q)} {
		if len(figs) != 1 {
			t.Fatalf("%d figures", len(figs))
		}
		for _, format := range []string{"png", "svg"} {
			var b bytes.Buffer
			if err := figs[0].WriteTo(&b, format); err != nil || b.Len() == 0 {
				t.Errorf("%s as %s: %v", figs[0].Name, format, err)
			}
		}
	}
	if len(Figures(&analysis.MapResult{})) != 0 || len(Figures(&analysis.QueriesResult{})) != 0 {
		t.Error("figures without data")
	}
}
