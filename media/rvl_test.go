package media

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// depthCase is a compressedDepth message made by compressed_depth_image_transport's
// own encoder (testdata/rvl/gen.sh) and the rows its own decoder makes of it.
type depthCase struct {
	Name     string `json:"name"`
	Encoding string `json:"encoding"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`

	format  string
	data    []byte
	decoded []byte // little-endian uint16 or float32 rows
}

func depthCases(t testing.TB) []depthCase {
	t.Helper()
	dir := filepath.Join("testdata", "rvl")
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []depthCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		c := &cases[i]
		base := filepath.Join(dir, c.Name)
		f, err := os.ReadFile(base + ".format")
		if err != nil {
			t.Fatal(err)
		}
		c.format = string(f)
		if c.data, err = os.ReadFile(base + ".data"); err != nil {
			t.Fatal(err)
		}
		z, err := os.Open(base + ".decoded.gz")
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(z)
		if err == nil {
			c.decoded, err = io.ReadAll(zr)
		}
		z.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return cases
}

// rasterRows runs every row of r in turn.
func rasterRows(r *raster) []byte {
	out := make([]byte, r.height*r.rowBytes())
	for y := 0; y < r.height; y++ {
		r.row(y, out[y*r.rowBytes():(y+1)*r.rowBytes()])
	}
	return out
}

// TestDepthPeer: the compressedDepth messages compressed_depth_image_transport's
// encodeCompressedDepthImage wrote (RVL and PNG, 16UC1 and 32FC1: holes,
// depths past depth_max, NaN and inf, differences that wrap, an empty
// 640x480 frame in 24 bytes, one pixel) decode to the pixels its
// decodeCompressedDepthImage gives: 16-bit depths exactly, float depths
// bit for bit, and our PNG rows are those depths (32FC1 in millimetres).
func TestDepthPeer(t *testing.T) {
	cases := depthCases(t)
	if len(cases) != 7 {
		t.Fatalf("%d cases, want 7", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			f := &Frame{Kind: Compressed, Encoding: c.format, Data: c.data}
			_, r, err := compressedDepth(f)
			if err != nil {
				t.Fatal(err)
			}
			if r.width != c.Width || r.height != c.Height {
				t.Fatalf("%d x %d, want %d x %d", r.width, r.height, c.Width, c.Height)
			}
			got := rasterRows(r)
			n := c.Width * c.Height
			if c.Encoding == "16UC1" {
				for i := 0; i < n; i++ {
					if g, w := binary.BigEndian.Uint16(got[2*i:]), binary.LittleEndian.Uint16(c.decoded[2*i:]); g != w {
						t.Fatalf("pixel %d: %d, want %d", i, g, w)
					}
				}
				return
			}
			// the float depths themselves, then our millimetres of them
			_, comp, _ := depthFormat(c.format)
			var pixels func(y int, dst []uint16)
			if comp == "rvl" {
				_, _, pixels, err = rvlPixels(c.data[depthHeader:], depthHeader)
			} else {
				_, _, pixels, err = pngPixels(c.data[depthHeader:])
			}
			if err != nil {
				t.Fatal(err)
			}
			qa := math.Float32frombits(binary.LittleEndian.Uint32(c.data[4:]))
			qb := math.Float32frombits(binary.LittleEndian.Uint32(c.data[8:]))
			v := make([]uint16, c.Width)
			nan := 0
			for y := 0; y < c.Height; y++ {
				pixels(y, v)
				for x, q := range v {
					i := y*c.Width + x
					want := math.Float32frombits(binary.LittleEndian.Uint32(c.decoded[4*i:]))
					d := inverseDepth(q, qa, qb)
					if math.Float32bits(d) != math.Float32bits(want) && !(d != d && want != want) {
						t.Fatalf("pixel %d: %g m, want %g m", i, d, want)
					}
					if want != want {
						nan++
					}
					if g, w := binary.BigEndian.Uint16(got[2*i:]), depthMM(want); g != w {
						t.Fatalf("pixel %d: %d mm, want %d mm (%g m)", i, g, w, want)
					}
				}
			}
			if nan == 0 {
				t.Error("no pixel without a reading: the case tests less than it says")
			}
		})
	}
}

