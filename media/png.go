package media

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// PNG colour types (PNG spec 11.2.2).
const (
	pngGray      = 0
	pngRGB       = 2
	pngGrayAlpha = 4
	pngRGBA      = 6
)

// raster is an image ready for the PNG encoder: rows in PNG's own sample
// layout (channels interleaved, 16-bit samples big-endian), filled one row
// at a time by row, so that no full converted copy of a frame is made.
type raster struct {
	width, height int
	depth         int  // bits per sample: 8 or 16
	color         byte // pngGray, pngRGB, pngGrayAlpha or pngRGBA
	row           func(y int, dst []byte)
}

func (r *raster) channels() int {
	switch r.color {
	case pngRGB:
		return 3
	case pngGrayAlpha:
		return 2
	case pngRGBA:
		return 4
	}
	return 1
}

// rowBytes is the size of one row without its filter byte.
func (r *raster) rowBytes() int { return r.width * r.channels() * r.depth / 8 }

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// idatSize is the largest IDAT chunk written.
const idatSize = 1 << 18

// pngBuffer is the output buffer and IDAT chunk buffer of a PNG being
// written, kept between frames in pngBuffers: 320 KiB that a frame
// otherwise allocated anew.
type pngBuffer struct {
	w    *bufio.Writer
	idat []byte
}

var pngBuffers = sync.Pool{New: func() any {
	return &pngBuffer{w: bufio.NewWriterSize(nil, 64<<10), idat: make([]byte, 0, idatSize)}
}}

// zlibPool keeps zlib writers (and their window buffers) between frames.
var zlibPool = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// writePNG encodes r as a PNG to w. Every row gets the Sub filter (one
// subtraction per byte, the cheapest filter that helps photographs), and
// the rows are compressed at zlib's best speed: the frame rate, not the
// last percent of file size, matters for recordings of thousands of
// frames.
func writePNG(w io.Writer, r *raster) error {
	b := pngBuffers.Get().(*pngBuffer)
	defer func() {
		b.w.Reset(nil)
		pngBuffers.Put(b)
	}()
	bw := b.w
	bw.Reset(w)
	if _, err := bw.Write(pngSignature); err != nil {
		return err
	}
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(r.width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(r.height))
	ihdr[8] = byte(r.depth)
	ihdr[9] = r.color
	if err := writeChunk(bw, "IHDR", ihdr[:]); err != nil {
		return err
	}
	cw := &idatWriter{w: bw, buf: b.idat[:0]}
	z := zlibPool.Get().(*zlib.Writer)
	defer zlibPool.Put(z)
	z.Reset(cw)
	n := r.rowBytes()
	bpp := max(1, r.channels()*r.depth/8)
	cur := make([]byte, n)
	out := make([]byte, n+1)
	out[0] = 1 // Sub
	for y := 0; y < r.height; y++ {
		r.row(y, cur)
		copy(out[1:1+bpp], cur[:bpp])
		for i := bpp; i < n; i++ {
			out[1+i] = cur[i] - cur[i-bpp]
		}
		if _, err := z.Write(out); err != nil {
			return err
		}
	}
	if err := z.Close(); err != nil {
		return err
	}
	if err := cw.flush(); err != nil {
		return err
	}
	if err := writeChunk(bw, "IEND", nil); err != nil {
		return err
	}
	return bw.Flush()
}

// writeChunk writes one PNG chunk: length, type, data, CRC.
func writeChunk(w io.Writer, typ string, data []byte) error {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(hdr[4:8])
	crc.Write(data)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	for _, b := range [][]byte{hdr[:], data, sum[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// idatWriter cuts the zlib stream into IDAT chunks.
type idatWriter struct {
	w   io.Writer
	buf []byte
}

func (c *idatWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), idatSize-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == idatSize {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *idatWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	err := writeChunk(c.w, "IDAT", c.buf)
	c.buf = c.buf[:0]
	return err
}
