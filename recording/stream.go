package recording

import (
	"fmt"
	"io"
	"os"

	"github.com/baglab/baglab/record"
)

// Stdin is the path that stands for standard input in OpenInputs ("-", as
// in `baglab cat - < run.bag`).
const Stdin = "-"

// OpenStream reads a recording from r, a stream read once from front to
// back and never seeked (standard input, a pipe, a socket): a ROS1 bag —
// indexed, or unindexed as a crashed recorder leaves a .bag.active — or an
// MCAP file, told apart by their magic. The bytes go to an unlinked
// temporary file as they arrive, so memory stays flat whatever the size
// and nothing is left behind; the recording is then read as OpenWith
// reads a file (the same message order, errors and skip-bad), name
// standing for its path in errors and in Message.Source. Reading the
// messages starts when r ends. A rosbag2 .db3 database cannot come this
// way (sqlite reads a named file).
func OpenStream(r io.Reader, name string, o OpenOptions) (record.Reader, error) {
	f, err := os.CreateTemp("", "baglab-stream-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // the open file stays readable; no name is left behind
	size, err := io.Copy(f, r)
	if err != nil {
		f.Close()
		return nil, &InputError{Path: name, Err: err}
	}
	rr, err := OpenReaderAt(f, size, name, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &streamReader{Reader: rr, f: f}, nil
}

// OpenReaderAt reads the recording held in the size bytes of ra (a file
// held open, a spooled stream, a remote source that reads ranges), its
// format told by its first bytes as Sniff tells a file's; name stands for
// its path in errors and in Message.Source. It reads as OpenWith reads a
// file (the same message order, errors and skip-bad); ra must stay
// readable until the reader is closed, and closing the reader does not
// close ra. A format that needs a named file (a rosbag2 .db3 database:
// sqlite reads a named file) is record.ErrUnsupported.
func OpenReaderAt(ra io.ReaderAt, size int64, name string, o OpenOptions) (record.Reader, error) {
	head := make([]byte, min(size, 16))
	if n, err := ra.ReadAt(head, 0); err != nil && (err != io.EOF || n < len(head)) {
		return nil, err
	}
	format, err := sniffBytes(name, head)
	if err != nil {
		return nil, err
	}
	c, _ := formatRow(format)
	if c.reader == nil {
		return nil, &record.Error{File: name, Offset: 0, Err: record.ErrUnsupported,
			Detail: fmt.Sprintf("a %s recording cannot be read from a stream (%s): give its path", format, c.noReader)}
	}
	return c.reader(ra, size, name, o)
}

// streamReader is a recording read from a stream, held in its temporary
// file.
type streamReader struct {
	record.Reader
	f *os.File
}

// Unwrap returns the format's reader.
func (s *streamReader) Unwrap() record.Reader { return s.Reader }

// Close closes the reader and its temporary file; idempotent.
func (s *streamReader) Close() error {
	err := s.Reader.Close()
	if s.f != nil {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
		s.f = nil
	}
	return err
}
