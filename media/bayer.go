package media

import "encoding/binary"

// demosaic interpolates a Bayer mosaic (pattern: the colours of a 2x2
// cell, top-left, top-right, bottom-left, bottom-right, as in
// bayer_rggb8) bilinearly, as OpenCV's cvtColor(COLOR_Bayer*2BGR) does:
// the missing colours of a pixel are the rounded means of its two or four
// nearest neighbours of that colour; the outermost rows and columns repeat
// their inner neighbours. It returns the row function of the RGB raster,
// 8 or 16 bits per sample.
func demosaic(w, h, depth int, pattern string, line func(y int) []byte, big bool) func(y int, dst []byte) {
	order := binary.ByteOrder(binary.LittleEndian)
	if big {
		order = binary.BigEndian
	}
	s := func(y, x int) int {
		y = min(max(y, 0), h-1)
		x = min(max(x, 0), w-1)
		if depth == 8 {
			return int(line(y)[x])
		}
		return int(order.Uint16(line(y)[2*x:]))
	}
	colour := func(y, x int) int {
		switch pattern[(y&1)*2+(x&1)] {
		case 'r':
			return 0
		case 'g':
			return 1
		}
		return 2
	}
	rgb := make([]uint16, w*h*3)
	for y := 0; y < h; y++ {
		yy := min(max(y, 1), max(h-2, 0))
		for x := 0; x < w; x++ {
			xx := min(max(x, 1), max(w-2, 0))
			px := rgb[(y*w+x)*3 : (y*w+x)*3+3]
			c := colour(yy, xx)
			px[c] = uint16(s(yy, xx))
			if c == 1 {
				px[colour(yy, xx+1)] = uint16((s(yy, xx-1) + s(yy, xx+1) + 1) >> 1)
				px[colour(yy+1, xx)] = uint16((s(yy-1, xx) + s(yy+1, xx) + 1) >> 1)
				continue
			}
			px[1] = uint16((s(yy-1, xx) + s(yy+1, xx) + s(yy, xx-1) + s(yy, xx+1) + 2) >> 2)
			px[2-c] = uint16((s(yy-1, xx-1) + s(yy-1, xx+1) + s(yy+1, xx-1) + s(yy+1, xx+1) + 2) >> 2)
		}
	}
	return func(y int, dst []byte) {
		src := rgb[y*w*3 : (y+1)*w*3]
		if depth == 8 {
			for i, v := range src {
				dst[i] = byte(v)
			}
			return
		}
		for i, v := range src {
			binary.BigEndian.PutUint16(dst[2*i:], v)
		}
	}
}
