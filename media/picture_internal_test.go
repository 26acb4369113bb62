package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"runtime"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// TestRVLPicture: the report's picture of an RVL image holds a row at a
// time: a frame of 8192 x 1024 zeros in 24 bytes (32 MiB as RGBA) is
// drawn in 160 x 20 pixels with well under a MiB allocated.
func TestRVLPicture(t *testing.T) {
	data := make([]byte, depthHeader+rvlHeader+8)
	binary.LittleEndian.PutUint32(data[depthHeader:], 8192)
	binary.LittleEndian.PutUint32(data[depthHeader+4:], 1024)
	// zeros = 2^23: seven nibbles of 0 going on, one of 4 (bits 21-23), then
	// no values
	binary.LittleEndian.PutUint32(data[depthHeader+rvlHeader:], 0x88888884)
	binary.LittleEndian.PutUint32(data[depthHeader+rvlHeader+4:], 0x00000000)
	f := &Frame{Kind: Compressed, Encoding: "16UC1; compressedDepth rvl", Data: data}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	img, err := picture(f, 160)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 160 || b.Dy() != 20 {
		t.Errorf("picture of %v", b)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("%d bytes allocated", n)
	}
}

// TestCompressedPicture: a compressed image is pictured scaled down; one
// whose header claims more pixels than its bytes can hold is refused
// before its decoder allocates them.
func TestCompressedPicture(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 320, 200))
	for i := range src.Pix {
		src.Pix[i] = byte(i)
	}
	var ok bytes.Buffer
	if err := png.Encode(&ok, src); err != nil {
		t.Fatal(err)
	}
	img, err := picture(&Frame{Kind: Compressed, Encoding: "png", Data: ok.Bytes()}, 160)
	if err != nil || img.Bounds().Dx() != 160 || img.Bounds().Dy() != 100 {
		t.Fatalf("%v, %v", img.Bounds(), err)
	}
	var bomb bytes.Buffer
	bomb.Write(pngSignature)
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, 60000)
	binary.BigEndian.PutUint32(ihdr[4:], 60000)
	ihdr[8], ihdr[9] = 8, pngRGBA
	if err := writeChunk(&bomb, "IHDR", ihdr); err != nil {
		t.Fatal(err)
	}
	_, err = picture(&Frame{Kind: Compressed, Encoding: "png", Data: bomb.Bytes()}, 160)
	if !errors.Is(err, record.ErrFormat) || !strings.Contains(err.Error(), "png image of 60000 x 60000 pixels in 33 bytes") {
		t.Fatalf("%v", err)
	}
}
