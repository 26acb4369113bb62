package media

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// arrayFormat is the sample type of an Image encoding that no PNG sample
// format holds (signed integers, floats of more than one channel, 64-bit
// floats): such images are written as NumPy arrays.
type arrayFormat struct {
	channels int
	size     int  // bytes per sample
	kind     byte // 'i' signed integer, 'f' float
}

// arrayFormatOf is the array layout of an Image encoding: 8SCn, 16SCn,
// 32SCn, 32FCn (n > 1; 32FC1 is depth, written as PNG) and 64FCn, n =
// 1..4 ("8SC" alone is one channel), as sensor_msgs/image_encodings and
// cv_bridge name them.
func arrayFormatOf(enc string) (arrayFormat, bool) {
	for _, t := range []struct {
		prefix string
		size   int
		kind   byte
	}{{"8SC", 1, 'i'}, {"16SC", 2, 'i'}, {"32SC", 4, 'i'}, {"32FC", 4, 'f'}, {"64FC", 8, 'f'}} {
		rest, ok := strings.CutPrefix(enc, t.prefix)
		if !ok {
			continue
		}
		n := 1
		if rest != "" {
			if len(rest) != 1 || rest[0] < '1' || rest[0] > '4' {
				return arrayFormat{}, false
			}
			n = int(rest[0] - '0')
		}
		if t.prefix == "32FC" && n == 1 {
			return arrayFormat{}, false
		}
		return arrayFormat{channels: n, size: t.size, kind: t.kind}, true
	}
	return arrayFormat{}, false
}

// npyHeader is the header of a NumPy array file (format version 1.0) of
// h rows of w pixels of af, little-endian, in C order: shape (h, w) for
// one channel and (h, w, channels) otherwise, as cv_bridge's
// imgmsg_to_cv2 gives the image. The header is padded with spaces to a
// multiple of 64 bytes, as numpy writes it.
func npyHeader(af arrayFormat, w, h int) []byte {
	order := "<"
	if af.size == 1 {
		order = "|"
	}
	shape := fmt.Sprintf("(%d, %d)", h, w)
	if af.channels > 1 {
		shape = fmt.Sprintf("(%d, %d, %d)", h, w, af.channels)
	}
	dict := fmt.Sprintf("{'descr': '%s%c%d', 'fortran_order': False, 'shape': %s, }", order, af.kind, af.size, shape)
	n := 10 + len(dict) + 1
	pad := (64 - n%64) % 64
	b := make([]byte, 10, n+pad)
	copy(b, "\x93NUMPY\x01\x00")
	binary.LittleEndian.PutUint16(b[8:], uint16(len(dict)+pad+1))
	b = append(b, dict...)
	b = append(b, strings.Repeat(" ", pad)...)
	return append(b, '\n')
}

// npyArray checks f, an Image of an array encoding, and returns what
// writes it as a .npy file: its samples row by row, without the rows'
// padding, byte-swapped to little-endian when the message is big-endian.
func npyArray(f *Frame, af arrayFormat) (func(io.Writer) error, error) {
	w, h, line, err := imageRows(f, af.channels*af.size)
	if err != nil {
		return nil, err
	}
	return func(out io.Writer) error {
		bw := bufio.NewWriterSize(out, 64<<10)
		if _, err := bw.Write(npyHeader(af, w, h)); err != nil {
			return err
		}
		var swapped []byte
		if f.BigEndian && af.size > 1 {
			swapped = make([]byte, w*af.channels*af.size)
		}
		for y := 0; y < h; y++ {
			row := line(y)
			if swapped != nil {
				for i := 0; i < len(row); i += af.size {
					for k := 0; k < af.size; k++ {
						swapped[i+k] = row[i+af.size-1-k]
					}
				}
				row = swapped
			}
			if _, err := bw.Write(row); err != nil {
				return err
			}
		}
		return bw.Flush()
	}, nil
}
