package media

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/baglab/baglab/record"
)

// CloudFormat is the file format clouds are written in.
type CloudFormat uint8

// The cloud formats.
const (
	// PCD is PCL's Point Cloud Data format, version 0.7.
	PCD CloudFormat = iota
	// PLY is the Stanford polygon format, vertices only.
	PLY
)

// Ext is the file extension of the format.
func (c CloudFormat) Ext() string {
	if c == PLY {
		return ".ply"
	}
	return ".pcd"
}

// ParseCloudFormat parses "pcd" or "ply".
func ParseCloudFormat(s string) (CloudFormat, error) {
	switch s {
	case "pcd":
		return PCD, nil
	case "ply":
		return PLY, nil
	}
	return 0, fmt.Errorf("unknown cloud format %q (want pcd or ply)", s)
}

// cloudLayout is a checked PointCloud2: its fields in offset order, with
// the size of one element, and where each point starts.
type cloudLayout struct {
	f      *Frame
	fields []PointField // in offset order, Count at least 1
	sizes  []int
	order  binary.ByteOrder
	xyz    []int // indexes in fields of x, y and z when all three are floats
	points int
}

// layoutOf checks f, a PointCloud2, against its data.
func layoutOf(f *Frame) (*cloudLayout, error) {
	l := &cloudLayout{f: f, order: binary.LittleEndian}
	if f.BigEndian {
		l.order = binary.BigEndian
	}
	n := uint64(f.Width) * uint64(f.Height)
	if n > 0 {
		if f.PointStep == 0 {
			return nil, bad("point_step", record.ErrFormat, "point_step 0 for %d points", n)
		}
		rowLen := uint64(f.Width) * uint64(f.PointStep)
		if f.Height > 1 && uint64(f.Step) < rowLen {
			return nil, bad("row_step", record.ErrFormat, "row_step %d is less than width %d x point_step %d = %d", f.Step, f.Width, f.PointStep, rowLen)
		}
		need := uint64(f.Step)*uint64(f.Height-1) + rowLen
		if uint64(len(f.Data)) < need {
			return nil, bad("data", record.ErrLength, "%d bytes, but %d x %d points of point_step %d (row_step %d) need %d",
				len(f.Data), f.Width, f.Height, f.PointStep, f.Step, need)
		}
	}
	l.points = int(n)
	fields := slices.Clone(f.Fields)
	slices.SortStableFunc(fields, func(a, b PointField) int { return int(a.Offset) - int(b.Offset) })
	if len(fields) == 0 && n > 0 {
		return nil, bad("fields", record.ErrFormat, "a cloud of %d points has no fields", n)
	}
	seen := map[string]bool{}
	for i := range fields {
		fd := &fields[i]
		size := pfSize(fd.Datatype)
		if size == 0 {
			return nil, bad(fmt.Sprintf("fields[%s].datatype", fd.Name), record.ErrFormat, "unknown PointField datatype %d", fd.Datatype)
		}
		if fd.Count == 0 {
			fd.Count = 1 // a count of 0 is written by some drivers for one element
		}
		if uint64(fd.Offset)+uint64(size)*uint64(fd.Count) > uint64(f.PointStep) {
			return nil, bad(fmt.Sprintf("fields[%s].offset", fd.Name), record.ErrFormat, "field of %d x %d bytes at offset %d passes point_step %d",
				fd.Count, size, fd.Offset, f.PointStep)
		}
		fd.Name = fieldName(fd.Name, i)
		for seen[fd.Name] {
			fd.Name += "_"
		}
		seen[fd.Name] = true
		l.sizes = append(l.sizes, size)
	}
	l.fields = fields
	for _, name := range []string{"x", "y", "z"} {
		for i, fd := range fields {
			if fd.Name == name && fd.Count == 1 && (fd.Datatype == pfFloat32 || fd.Datatype == pfFloat64) {
				l.xyz = append(l.xyz, i)
				break
			}
		}
	}
	if len(l.xyz) != 3 {
		l.xyz = nil
	}
	return l, nil
}

// fieldName makes a field name fit a PCD/PLY header: no white space,
// never empty.
func fieldName(name string, i int) string {
	name = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, name)
	if name == "" {
		return fmt.Sprintf("field%d", i)
	}
	return name
}

// packed reports whether the points are little-endian with their fields
// in offset order, one after the other, filling point_step: as PCD's
// binary data lays them out.
func (l *cloudLayout) packed() bool {
	if l.f.BigEndian {
		return false
	}
	at := uint32(0)
	for i, fd := range l.fields {
		if fd.Offset != at {
			return false
		}
		at += uint32(l.sizes[i]) * fd.Count
	}
	return at == l.f.PointStep
}

