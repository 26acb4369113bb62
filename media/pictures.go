package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	_ "image/jpeg" // compressed images in pictures
	_ "image/png"
	"math"
	"slices"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Picture is a small picture of one image or cloud of a message, for a
// report: an image scaled down, a cloud projected from above.
type Picture struct {
	Topic   string
	LogTime int64
	Field   string
	Kind    Kind
	// Type is the message's type; ID and Object its id and object_name
	// fields, when it has them.
	Type   string
	ID     int64
	Object string
	// Successes and Attempts sum the grasps of the message (a
	// GraspModel's), or of the models of the same object (a
	// GraspDemonstration's); 0 when there are none.
	Successes, Attempts uint64
	// PNG is the picture, Width x Height pixels.
	PNG           []byte
	Width, Height int
	img           *image.NRGBA // the largest thumbnail, scaled again to fit a budget
}

// GraspTypes are the message types whose media the report shows by
// default: the grasp demonstrations' images and the grasp models' clouds.
var GraspTypes = []string{"rail_pick_and_place_msgs/GraspDemonstration", "rail_pick_and_place_msgs/GraspModel"}

// PictureOptions configure Pictures.
type PictureOptions struct {
	// Types are the message types whose media are pictured (GraspTypes when
	// empty); of GraspDemonstration the image, of the others every image,
	// and every cloud of types with no image.
	Types []string
	// MaxSide is the longest side of a picture in pixels (160 when 0).
	MaxSide int
	// MaxBytes bounds the PNG bytes of all pictures together: the pictures
	// are scaled down (to 24 pixels at the least) until they fit, and then
	// the last ones left out. 0 means no bound.
	MaxBytes int64
	// Unpictured, when set, receives each frame whose encoding has no
	// picture (a .npy encoding, say) as an error naming it, and the
	// pictures go on without it; when nil such a frame goes to in.Skip
	// as a damaged one does.
	Unpictured func(error)
}

// Pictures makes the pictures of the media of the selected messages of
// the given types, in log time order, and says how many were left out to
// stay within o.MaxBytes. A frame that cannot be pictured goes to
// in.Skip, or to o.Unpictured when its encoding has no picture.
func Pictures(ctx context.Context, in *recording.Inputs, o PictureOptions) ([]Picture, int, error) {
	types := o.Types
	if len(types) == 0 {
		types = GraspTypes
	}
	side := o.MaxSide
	if side <= 0 {
		side = 160
	}
	var pics []Picture
	c := NewCapture(nil)
	err := in.Each(ctx, recording.EachOptions{
		Jobs: 1,
		Want: func(typ string) bool { return slices.Contains(types, canonicalType(typ)) },
		Visit: func(_ int, m *record.Message, dec decode.Decoder) error {
			if dec == nil {
				return nil
			}
			c.Reset()
			if err := dec.Decode(m.Data, c); err != nil {
				return in.Skip(recording.MessageError(m, err))
			}
			v, err := dec.DecodeValue(m.Data)
			if err != nil {
				return in.Skip(recording.MessageError(m, err))
			}
			hasImage := slices.ContainsFunc(c.Frames, func(f *Frame) bool { return f.Kind != Cloud })
			for _, f := range c.Frames {
				if hasImage && f.Kind == Cloud {
					continue
				}
				f.Topic, f.LogTime, f.Source, f.Offset = m.Channel.Topic, m.LogTime, m.Source, m.Offset
				img, err := picture(f, side)
				if err != nil && o.Unpictured != nil && errors.Is(err, record.ErrUnsupported) {
					o.Unpictured(frameError(f, err))
					continue
				}
				if err != nil {
					if err := in.Skip(frameError(f, err)); err != nil {
						return err
					}
					continue
				}
				p := Picture{Topic: f.Topic, LogTime: f.LogTime, Field: f.Field, Kind: f.Kind, Type: dec.Type().Name, img: img,
					Object: v.LookupString("object_name")}
				p.ID, _ = v.LookupInt("id")
				for _, g := range v.LookupList("grasps") {
					if gs, ok := g.(*value.Struct); ok {
						s, _ := gs.LookupInt("grasp.successes")
						a, _ := gs.LookupInt("grasp.attempts")
						p.Successes += uint64(max(s, 0))
						p.Attempts += uint64(max(a, 0))
					}
				}
				pics = append(pics, p)
			}
			return nil
		},
	})
	if err != nil {
		return nil, 0, err
	}
	// a demonstration's grasp rate is that of the models of its object
	rates := map[string][2]uint64{}
	for _, p := range pics {
		if p.Attempts > 0 && p.Object != "" {
			r := rates[p.Object]
			rates[p.Object] = [2]uint64{r[0] + p.Successes, r[1] + p.Attempts}
		}
	}
	for i := range pics {
		if r, ok := rates[pics[i].Object]; ok && pics[i].Attempts == 0 {
			pics[i].Successes, pics[i].Attempts = r[0], r[1]
		}
	}
	slices.SortStableFunc(pics, func(a, b Picture) int {
		switch {
		case a.LogTime < b.LogTime:
			return -1
		case a.LogTime > b.LogTime:
			return 1
		}
		return 0
	})
	left, err := fit(pics, side, o.MaxBytes)
	return pics[:len(pics)-left], left, err
}

