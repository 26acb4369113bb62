package decode

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/baglab/baglab/decode/bag"
	"github.com/baglab/baglab/decode/mcapfile"
	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/internal/atomicfile"
)

// OutputFormat returns the format a path's extension asks for.
func OutputFormat(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".bag":
		return FormatBag, nil
	case ".mcap":
		return FormatMCAP, nil
	}
	return "", fmt.Errorf("output %s: unknown extension (want .bag or .mcap)", path)
}

// CreateOptions configure a new recording.
type CreateOptions struct {
	// Compression is "none", "lz4", "bz2" (bag) or "zstd" (MCAP); "" picks
	// the format's default: none for bags (as rosbag), zstd for MCAP.
	Compression string
	// Profile is the MCAP profile ("ros1", "ros2"); "" leaves it empty.
	Profile string
}

// Writer is a recording being written: Close finishes it and renames it into
// place, Abort removes it.
type Writer interface {
	record.Writer
	Abort()
}

// CheckCompression reports whether c names a compression of format ("" is
// the format's default).
func CheckCompression(format Format, c string) error {
	switch format {
	case FormatBag:
		switch c {
		case "", "none", "lz4", "bz2":
			return nil
		}
		return fmt.Errorf("bag compression %q: want none, lz4 or bz2", c)
	default:
		switch c {
		case "", "none", "lz4", "zstd":
			return nil
		}
		return fmt.Errorf("MCAP compression %q: want zstd, lz4 or none", c)
	}
}

// Create starts a recording at path in the format its extension names,
// creating missing parent directories (atomicfile.MkdirAll). The file is written under a
// temporary name and appears only on Close.
func Create(path string, o CreateOptions) (Writer, error) {
	format, err := OutputFormat(path)
	if err != nil {
		return nil, err
	}
	if err := CheckCompression(format, o.Compression); err != nil {
		return nil, err
	}
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	switch format {
	case FormatBag:
		c := bag.CompressionNone
		switch o.Compression {
		case "", "none":
		case "lz4":
			c = bag.CompressionLZ4
		case "bz2":
			c = bag.CompressionBZ2
		}
		w, err := bag.Create(path, bag.WithCompression(c))
		if err != nil {
			return nil, err
		}
		return bagWriter{w}, nil
	default:
		c := o.Compression
		if c == "" {
			c = "zstd"
		}
		opts := []mcapfile.WriterOption{mcapfile.WithCompression(c)}
		if o.Profile != "" {
			opts = append(opts, mcapfile.WithProfile(o.Profile))
		}
		return mcapfile.Create(path, opts...)
	}
}

type bagWriter struct{ *bag.Writer }

func (w bagWriter) Abort() { _ = w.Writer.Abort() }
