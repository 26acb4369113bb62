package media

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkPNG writes one 640x480 rgb8 frame (a gradient with noise, as
// testdata/bench/media.sh's) as PNG: MB/s of image data.
func BenchmarkPNG(b *testing.B) {
	const w, h = 640, 480
	data := make([]byte, w*h*3)
	seed := uint32(1)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			seed = seed*1664525 + 1013904223
			p := data[(y*w+x)*3:]
			p[0], p[1], p[2] = byte(x)+byte(seed>>28), byte(y)+byte(seed>>24&15), byte(x+y)
		}
	}
	for _, enc := range []string{"rgb8", "bgr8"} {
		b.Run(enc, func(b *testing.B) {
			f := &Frame{Kind: Image, Encoding: enc, Width: w, Height: h, Step: 3 * w, Data: data}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := imageRaster(f, false)
				if err != nil {
					b.Fatal(err)
				}
				if err := writePNG(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPCD writes a 100,000-point x, y, z, rgb cloud as binary PCD.
func BenchmarkPCD(b *testing.B) {
	const n = 100000
	f := &Frame{Kind: Cloud, Width: n, Height: 1, PointStep: 16, Step: 16 * n, Data: make([]byte, 16*n),
		Fields: []PointField{{"x", 0, pfFloat32, 1}, {"y", 4, pfFloat32, 1}, {"z", 8, pfFloat32, 1}, {"rgb", 12, pfFloat32, 1}}}
	b.SetBytes(int64(len(f.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := writeCloud(io.Discard, f, cloudOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDepth decodes the peer's compressedDepth messages
// (testdata/rvl, 64x48) and writes them as 16-bit PNG: MB/s of decoded
// 16-bit depths.
func BenchmarkDepth(b *testing.B) {
	for _, c := range depthCases(b) {
		if c.Width*c.Height < 64*48 {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			f := &Frame{Kind: Compressed, Encoding: c.format, Data: c.data}
			b.SetBytes(int64(2 * c.Width * c.Height))
			b.ReportAllocs()
			for b.Loop() {
				_, r, err := compressedDepth(f)
				if err != nil {
					b.Fatal(err)
				}
				if err := writePNG(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
		if strings.HasSuffix(c.Name, "_rvl") {
			b.Run(c.Name+"/decode", func(b *testing.B) {
				b.SetBytes(int64(2 * c.Width * c.Height))
				b.ReportAllocs()
				row := make([]uint16, c.Width)
				for b.Loop() {
					_, h, pixels, err := rvlPixels(c.data[depthHeader:], depthHeader)
					if err != nil {
						b.Fatal(err)
					}
					for y := 0; y < h; y++ {
						pixels(y, row)
					}
				}
			})
		}
	}
}
