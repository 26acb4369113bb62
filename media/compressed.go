package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"math"
	"strings"

	"github.com/baglab/baglab/record"
)

// compressedExt is the file extension of a compressed image's bytes, from
// their magic bytes (the format string is free text), falling back to the
// format's name and then to .bin.
func compressedExt(data []byte, format string) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return ".jpg"
	case bytes.HasPrefix(data, pngSignature):
		return ".png"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return ".webp"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return ".tif"
	case bytes.HasPrefix(data, []byte("qoif")):
		return ".qoi"
	}
	f := strings.ToLower(format)
	for _, c := range []struct{ name, ext string }{{"jpeg", ".jpg"}, {"jpg", ".jpg"}, {"png", ".png"}, {"webp", ".webp"}, {"tiff", ".tif"}} {
		if strings.Contains(f, c.name) {
			return c.ext
		}
	}
	return ".bin"
}

// isCompressedDepth reports whether a CompressedImage format names
// compressed_depth_image_transport's layout ("16UC1; compressedDepth png").
func isCompressedDepth(format string) bool { return strings.Contains(format, "compressedDepth") }

// depthFormat splits a compressedDepth format into the image's encoding
// and its compression, "png" or "rvl", as the plugin's decoder reads it:
// "<encoding>; compressedDepth <compression>", and plain "compressedDepth"
// (or no "; ..." at all) for the PNG of older versions.
func depthFormat(format string) (enc, compression string, err error) {
	enc, rest, ok := strings.Cut(format, ";")
	enc = strings.TrimSpace(enc)
	switch {
	case !ok, strings.Contains(rest, "compressedDepth png"):
		return enc, "png", nil
	case strings.Contains(rest, "compressedDepth rvl"):
		return enc, "rvl", nil
	case strings.Contains(rest, "compressedDepth") && !strings.Contains(rest, "compressedDepth "):
		return enc, "png", nil
	}
	return "", "", bad("format", record.ErrUnsupported, "compressedDepth format %q (png and rvl are known)", format)
}

// depthHeader is the size of compressed_depth_image_transport's
// ConfigHeader before the PNG or RVL image: int32 compression format,
// float32 depthParam[2] (the inverse-depth quantisation of 32FC1 images).
const depthHeader = 12

// maxDepthPixels bounds a compressedDepth image (8192 x 8192): what its
// decoding allocates stays bounded by a depth camera's frame.
const maxDepthPixels = 1 << 26

// compressedDepth decodes a compressedDepth image, PNG or RVL: for a
// 16UC1 PNG the PNG it holds (returned as png, written as it is), for
// 16UC1 RVL a raster of its depths, for 32FC1 a raster of its depths in
// millimetres (see depthMM), decoded from the quantised inverse depths as
// the plugin does (see inverseDepth).
func compressedDepth(f *Frame) (pngBytes []byte, r *raster, err error) {
	enc, compression, err := depthFormat(f.Encoding)
	if err != nil {
		return nil, nil, err
	}
	var float bool
	switch enc {
	case "16UC1", "mono16":
	case "32FC1":
		float = true
	default:
		return nil, nil, bad("format", record.ErrUnsupported, "compressedDepth of encoding %q (16UC1 and 32FC1 are known)", enc)
	}
	if len(f.Data) <= depthHeader {
		return nil, nil, bad("data", record.ErrLength, "compressedDepth data of %d bytes, no more than its %d-byte header", len(f.Data), depthHeader)
	}
	body := f.Data[depthHeader:]
	var w, h int
	var pixels func(y int, dst []uint16)
	switch compression {
	case "png":
		if !bytes.HasPrefix(body, pngSignature) {
			return nil, nil, bad("data", record.ErrFormat, "compressedDepth data of %d bytes holds no PNG after its %d-byte header", len(f.Data), depthHeader)
		}
		if !float {
			return body, nil, nil
		}
		if w, h, pixels, err = pngPixels(body); err != nil {
			return nil, nil, err
		}
	case "rvl":
		if w, h, pixels, err = rvlPixels(body, depthHeader); err != nil {
			return nil, nil, bad("data", record.ErrFormat, "compressedDepth %s: %v", f.Encoding, err)
		}
	}
	v := make([]uint16, w)
	r = &raster{width: w, height: h, depth: 16, color: pngGray}
	if !float {
		r.row = func(y int, dst []byte) {
			pixels(y, v)
			for x, d := range v {
				binary.BigEndian.PutUint16(dst[2*x:], d)
			}
		}
		return nil, r, nil
	}
	qa := math.Float32frombits(binary.LittleEndian.Uint32(f.Data[4:]))
	qb := math.Float32frombits(binary.LittleEndian.Uint32(f.Data[8:]))
	r.row = func(y int, dst []byte) {
		pixels(y, v)
		for x, d := range v {
			binary.BigEndian.PutUint16(dst[2*x:], depthMM(inverseDepth(d, qa, qb)))
		}
	}
	return nil, r, nil
}

// inverseDepth is the depth (metres) of a quantised inverse depth v of a
// 32FC1 compressedDepth image, as the plugin decodes it in float32:
// qa / (v - qb), NaN (no reading) where v is 0.
func inverseDepth(v uint16, qa, qb float32) float32 {
	if v == 0 {
		return float32(math.NaN())
	}
	return qa / (float32(v) - qb)
}

// pngPixels decodes the 16-bit grey PNG of a compressedDepth image.
func pngPixels(body []byte) (width, height int, row func(y int, dst []uint16), err error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		return 0, 0, nil, bad("data", record.ErrFormat, "compressedDepth PNG: %v", err)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px*2 > 1100*int64(len(body)) || px > maxDepthPixels {
		// deflate compresses at most ~1032:1: refuse sizes no data can fill,
		// and depth images beyond any camera's
		return 0, 0, nil, bad("data", record.ErrFormat, "compressedDepth PNG of %d x %d pixels in %d bytes", cfg.Width, cfg.Height, len(body))
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		return 0, 0, nil, bad("data", record.ErrFormat, "compressedDepth PNG: %v", err)
	}
	g, ok := img.(*image.Gray16)
	if !ok {
		return 0, 0, nil, bad("data", record.ErrFormat, "compressedDepth PNG is %T, not 16-bit grey", img)
	}
	b := g.Bounds()
	return b.Dx(), b.Dy(), func(y int, dst []uint16) {
		for x := range dst {
			dst[x] = g.Gray16At(b.Min.X+x, b.Min.Y+y).Y
		}
	}, nil
}
