package media

import (
	"encoding/binary"
	"fmt"
)

// RVL is the lossless depth coding of A. D. Wilson, "Fast Lossless Depth
// Image Compression" (ISS 2017), as compressed_depth_image_transport's
// "compressedDepth rvl" format stores it after its ConfigHeader:
//
//	uint32 cols, uint32 rows            little-endian
//	32-bit little-endian words          4-bit codes, high nibble first
//
// The pixels (16-bit, row by row) are coded as pairs of runs: the number
// of zeros, the number of non-zeros that follow, then each non-zero as
// the zigzag of its difference to the previous non-zero (mod 2^16; the
// previous starts at 0 and runs on across zero runs). Every number is a
// variable-length code of 3-bit groups, lowest group first, in nibbles
// whose top bit says that another follows. The last word is padded with
// zero nibbles.

// rvlHeader is the size of the image size before the RVL words.
const rvlHeader = 8

// maxRVLSide bounds an RVL image's width and height: a row (what
// decoding holds) stays small, and so does the number of rows, whatever
// the header claims.
const maxRVLSide = 1 << 16

// rvlReader decodes an RVL stream pixel by pixel.
type rvlReader struct {
	data    []byte // words not yet loaded
	word    uint32
	nibbles int    // nibbles left in word
	prev    uint16 // the last non-zero pixel
	left    int    // pixels of the image not yet decoded
	zeros   int    // pixels left in the current zero run
	values  int    // pixels left in the current non-zero run
	at      int    // offset of data in the message's data, for errors
}

// newRVL reads the size of an RVL image b, found at offset base of a
// message's data, and returns a reader of its pixels: at most
// maxDepthPixels, at most maxRVLSide wide and high.
func newRVL(b []byte, base int) (r *rvlReader, width, height int, err error) {
	if len(b) < rvlHeader {
		return nil, 0, 0, fmt.Errorf("%d bytes, less than RVL's %d-byte image size", len(b), rvlHeader)
	}
	w, h := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	if w == 0 || h == 0 || w > maxRVLSide || h > maxRVLSide || uint64(w)*uint64(h) > maxDepthPixels {
		return nil, 0, 0, fmt.Errorf("RVL image of %d x %d pixels", w, h)
	}
	width, height = int(w), int(h)
	return &rvlReader{data: b[rvlHeader:], left: width * height, at: base + rvlHeader}, width, height, nil
}

// vle reads one variable-length number. Numbers of more than 30 bits are
// refused: no count or difference of a 16-bit image needs them.
func (r *rvlReader) vle() (int, error) {
	v := 0
	for shift := 0; ; shift += 3 {
		if r.nibbles == 0 {
			if len(r.data) < 4 {
				return 0, fmt.Errorf("RVL stream ends at byte %d with %d pixels to go", r.at+len(r.data), r.left+r.zeros+r.values)
			}
			r.word = binary.LittleEndian.Uint32(r.data)
			r.data, r.at, r.nibbles = r.data[4:], r.at+4, 8
		}
		n := r.word >> 28
		r.word <<= 4
		r.nibbles--
		if shift == 30 {
			return 0, fmt.Errorf("RVL number of more than 30 bits in the word at byte %d", r.at-4)
		}
		v |= int(n&7) << shift
		if n&8 == 0 {
			return v, nil
		}
	}
}

// read decodes the next len(dst) pixels into dst; with dst nil it checks
// and passes over n pixels instead.
func (r *rvlReader) read(dst []uint16, n int) error {
	if dst != nil {
		n = len(dst)
	}
	for i := 0; i < n; {
		if r.zeros == 0 && r.values == 0 {
			z, err := r.vle()
			if err != nil {
				return err
			}
			nz, err := r.vle()
			if err != nil {
				return err
			}
			if z > r.left || nz > r.left-z {
				return fmt.Errorf("RVL runs of %d zeros and %d values before byte %d, but %d pixels are left", z, nz, r.at, r.left)
			}
			r.zeros, r.values, r.left = z, nz, r.left-z-nz
		}
		k := min(n-i, r.zeros)
		if dst != nil {
			clear(dst[i : i+k])
		}
		i, r.zeros = i+k, r.zeros-k
		for ; i < n && r.zeros == 0 && r.values > 0; i, r.values = i+1, r.values-1 {
			u, err := r.vle()
			if err != nil {
				return err
			}
			r.prev += uint16(u>>1) ^ -uint16(u&1)
			if dst != nil {
				dst[i] = r.prev
			}
		}
	}
	return nil
}

// rvlPixels checks the RVL image b (at offset base of the message's
// data) and returns its size and a function
// that decodes its row y: rows are decoded in turn from one reader (the
// PNG encoder's order), and from the start again when y goes back, so
// that memory stays at one row.
func rvlPixels(b []byte, base int) (width, height int, row func(y int, dst []uint16), err error) {
	r, w, h, err := newRVL(b, base)
	if err != nil {
		return 0, 0, nil, err
	}
	if err := r.read(nil, w*h); err != nil {
		return 0, 0, nil, err
	}
	next := h // rewind at the first row asked for
	row = func(y int, dst []uint16) {
		if y != next {
			r, _, _, _ = newRVL(b, base)
			_ = r.read(nil, y*w) // checked above
		}
		_ = r.read(dst[:w], 0)
		next = y + 1
	}
	return w, h, row, nil
}