// canonicalType is a stored type name in the canonical "pkg/Type" form
// (ROS 2's "pkg/msg/Type" without "/msg").
func canonicalType(typ string) string { return strings.Replace(typ, "/msg/", "/", 1) }

// fit encodes the pictures at the largest side (halving from side, down
// to 24 pixels) at which they fit within maxBytes, leaving out the last
// ones when even the smallest do not; it returns how many it left out.
func fit(pics []Picture, side int, maxBytes int64) (int, error) {
	for s := side; ; s /= 2 {
		var total int64
		for i := range pics {
			img := scaleDown(pics[i].img, s)
			var buf bytes.Buffer
			if err := writePNG(&buf, nrgbaRaster(img)); err != nil {
				return 0, err
			}
			pics[i].PNG, pics[i].Width, pics[i].Height = buf.Bytes(), img.Rect.Dx(), img.Rect.Dy()
			total += int64(buf.Len())
		}
		if maxBytes <= 0 || total <= maxBytes {
			return 0, nil
		}
		if s/2 < 24 {
			left := 0
			for total > maxBytes && left < len(pics) {
				left++
				total -= int64(len(pics[len(pics)-left].PNG))
			}
			return left, nil
		}
	}
}

// maxPicturePixels bounds the compressed images pictured (an 8K
// camera's frame, 7680 x 4320, fits).
const maxPicturePixels = 1 << 25

// picture is f drawn at most side pixels wide and high: an image scaled
// down, a cloud seen from above.
func picture(f *Frame, side int) (*image.NRGBA, error) {
	switch f.Kind {
	case Image:
		r, err := imageRaster(f, false)
		if err != nil {
			return nil, err
		}
		return rasterPicture(r, side), nil
	case Compressed:
		data := f.Data
		if isCompressedDepth(f.Encoding) {
			body, r, err := compressedDepth(f)
			if err != nil {
				return nil, err
			}
			if r != nil {
				return rasterPicture(r, side), nil
			}
			data = body
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return nil, bad("data", record.ErrFormat, "compressed image: %v", err)
		}
		// the decoders allocate the size the header gives: refuse sizes
		// beyond an 8K camera's, and PNGs their bytes cannot fill (deflate
		// compresses at most ~1032:1, a pixel is at least one bit)
		if px := int64(cfg.Width) * int64(cfg.Height); px > maxPicturePixels || format == "png" && px > 8*1100*int64(len(data)) {
			return nil, bad("data", record.ErrFormat, "compressed %s image of %d x %d pixels in %d bytes", format, cfg.Width, cfg.Height, len(data))
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, bad("data", record.ErrFormat, "compressed image: %v", err)
		}
		b := img.Bounds()
		return rasterPicture(&raster{width: b.Dx(), height: b.Dy(), depth: 8, color: pngRGBA, row: func(y int, dst []byte) {
			for x := 0; x < b.Dx(); x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = c.R, c.G, c.B, c.A
			}
		}}, side), nil
	}
	return topDown(f, side)
}

// rasterPicture draws r at most side pixels wide and high in 8-bit RGBA,
// each pixel the mean of the pixels it covers (as scaleDown); 16-bit grey
// (depth) is stretched to its own largest value so that it shows. It
// reads r a row at a time (twice for 16-bit grey) and holds one row and
// one row of sums, never the whole image, whose size a compressedDepth
// RVL header gives regardless of its bytes.
func rasterPicture(r *raster, side int) *image.NRGBA {
	w, h := r.width, r.height
	ow, oh := w, h
	if w > side || h > side {
		f := float64(side) / float64(max(w, h))
		ow, oh = max(1, int(float64(w)*f)), max(1, int(float64(h)*f))
	}
	row := make([]byte, r.rowBytes())
	ch := r.channels()
	var scale uint32 = 1
	if r.depth == 16 && r.color == pngGray {
		var top uint16 = 1
		for y := 0; y < h; y++ {
			r.row(y, row)
			for i := 0; i+1 < len(row); i += 2 {
				top = max(top, binary.BigEndian.Uint16(row[i:]))
			}
		}
		scale = uint32(top)
	}
	s := func(x, c int) int {
		if r.depth == 8 {
			return int(row[x*ch+c])
		}
		v := binary.BigEndian.Uint16(row[2*(x*ch+c):])
		if scale > 1 {
			return int(uint32(v) * 255 / scale)
		}
		return int(v >> 8)
	}
	out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	sums := make([]int, 4*ow)
	oy := 0
	for y := 0; y < h; y++ {
		r.row(y, row)
		// output pixel ox covers input columns ox*w/ow up to (ox+1)*w/ow,
		// output row oy input rows oy*h/oh up to (oy+1)*h/oh
		for ox := 0; ox < ow; ox++ {
			q := sums[4*ox : 4*ox+4]
			for x := ox * w / ow; x < (ox+1)*w/ow; x++ {
				switch r.color {
				case pngGray:
					g := s(x, 0)
					q[0], q[1], q[2], q[3] = q[0]+g, q[1]+g, q[2]+g, q[3]+255
				case pngGrayAlpha:
					g := s(x, 0)
					q[0], q[1], q[2], q[3] = q[0]+g, q[1]+g, q[2]+g, q[3]+s(x, 1)
				case pngRGB:
					q[0], q[1], q[2], q[3] = q[0]+s(x, 0), q[1]+s(x, 1), q[2]+s(x, 2), q[3]+255
				default:
					q[0], q[1], q[2], q[3] = q[0]+s(x, 0), q[1]+s(x, 1), q[2]+s(x, 2), q[3]+s(x, 3)
				}
			}
		}
		if y+1 < (oy+1)*h/oh {
			continue
		}
		rows := (oy+1)*h/oh - oy*h/oh
		for ox := 0; ox < ow; ox++ {
			n := rows * ((ox+1)*w/ow - ox*w/ow)
			for c := range 4 {
				out.Pix[oy*out.Stride+4*ox+c] = uint8((sums[4*ox+c] + n/2) / n)
			}
		}
		clear(sums)
		oy++
	}
	return out
}