// point returns the bytes of the i-th point.
func (l *cloudLayout) point(i int) []byte {
	w := int(l.f.Width)
	start := (i/w)*int(l.f.Step) + (i%w)*int(l.f.PointStep)
	return l.f.Data[start : start+int(l.f.PointStep)]
}

// isNaN reports whether a point has a NaN coordinate (PCL's
// removeNaNFromPointCloud test).
func (l *cloudLayout) isNaN(p []byte) bool {
	for _, i := range l.xyz {
		fd := l.fields[i]
		if fd.Datatype == pfFloat32 {
			if v := math.Float32frombits(l.order.Uint32(p[fd.Offset:])); v != v {
				return true
			}
		} else if v := math.Float64frombits(l.order.Uint64(p[fd.Offset:])); v != v {
			return true
		}
	}
	return false
}

// cloudOptions are how clouds are written.
type cloudOptions struct {
	format  CloudFormat
	ascii   bool
	dropNaN bool
}

// writeCloud writes f, a PointCloud2, and returns the number of points
// written.
func writeCloud(w io.Writer, f *Frame, o cloudOptions) (int, error) {
	l, err := layoutOf(f)
	if err != nil {
		return 0, err
	}
	keep := func(int) bool { return true }
	n := l.points
	width, height := int(f.Width), int(f.Height)
	if o.dropNaN && l.xyz != nil {
		n = 0
		for i := 0; i < l.points; i++ {
			if !l.isNaN(l.point(i)) {
				n++
			}
		}
		if n != l.points {
			keep = func(i int) bool { return !l.isNaN(l.point(i)) }
			width, height = n, 1
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if o.format == PLY {
		err = l.writePLY(bw, n, keep)
	} else {
		err = l.writePCD(bw, n, width, height, o.ascii, keep)
	}
	if err != nil {
		return 0, err
	}
	return n, bw.Flush()
}

func (l *cloudLayout) writePCD(w *bufio.Writer, n, width, height int, ascii bool, keep func(int) bool) error {
	var names, sizes, types, counts []string
	for i, fd := range l.fields {
		names = append(names, fd.Name)
		sizes = append(sizes, strconv.Itoa(l.sizes[i]))
		if ascii && asciiRGB(fd) {
			types = append(types, "U") // the integer appendASCII writes, as PCL's generateHeaderASCII
		} else {
			types = append(types, pcdType(fd.Datatype))
		}
		counts = append(counts, strconv.FormatUint(uint64(fd.Count), 10))
	}
	data := "binary"
	if ascii {
		data = "ascii"
	}
	fmt.Fprintf(w, "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS %s\nSIZE %s\nTYPE %s\nCOUNT %s\n"+
		"WIDTH %d\nHEIGHT %d\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %d\nDATA %s\n",
		strings.Join(names, " "), strings.Join(sizes, " "), strings.Join(types, " "), strings.Join(counts, " "),
		width, height, n, data)
	if !ascii && n == l.points && l.packed() {
		// the points are PCD's binary data already: one write per row
		rowLen := int(l.f.Width) * int(l.f.PointStep)
		for y := 0; y < int(l.f.Height) && n > 0; y++ {
			if _, err := w.Write(l.f.Data[y*int(l.f.Step) : y*int(l.f.Step)+rowLen]); err != nil {
				return err
			}
		}
		return nil
	}
	var buf []byte
	for i := 0; i < l.points; i++ {
		if !keep(i) {
			continue
		}
		p := l.point(i)
		buf = buf[:0]
		if ascii {
			buf = l.appendASCII(buf, p)
		} else {
			buf = l.appendBinary(buf, p)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// pcdType is the PCD TYPE letter of a datatype.
func pcdType(dt uint8) string {
	switch dt {
	case pfFloat32, pfFloat64:
		return "F"
	case pfInt8, pfInt16, pfInt32:
		return "I"
	}
	return "U"
}

// appendBinary appends a point's fields, little-endian and without
// padding, as PCD's binary data holds them.
func (l *cloudLayout) appendBinary(dst, p []byte) []byte {
	for i, fd := range l.fields {
		size := l.sizes[i]
		src := p[fd.Offset : int(fd.Offset)+size*int(fd.Count)]
		if l.order == binary.ByteOrder(binary.LittleEndian) || size == 1 {
			dst = append(dst, src...)
			continue
		}
		for k := 0; k < len(src); k += size {
			for b := size - 1; b >= 0; b-- {
				dst = append(dst, src[k+b])
			}
		}
	}
	return dst
}

// asciiRGB reports whether a field is a packed "rgb" float, which PCL's
// ASCII writer writes as the unsigned integer of its bits, of TYPE U
// (several opaque colours are NaN as floats).
func asciiRGB(fd PointField) bool { return fd.Name == "rgb" && fd.Datatype == pfFloat32 }

// appendASCII appends a point's fields as text, one line, packed "rgb"
// floats as integers (see asciiRGB).
func (l *cloudLayout) appendASCII(dst, p []byte) []byte {
	first := true
	for i, fd := range l.fields {
		size := l.sizes[i]
		for k := 0; k < int(fd.Count); k++ {
			if !first {
				dst = append(dst, ' ')
			}
			first = false
			b := p[int(fd.Offset)+k*size:]
			dt := fd.Datatype
			if asciiRGB(fd) {
				dt = pfUint32
			}
			dst = l.appendValue(dst, b, dt)
		}
	}
	return append(dst, '\n')
}

func (l *cloudLayout) appendValue(dst, b []byte, dt uint8) []byte {
	switch dt {
	case pfInt8:
		return strconv.AppendInt(dst, int64(int8(b[0])), 10)
	case pfUint8:
		return strconv.AppendUint(dst, uint64(b[0]), 10)
	case pfInt16:
		return strconv.AppendInt(dst, int64(int16(l.order.Uint16(b))), 10)
	case pfUint16:
		return strconv.AppendUint(dst, uint64(l.order.Uint16(b)), 10)
	case pfInt32:
		return strconv.AppendInt(dst, int64(int32(l.order.Uint32(b))), 10)
	case pfUint32:
		return strconv.AppendUint(dst, uint64(l.order.Uint32(b)), 10)
	case pfFloat32:
		return appendFloat(dst, float64(math.Float32frombits(l.order.Uint32(b))), 32)
	}
	return appendFloat(dst, math.Float64frombits(l.order.Uint64(b)), 64)
}

// appendFloat writes the shortest decimal that reads back as the same
// value, "nan" and "inf"/"-inf" as PCL writes them.
func appendFloat(dst []byte, v float64, bits int) []byte {
	switch {
	case v != v:
		return append(dst, "nan"...)
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bits)
}

// writePLY writes the cloud as a binary little-endian PLY: one vertex
// property per field element (name_0, name_1 … for counts above one), and
// packed rgb/rgba as red, green, blue (and alpha) bytes, as PCL's
// pcl_pcd2ply writes them.
func (l *cloudLayout) writePLY(w *bufio.Writer, n int, keep func(int) bool) error {
	fmt.Fprintf(w, "ply\nformat binary_little_endian 1.0\ncomment written by baglab\nelement vertex %d\n", n)
	for i, fd := range l.fields {
		if packedColour(fd, l.sizes[i]) {
			for _, c := range []string{"red", "green", "blue"} {
				fmt.Fprintf(w, "property uchar %s\n", c)
			}
			if fd.Name == "rgba" {
				fmt.Fprintf(w, "property uchar alpha\n")
			}
			continue
		}
		for k := 0; k < int(fd.Count); k++ {
			name := fd.Name
			if fd.Count > 1 {
				name = fmt.Sprintf("%s_%d", fd.Name, k)
			}
			fmt.Fprintf(w, "property %s %s\n", plyType(fd.Datatype), name)
		}
	}
	fmt.Fprintf(w, "end_header\n")
	var buf []byte
	for i := 0; i < l.points; i++ {
		if !keep(i) {
			continue
		}
		p := l.point(i)
		buf = buf[:0]
		for j, fd := range l.fields {
			if packedColour(fd, l.sizes[j]) {
				c := l.order.Uint32(p[fd.Offset:])
				buf = append(buf, byte(c>>16), byte(c>>8), byte(c))
				if fd.Name == "rgba" {
					buf = append(buf, byte(c>>24))
				}
				continue
			}
			size := l.sizes[j]
			src := p[fd.Offset : int(fd.Offset)+size*int(fd.Count)]
			for k := 0; k < len(src); k += size {
				for b := 0; b < size; b++ {
					if l.order == binary.ByteOrder(binary.BigEndian) {
						buf = append(buf, src[k+size-1-b])
					} else {
						buf = append(buf, src[k+b])
					}
				}
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// packedColour reports whether a field is PCL's packed colour: rgb or
// rgba, one 4-byte element (0xAARRGGBB).
func packedColour(fd PointField, size int) bool {
	return (fd.Name == "rgb" || fd.Name == "rgba") && size == 4 && fd.Count == 1
}

func plyType(dt uint8) string {
	return [...]string{"", "char", "uchar", "short", "ushort", "int", "uint", "float", "double"}[dt]
}
