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

// depthHeader is the size of compressed_depth_image_transport's
// ConfigHeader before the PNG: int32 compression format, float32
// depthParam[2] (the inverse-depth quantisation of 32FC1 images).
const depthHeader = 12

// maxDepthPixels bounds a compressedDepth image (8192 x 8192): what its
// decoding allocates stays bounded by a depth camera's frame.
const maxDepthPixels = 1 << 26

// compressedDepth decodes a compressedDepth image: for 16UC1 the PNG it
// holds (returned as png, written as it is), for 32FC1 a raster of its
// depths in millimetres (see depthMM), decoded from the quantised inverse
// depths as the plugin does: depth = A / (v - B), no reading where v = 0.
func compressedDepth(f *Frame) (pngBytes []byte, r *raster, err error) {
	enc, _, _ := strings.Cut(f.Encoding, ";")
	enc = strings.TrimSpace(enc)
	if strings.Contains(strings.ToLower(f.Encoding), "rvl") {
		return nil, nil, bad("format", record.ErrUnsupported, "compressedDepth format %q: RVL is not decoded (PNG is)", f.Encoding)
	}
	if len(f.Data) < depthHeader+len(pngSignature) || !bytes.HasPrefix(f.Data[depthHeader:], pngSignature) {
		return nil, nil, bad("data", record.ErrFormat, "compressedDepth data of %d bytes holds no PNG after its %d-byte header", len(f.Data), depthHeader)
	}
	body := f.Data[depthHeader:]
	switch enc {
	case "16UC1", "mono16":
		return body, nil, nil
	case "32FC1":
	default:
		return nil, nil, bad("format", record.ErrUnsupported, "compressedDepth of encoding %q (16UC1 and 32FC1 are known)", enc)
	}
	qa := math.Float32frombits(binary.LittleEndian.Uint32(f.Data[4:]))
	qb := math.Float32frombits(binary.LittleEndian.Uint32(f.Data[8:]))
	cfg, err := png.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		return nil, nil, bad("data", record.ErrFormat, "compressedDepth PNG: %v", err)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px*2 > 1100*int64(len(body)) || px > maxDepthPixels {
		// deflate compresses at most ~1032:1: refuse sizes no data can fill,
		// and depth images beyond any camera's
		return nil, nil, bad("data", record.ErrFormat, "compressedDepth PNG of %d x %d pixels in %d bytes", cfg.Width, cfg.Height, len(body))
	}
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, nil, bad("data", record.ErrFormat, "compressedDepth PNG: %v", err)
	}
	g, ok := img.(*image.Gray16)
	if !ok {
		return nil, nil, bad("data", record.ErrFormat, "compressedDepth PNG is %T, not 16-bit grey", img)
	}
	b := g.Bounds()
	r = &raster{width: b.Dx(), height: b.Dy(), depth: 16, color: pngGray, row: func(y int, dst []byte) {
		for x := 0; x < b.Dx(); x++ {
			v := g.Gray16At(b.Min.X+x, b.Min.Y+y).Y
			d := float32(math.NaN())
			if v != 0 {
				d = qa / (float32(v) - qb)
			}
			binary.BigEndian.PutUint16(dst[2*x:], depthMM(d))
		}
	}}
	return nil, r, nil
}
