package media

import (
	"errors"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// TestHostileFrames: frames whose layout does not fit their data are
// errors naming the file, topic, field and log time, never panics or
// allocations beyond the data.
func TestHostileFrames(t *testing.T) {
	img := func(enc string, w, h, step uint32, n int) *Frame {
		return &Frame{Kind: Image, Topic: "/cam", LogTime: 7, Source: "x.bag", Offset: 99, Field: "image",
			Encoding: enc, Width: w, Height: h, Step: step, Data: make([]byte, n)}
	}
	cloud := func(w, h, pointStep, rowStep uint32, n int, fields ...PointField) *Frame {
		return &Frame{Kind: Cloud, Topic: "/pts", LogTime: 8, Source: "x.bag", Offset: 5, Width: w, Height: h,
			PointStep: pointStep, Step: rowStep, Data: make([]byte, n), Fields: fields}
	}
	xyz := []PointField{{"x", 0, pfFloat32, 1}, {"y", 4, pfFloat32, 1}, {"z", 8, pfFloat32, 1}}
	for _, c := range []struct {
		name  string
		f     *Frame
		field string
		cause error
	}{
		{"data shorter than step x height", img("rgb8", 4, 4, 12, 40), "image.data", record.ErrLength},
		{"width 0", img("rgb8", 0, 4, 12, 48), "image.width", record.ErrFormat},
		{"step below width", img("rgb8", 4, 4, 8, 48), "image.step", record.ErrFormat},
		{"huge height", img("mono8", 1, 1<<30, 1, 10), "image.width", record.ErrFormat},
		{"unknown encoding", img("hsv8", 4, 4, 12, 48), "image.encoding", record.ErrUnsupported},
		{"odd yuv width", img("yuv422", 3, 2, 6, 12), "image.width", record.ErrFormat},
		{"huge point_step", cloud(2, 1, 1<<31, 0, 24, xyz...), "data", record.ErrLength},
		{"point_step 0", cloud(2, 1, 0, 0, 24, xyz...), "point_step", record.ErrFormat},
		{"field past point_step", cloud(2, 1, 8, 16, 24, xyz...), "fields[z].offset", record.ErrFormat},
		{"unknown datatype", cloud(1, 1, 12, 12, 12, PointField{"x", 0, 9, 1}), "fields[x].datatype", record.ErrFormat},
		{"row_step below width", cloud(2, 2, 12, 12, 48, xyz...), "row_step", record.ErrFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.f.Kind == Image {
				_, err = imageRaster(c.f, false)
			} else {
				_, err = writeCloud(&strings.Builder{}, c.f, cloudOptions{})
			}
			if err == nil {
				t.Fatal("no error")
			}
			err = frameError(c.f, err)
			var re *record.Error
			if !errors.As(err, &re) || !errors.Is(err, c.cause) {
				t.Fatalf("%v: not a *record.Error of %v", err, c.cause)
			}
			msg := err.Error()
			for _, want := range []string{"x.bag", "topic " + c.f.Topic, "field " + c.field + ":", "log time"} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q lacks %q", msg, want)
				}
			}
		})
	}
}

// TestCompressedExt: the extension comes from the bytes, then the format.
func TestCompressedExt(t *testing.T) {
	for _, c := range []struct {
		data   string
		format string
		want   string
	}{
		{"\xff\xd8\xff\xe0", "png", ".jpg"},
		{"\x89PNG\r\n\x1a\n", "jpeg", ".png"},
		{"RIFF\x00\x00\x00\x00WEBP", "", ".webp"},
		{"garbage", "rgb8; jpeg compressed bgr8", ".jpg"},
		{"garbage", "", ".bin"},
	} {
		if got := compressedExt([]byte(c.data), c.format); got != c.want {
			t.Errorf("%q %q: %s, want %s", c.data, c.format, got, c.want)
		}
	}
}

// TestNPYHeader: the header numpy writes for an array of the encoding:
// dtype, shape as cv_bridge gives it, padded to 64 bytes.
func TestNPYHeader(t *testing.T) {
	for _, c := range []struct {
		enc  string
		want string
	}{
		{"8SC1", "{'descr': '|i1', 'fortran_order': False, 'shape': (3, 2), }"},
		{"16SC3", "{'descr': '<i2', 'fortran_order': False, 'shape': (3, 2, 3), }"},
		{"32FC2", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2, 2), }"},
		{"64FC1", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }"},
		{"32FC1", ""},
		{"8SC5", ""},
		{"32UC1", ""},
	} {
		af, ok := arrayFormatOf(c.enc)
		if !ok {
			if c.want != "" {
				t.Errorf("%s: not an array encoding", c.enc)
			}
			continue
		}
		h := npyHeader(af, 2, 3)
		if len(h)%64 != 0 || string(h[:8]) != "\x93NUMPY\x01\x00" || int(h[8])|int(h[9])<<8 != len(h)-10 || h[len(h)-1] != '\n' {
			t.Errorf("%s: header %q", c.enc, h)
		}
		if got := strings.TrimRight(string(h[10:]), " \n"); got != c.want {
			t.Errorf("%s: %s, want %s", c.enc, got, c.want)
		}
	}
}