// scaleDown shrinks img so that its longer side is at most side pixels,
// each pixel the mean of the pixels it covers.
func scaleDown(img *image.NRGBA, side int) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w <= side && h <= side {
		return img
	}
	f := float64(side) / float64(max(w, h))
	ow, oh := max(1, int(float64(w)*f)), max(1, int(float64(h)*f))
	out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	for oy := 0; oy < oh; oy++ {
		y0, y1 := oy*h/oh, max((oy+1)*h/oh, oy*h/oh+1)
		for ox := 0; ox < ow; ox++ {
			x0, x1 := ox*w/ow, max((ox+1)*w/ow, ox*w/ow+1)
			var sum [4]int
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					p := img.Pix[(y-img.Rect.Min.Y)*img.Stride+4*(x-img.Rect.Min.X):]
					for c := range 4 {
						sum[c] += int(p[c])
					}
				}
			}
			n := (y1 - y0) * (x1 - x0)
			q := out.Pix[oy*out.Stride+4*ox:]
			for c := range 4 {
				q[c] = uint8((sum[c] + n/2) / n)
			}
		}
	}
	return out
}

// topDown draws a cloud seen from above (x to the right, y up), each point
// in its packed colour, or coloured by height without one.
func topDown(f *Frame, side int) (*image.NRGBA, error) {
	l, err := layoutOf(f)
	if err != nil {
		return nil, err
	}
	if l.xyz == nil {
		return nil, bad("fields", record.ErrUnsupported, "a cloud without float x, y and z fields cannot be drawn")
	}
	colour := -1
	for i, fd := range l.fields {
		if packedColour(fd, l.sizes[i]) {
			colour = i
		}
	}
	coord := func(p []byte, i int) float64 {
		fd := l.fields[l.xyz[i]]
		if fd.Datatype == pfFloat32 {
			return float64(math.Float32frombits(l.order.Uint32(p[fd.Offset:])))
		}
		return math.Float64frombits(l.order.Uint64(p[fd.Offset:]))
	}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < l.points; i++ {
		p := l.point(i)
		for k := range 3 {
			if v := coord(p, k); !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
			}
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	span := max(hi[0]-lo[0], hi[1]-lo[1], 1e-9)
	for i := 0; i < l.points; i++ {
		p := l.point(i)
		x, y, z := coord(p, 0), coord(p, 1), coord(p, 2)
		if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
			continue
		}
		px := int((x-lo[0])/span*float64(side-3)) + 1
		py := side - 2 - int((y-lo[1])/span*float64(side-3))
		var c color.NRGBA
		if colour >= 0 {
			v := l.order.Uint32(p[l.fields[colour].Offset:])
			c = color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
		} else {
			t := 0.5
			if hi[2] > lo[2] {
				t = (z - lo[2]) / (hi[2] - lo[2])
			}
			c = color.NRGBA{uint8(255 * t), 60, uint8(255 * (1 - t)), 255}
		}
		for dy := 0; dy < 2; dy++ {
			for dx := 0; dx < 2; dx++ {
				img.SetNRGBA(px+dx, py+dy, c)
			}
		}
	}
	return img, nil
}

// nrgbaRaster is the PNG raster of img.
func nrgbaRaster(img *image.NRGBA) *raster {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	return &raster{width: w, height: h, depth: 8, color: pngRGBA, row: func(y int, dst []byte) {
		copy(dst, img.Pix[y*img.Stride:y*img.Stride+4*w])
	}}
}
