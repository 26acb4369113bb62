package media

import (
	"encoding/binary"
	"io"
	"math"
	"strings"

	"github.com/baglab/baglab/record"
)

// imageFormat is how the samples of an Image encoding are laid out and
// written.
type imageFormat struct {
	channels int  // samples per pixel in the message
	depth    int  // bits per sample in the message: 8, 16 or 32 (float)
	color    byte // PNG colour type written
	swapRB   bool // BGR(A) in the message, RGB(A) in the PNG
	bayer    string
	yuv      string // "uyvy" or "yuyv"
}

// formatOf is the layout of an Image encoding (sensor_msgs/image_encodings).
func formatOf(enc string) (imageFormat, bool) {
	switch enc {
	case "rgb8":
		return imageFormat{channels: 3, depth: 8, color: pngRGB}, true
	case "bgr8":
		return imageFormat{channels: 3, depth: 8, color: pngRGB, swapRB: true}, true
	case "rgba8":
		return imageFormat{channels: 4, depth: 8, color: pngRGBA}, true
	case "bgra8":
		return imageFormat{channels: 4, depth: 8, color: pngRGBA, swapRB: true}, true
	case "rgb16":
		return imageFormat{channels: 3, depth: 16, color: pngRGB}, true
	case "bgr16":
		return imageFormat{channels: 3, depth: 16, color: pngRGB, swapRB: true}, true
	case "rgba16":
		return imageFormat{channels: 4, depth: 16, color: pngRGBA}, true
	case "bgra16":
		return imageFormat{channels: 4, depth: 16, color: pngRGBA, swapRB: true}, true
	case "mono8":
		return imageFormat{channels: 1, depth: 8, color: pngGray}, true
	case "mono16":
		return imageFormat{channels: 1, depth: 16, color: pngGray}, true
	case "32FC1":
		return imageFormat{channels: 1, depth: 32, color: pngGray}, true
	case "yuv422", "uyvy", "UYVY":
		return imageFormat{channels: 2, depth: 8, color: pngRGB, yuv: "uyvy"}, true
	case "yuv422_yuy2", "yuyv", "YUYV":
		return imageFormat{channels: 2, depth: 8, color: pngRGB, yuv: "yuyv"}, true
	}
	for _, p := range []string{"rggb", "bggr", "gbrg", "grbg"} {
		switch enc {
		case "bayer_" + p + "8":
			return imageFormat{channels: 1, depth: 8, color: pngRGB, bayer: p}, true
		case "bayer_" + p + "16":
			return imageFormat{channels: 1, depth: 16, color: pngRGB, bayer: p}, true
		}
	}
	// 8UC1..8UC4, 16UC1..16UC4 (and "8UC"/"16UC", one channel); 8SC*,
	// 16SC* and wider kinds have no PNG sample format (see arrayFormatOf).
	for _, d := range []struct {
		prefix string
		depth  int
	}{{"8UC", 8}, {"16UC", 16}} {
		rest, ok := strings.CutPrefix(enc, d.prefix)
		if !ok {
			continue
		}
		n := 1
		if rest != "" {
			if len(rest) != 1 || rest[0] < '1' || rest[0] > '4' {
				return imageFormat{}, false
			}
			n = int(rest[0] - '0')
		}
		f := imageFormat{channels: n, depth: d.depth, swapRB: n >= 3}
		f.color = [...]byte{pngGray, pngGrayAlpha, pngRGB, pngRGBA}[n-1]
		return f, true
	}
	return imageFormat{}, false
}

// Encodings lists the Image encodings written, for the help.
const Encodings = "rgb8 bgr8 rgba8 bgra8 rgb16 bgr16 rgba16 bgra16 mono8 mono16 8UC1-4 16UC1-4 32FC1 " +
	"bayer_rggb8 bayer_bggr8 bayer_gbrg8 bayer_grbg8 (and 16) yuv422 yuv422_yuy2 as PNG; " +
	"8SC1-4 16SC1-4 32SC1-4 32FC2-4 64FC1-4 as NumPy .npy"

// imageFile returns the extension of f's file, an Image, and what writes
// it: a PNG, or a NumPy array (.npy) for the encodings no PNG sample
// format holds (see arrayFormatOf).
func imageFile(f *Frame, raw bool) (ext string, fill func(io.Writer) error, err error) {
	if af, ok := arrayFormatOf(f.Encoding); ok {
		fill, err := npyArray(f, af)
		return ".npy", fill, err
	}
	r, err := imageRaster(f, raw)
	if err != nil {
		return "", nil, err
	}
	return ".png", func(w io.Writer) error { return writePNG(w, r) }, nil
}

// imageRows checks that the rows of f, an Image of pix bytes per pixel,
// fit its data, and returns its size and a function giving row y without
// its padding.
func imageRows(f *Frame, pix int) (w, h int, line func(y int) []byte, err error) {
	if f.Width == 0 || f.Height == 0 {
		return 0, 0, nil, bad("width", record.ErrFormat, "empty image: width %d, height %d", f.Width, f.Height)
	}
	if f.Width > 1<<24 || f.Height > 1<<24 {
		return 0, 0, nil, bad("width", record.ErrFormat, "image of %d x %d pixels", f.Width, f.Height)
	}
	w, h = int(f.Width), int(f.Height)
	rowLen := w * pix
	step := int(f.Step)
	if step < rowLen {
		return 0, 0, nil, bad("step", record.ErrFormat, "step %d is less than width %d x %d bytes per pixel = %d", step, w, pix, rowLen)
	}
	need := int64(step)*int64(h-1) + int64(rowLen)
	if int64(len(f.Data)) < need {
		return 0, 0, nil, bad("data", record.ErrLength, "%d bytes, but step %d x height %d needs %d", len(f.Data), step, h, need)
	}
	data := f.Data
	return w, h, func(y int) []byte { return data[y*step : y*step+rowLen] }, nil
}