// TestRVLBad: every cut of a peer's RVL message, and streams whose runs
// or numbers do not fit their image, are errors naming the data; nothing
// panics.
func TestRVLBad(t *testing.T) {
	var c depthCase
	for _, d := range depthCases(t) {
		if d.Name == "depth16_rvl" {
			c = d
		}
	}
	for n := 0; n < len(c.data); n++ {
		f := &Frame{Kind: Compressed, Encoding: c.format, Data: c.data[:n]}
		if _, _, err := compressedDepth(f); err == nil {
			t.Fatalf("cut at %d of %d bytes: no error", n, len(c.data))
		} else if !errors.Is(err, record.ErrFormat) && !errors.Is(err, record.ErrLength) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	rvl := func(w, h uint32, words ...uint32) []byte {
		b := make([]byte, depthHeader+rvlHeader+4*len(words))
		binary.LittleEndian.PutUint32(b[depthHeader:], w)
		binary.LittleEndian.PutUint32(b[depthHeader+4:], h)
		for i, v := range words {
			binary.LittleEndian.PutUint32(b[depthHeader+rvlHeader+4*i:], v)
		}
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"zero width", rvl(0, 4, 0x40000000), "RVL image of 0 x 4 pixels"},
		{"too wide", rvl(1<<17, 1, 0), "RVL image of 131072 x 1 pixels"},
		{"too many pixels", rvl(1<<16, 1<<11, 0), "RVL image of 65536 x 2048 pixels"},
		{"too high", rvl(1, 1<<17, 0), "RVL image of 1 x 131072 pixels"},
		{"zeros past the image", rvl(2, 1, 0x30000000), "runs of 3 zeros and 0 values before byte 24, but 2 pixels are left"},
		{"values past the image", rvl(2, 1, 0x13000000), "runs of 1 zeros and 3 values"},
		{"stream short of the image", rvl(4, 1, 0x20000000), "RVL stream ends at byte 24 with 2 pixels to go"},
		{"number of 33 bits", rvl(4, 1, 0x88888888, 0x88800000), "RVL number of more than 30 bits in the word at byte 24"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &Frame{Kind: Compressed, Encoding: "16UC1; compressedDepth rvl", Data: c.data}
			_, _, err := compressedDepth(f)
			if err == nil || !errors.Is(err, record.ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want an ErrFormat saying %q", err, c.want)
			}
		})
	}
}

// TestDepthFormat: the compression is read from the format as the
// plugin's decoder reads it.
func TestDepthFormat(t *testing.T) {
	for _, c := range []struct{ format, enc, comp string }{
		{"16UC1; compressedDepth", "16UC1", "png"},
		{"16UC1; compressedDepth png", "16UC1", "png"},
		{"32FC1; compressedDepth rvl", "32FC1", "rvl"},
		{"16UC1;compressedDepth rvl", "16UC1", "rvl"}, // realsense-ros
		{"16UC1; compressedDepth zstd", "", ""},
	} {
		enc, comp, err := depthFormat(c.format)
		if enc != c.enc || comp != c.comp || (err != nil) != (c.comp == "") {
			t.Errorf("%q: %q %q %v, want %q %q", c.format, enc, comp, err, c.enc, c.comp)
		}
	}
}

// TestRVLRows: rows asked for out of order (the report's pictures read
// an image twice) are the rows read in turn.
func TestRVLRows(t *testing.T) {
	c := depthCases(t)[0]
	w, h, pixels, err := rvlPixels(c.data[depthHeader:], depthHeader)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]uint16, w)
	for _, y := range []int{0, 1, h - 1, 3, 0, h / 2} {
		pixels(y, row)
		for x, v := range row {
			if want := binary.LittleEndian.Uint16(c.decoded[2*(y*w+x):]); v != want {
				t.Fatalf("row %d pixel %d: %d, want %d", y, x, v, want)
			}
		}
	}
}

// FuzzRVL decodes arbitrary RVL images: an error or every row, never a
// panic; what decoding holds is one row, at most maxRVLWidth pixels,
// whatever size the header claims.
func FuzzRVL(f *testing.F) {
	for _, c := range depthCases(f) {
		if strings.HasSuffix(c.format, "rvl") {
			f.Add(c.data[depthHeader:])
		}
	}
	f.Add([]byte("\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x30"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, h, pixels, err := rvlPixels(data, 0)
		if err != nil {
			return
		}
		if w > maxRVLSide || h > maxRVLSide || w*h > maxDepthPixels {
			t.Fatalf("%d x %d accepted", w, h)
		}
		row := make([]uint16, w)
		for y := 0; y < h; y++ {
			pixels(y, row)
		}
	})
}

// rvlSeed is a compressedDepth message around an RVL image, for the
// fuzz targets' seeds.
func rvlSeed(t testing.TB) []byte {
	for _, c := range depthCases(t) {
		if c.Name == "depth32_far_rvl" {
			return bytes.Clone(c.data)
		}
	}
	t.Fatal("no depth32_far_rvl case")
	return nil
}
