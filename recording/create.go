package recording

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
	"github.com/baglab/baglab/recording/rosbag2"
)

// OutputFormat returns the format a path's extension asks for.
func OutputFormat(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	var want []string
	for _, c := range formats() {
		for _, x := range c.createExts {
			if ext == x {
				return c.format, nil
			}
			want = append(want, x)
		}
	}
	return "", fmt.Errorf("output %s: unknown extension (want %s)", path, orList(want))
}

// CreateOptions configure a new recording.
type CreateOptions struct {
	// Compression is "none", "lz4", "bz2" (bag) or "zstd" (MCAP); "" picks
	// the format's default: none for bags (as rosbag), zstd for MCAP, none
	// for the MCAP chunks of a rosbag2 folder (as rosbag2 writes them).
	Compression string
	// Profile is the MCAP profile ("ros1", "ros2"); "" leaves it empty.
	Profile string
	// Format, when set, is the format to write whatever path's extension
	// (FormatROS2, a folder, has none).
	Format Format
	// ROS2 configures a FormatROS2 folder (its storage, splits and
	// compression mode); Compression applies to its MCAP chunks.
	ROS2 rosbag2.Options
	// Sync has Close wait until the recording is on disk before renaming
	// it into place, so that a power cut can leave it missing but never
	// short (bag.WithSync, mcapfile.WithSync, rosbag2.Options.Sync).
	Sync bool
}

// Writer is a recording being written: Close finishes it and renames it into
// place, Abort removes it. When Close fails, or on Abort, the folders Create
// made for it go again if they are empty.
type Writer interface {
	record.Writer
	Abort()
}

// CheckCompression reports whether c names a compression of format ("" is
// the format's default).
func CheckCompression(format Format, c string) error {
	row, ok := formatRow(format)
	if !ok || row.create == nil {
		return fmt.Errorf("%s: baglab does not write this format", format)
	}
	if c == "" || slices.Contains(row.compressions, c) {
		return nil
	}
	return fmt.Errorf("%s compression %q: want %s", row.label, c, orList(row.compressions))
}

// Create starts a recording at path in the format its extension names,
// creating missing parent directories (atomicfile.DirSet: 0777 less the
// umask). The file is written under a temporary name and appears only on
// Close. When Create fails, when Close fails and on Abort, it removes the
// folders it made that are empty again, never a folder that was there
// before.
func Create(path string, o CreateOptions) (Writer, error) {
	format := o.Format
	if format == "" {
		var err error
		if format, err = OutputFormat(path); err != nil {
			return nil, err
		}
	}
	if err := CheckCompression(format, o.Compression); err != nil {
		return nil, err
	}
	row, _ := formatRow(format)
	if o.Compression == "" {
		o.Compression = row.compressions[0]
	}
	return inNewFolders(path, func(made *atomicfile.DirSet) (Writer, error) {
		return row.create(path, o, made)
	})
}

// inNewFolders creates the missing folders of path, recording them in a
// DirSet, and calls write with it. When write fails, it removes those of
// the folders that are empty again (never one that was there before) and
// returns write's error. Create and Repair write their outputs through it.
func inNewFolders[T any](path string, write func(made *atomicfile.DirSet) (T, error)) (T, error) {
	var zero T
	made := &atomicfile.DirSet{}
	if err := made.MkdirAll(filepath.Dir(path)); err != nil {
		return zero, err
	}
	v, err := write(made)
	if err != nil {
		made.RemoveEmpty()
		return zero, err
	}
	return v, nil
}

// madeDirs are the folders Create made for a recording.
type madeDirs struct{ made *atomicfile.DirSet }

// closed removes the folders, when empty, if Close failed (err), and
// forgets them once the recording is in place; it returns err.
func (d *madeDirs) closed(err error) error {
	if err != nil {
		d.aborted()
	}
	d.made = nil
	return err
}

// aborted removes the folders that are empty, unless the recording was
// closed.
func (d *madeDirs) aborted() {
	if d.made != nil {
		d.made.RemoveEmpty()
		d.made = nil
	}
}

// bagWriter is a ROS1 bag made by Create.
type bagWriter struct {
	*bag.Writer
	dirs madeDirs
}

func (w *bagWriter) Close() error { return w.dirs.closed(w.Writer.Close()) }

func (w *bagWriter) Abort() {
	_ = w.Writer.Abort()
	w.dirs.aborted()
}

// mcapWriter is an MCAP file made by Create; it takes metadata and
// attachments (mcapfile.Writer's AddMetadata and AddAttachment).
type mcapWriter struct {
	*mcapfile.Writer
	dirs madeDirs
}

func (w *mcapWriter) Close() error { return w.dirs.closed(w.Writer.Close()) }

func (w *mcapWriter) Abort() {
	w.Writer.Abort()
	w.dirs.aborted()
}