// imageRaster checks f, an Image, and returns the PNG raster that writes
// it: the message's samples converted row by row, or, for Bayer images,
// from one demosaiced copy. raw writes a Bayer mosaic as grey.
func imageRaster(f *Frame, raw bool) (*raster, error) {
	fm, ok := formatOf(f.Encoding)
	if _, array := arrayFormatOf(f.Encoding); array {
		return nil, bad("encoding", record.ErrUnsupported, "image encoding %q has no PNG form (media writes it as a .npy array)", f.Encoding)
	}
	if !ok {
		return nil, bad("encoding", record.ErrUnsupported, "image encoding %q is not known here (supported: %s)", f.Encoding, Encodings)
	}
	pix := fm.channels * fm.depth / 8 // bytes per pixel in the message
	if fm.yuv != "" && f.Width%2 != 0 {
		return nil, bad("width", record.ErrFormat, "%s image of odd width %d", f.Encoding, f.Width)
	}
	w, h, line, err := imageRows(f, pix)
	if err != nil {
		return nil, err
	}
	big := f.BigEndian
	r := &raster{width: w, height: h, depth: fm.depth, color: fm.color}
	switch {
	case fm.bayer != "" && raw:
		r.color = pngGray
		r.row = func(y int, dst []byte) { copySamples(dst, line(y), fm.depth, big) }
	case fm.bayer != "":
		r.row = demosaic(w, h, fm.depth, fm.bayer, line, big)
	case fm.yuv != "":
		r.row = func(y int, dst []byte) { yuvRow(dst, line(y), fm.yuv) }
	case fm.depth == 32:
		r.depth = 16
		r.row = func(y int, dst []byte) { depthRow(dst, line(y), big) }
	case fm.swapRB:
		r.row = func(y int, dst []byte) { swapRow(dst, line(y), fm.channels, fm.depth, big) }
	default:
		r.row = func(y int, dst []byte) { copySamples(dst, line(y), fm.depth, big) }
	}
	return r, nil
}

// copySamples copies a row of samples into PNG order: 16-bit samples
// big-endian.
func copySamples(dst, src []byte, depth int, big bool) {
	if depth == 8 || big {
		copy(dst, src)
		return
	}
	for i := 0; i+1 < len(src); i += 2 {
		dst[i], dst[i+1] = src[i+1], src[i]
	}
}

// swapRow copies a row of BGR(A) pixels as RGB(A).
func swapRow(dst, src []byte, channels, depth int, big bool) {
	copySamples(dst, src, depth, big)
	if depth == 8 {
		for i := 0; i+2 < len(dst); i += channels {
			dst[i], dst[i+2] = dst[i+2], dst[i]
		}
		return
	}
	for i := 0; i+5 < len(dst); i += 2 * channels {
		dst[i], dst[i+1], dst[i+4], dst[i+5] = dst[i+4], dst[i+5], dst[i], dst[i+1]
	}
}

// depthRow converts a row of 32-bit float depths (metres) to 16-bit
// millimetres: rounded (halves to even), 0 for NaN, infinities and
// depths <= 0, 65535 at most.
func depthRow(dst, src []byte, big bool) {
	order := binary.ByteOrder(binary.LittleEndian)
	if big {
		order = binary.BigEndian
	}
	for i := 0; i+3 < len(src); i += 4 {
		binary.BigEndian.PutUint16(dst[i/2:], depthMM(math.Float32frombits(order.Uint32(src[i:]))))
	}
}

// depthMM is a depth in metres as 16-bit millimetres, rounded to the
// nearest with halves to even as OpenCV's cvRound and numpy's round do
// (6.3125 m is 6312 mm).
func depthMM(m float32) uint16 {
	switch {
	case m != m, m <= 0, math.IsInf(float64(m), 0):
		return 0
	case m >= 65.535:
		return 65535
	}
	return uint16(math.RoundToEven(float64(m) * 1000))
}

// OpenCV's BT.601 video-range YUV→RGB constants (imgproc color_yuv),
// fixed point with 20 fraction bits.
const (
	yuvCY    = 1220542
	yuvCUB   = 2116026
	yuvCUG   = -409993
	yuvCVG   = -852492
	yuvCVR   = 1673527
	yuvShift = 20
)

// yuvRow converts a row of 4:2:2 pixel pairs (UYVY or YUYV) to RGB.
func yuvRow(dst, src []byte, order string) {
	yi, ui, vi := 1, 0, 2 // UYVY
	if order == "yuyv" {
		yi, ui, vi = 0, 1, 3
	}
	for i, o := 0, 0; i+3 < len(src); i, o = i+4, o+6 {
		u, v := int(src[i+ui])-128, int(src[i+vi])-128
		ruv := 1<<(yuvShift-1) + yuvCVR*v
		guv := 1<<(yuvShift-1) + yuvCVG*v + yuvCUG*u
		buv := 1<<(yuvShift-1) + yuvCUB*u
		for k := 0; k < 2; k++ {
			y := max(0, int(src[i+yi+2*k])-16) * yuvCY
			d := dst[o+3*k : o+3*k+3]
			d[0] = sat8((y + ruv) >> yuvShift)
			d[1] = sat8((y + guv) >> yuvShift)
			d[2] = sat8((y + buv) >> yuvShift)
		}
	}
}

func sat8(v int) byte {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return byte(v)
}
