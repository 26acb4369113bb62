package media

import (
	"encoding/binary"
	"io"
	"testing"
)

// FuzzImage converts arbitrary image layouts and data: an error or a PNG
// (or .npy), never a panic.
func FuzzImage(f *testing.F) {
	f.Add("rgb8", uint32(2), uint32(2), uint32(6), false, []byte("abcdefghijkl"))
	f.Add("bayer_rggb16", uint32(3), uint32(3), uint32(6), true, make([]byte, 18))
	f.Add("32FC1", uint32(1), uint32(2), uint32(4), false, make([]byte, 8))
	f.Add("yuv422", uint32(2), uint32(1), uint32(4), false, []byte{1, 2, 3, 4})
	f.Add("64FC3", uint32(1), uint32(1), uint32(24), true, make([]byte, 24))
	f.Fuzz(func(t *testing.T, enc string, w, h, step uint32, big bool, data []byte) {
		fr := &Frame{Kind: Image, Encoding: enc, Width: w, Height: h, Step: step, BigEndian: big, Data: data}
		for _, raw := range []bool{false, true} {
			_, fill, err := imageFile(fr, raw)
			if err != nil {
				continue
			}
			if err := fill(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzCloud writes arbitrary cloud layouts: an error or a file, never a
// panic.
func FuzzCloud(f *testing.F) {
	f.Add(uint32(2), uint32(1), uint32(12), uint32(24), uint32(4), uint8(7), uint32(1), make([]byte, 24))
	f.Fuzz(func(t *testing.T, w, h, pointStep, rowStep, offset uint32, dt uint8, count uint32, data []byte) {
		fr := &Frame{Kind: Cloud, Width: w, Height: h, PointStep: pointStep, Step: rowStep, Data: data,
			Fields: []PointField{{"x", 0, 7, 1}, {"rgb", offset, dt, count}}}
		for _, o := range []cloudOptions{{}, {ascii: true, dropNaN: true}, {format: PLY}} {
			_, _ = writeCloud(io.Discard, fr, o)
		}
	})
}

// FuzzCompressedDepth decodes arbitrary compressedDepth data.
func FuzzCompressedDepth(f *testing.F) {
	hdr := make([]byte, depthHeader)
	binary.LittleEndian.PutUint32(hdr[4:], 0x42c80000)
	f.Add("32FC1; compressedDepth", append(hdr, pngSignature...))
	f.Add("32FC1; compressedDepth rvl", rvlSeed(f))
	f.Fuzz(func(t *testing.T, format string, data []byte) {
		fr := &Frame{Kind: Compressed, Encoding: format, Data: data}
		if _, r, err := compressedDepth(fr); err == nil && r != nil {
			_ = writePNG(io.Discard, r)
		}
	})
}
