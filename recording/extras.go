package recording

import (
	"errors"
	"fmt"
	"io"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/mcapfile"
)

// Metadata is one named map of strings stored in a recording (MCAP).
type Metadata = mcapfile.Metadata

// Attachment describes one file stored in a recording (MCAP).
type Attachment = mcapfile.Attachment

// extrasReader is a reader of a format that stores metadata and
// attachments beside the messages.
type extrasReader interface {
	Metadata() ([]mcapfile.Metadata, error)
	Attachments() ([]mcapfile.Attachment, error)
	AttachmentData(mcapfile.Attachment) *io.SectionReader
}

// extrasWriter is a writer of a format that stores them.
type extrasWriter interface {
	AddMetadata(name string, m map[string]string) error
	AddAttachment(name, mediaType string, logTime, createTime uint64, data []byte) error
}

// parts lists the single-file readers behind r (the splits of a rosbag2
// folder; the format's reader of a stream or a URL), or r itself.
func parts(r record.Reader) []record.Reader {
	switch x := r.(type) {
	case *multiReader:
		var out []record.Reader
		for _, p := range x.readers {
			out = append(out, parts(p)...)
		}
		return out
	case interface{ Unwrap() record.Reader }:
		return parts(x.Unwrap())
	}
	return []record.Reader{r}
}

// Extras returns the metadata and attachments r stores, from every file
// of a rosbag2 folder in split order; none for formats without them.
func Extras(r record.Reader) ([]Metadata, []Attachment, error) {
	var mds []Metadata
	var atts []Attachment
	for _, p := range parts(r) {
		x, ok := p.(extrasReader)
		if !ok {
			continue
		}
		m, err := x.Metadata()
		if err != nil {
			return nil, nil, err
		}
		a, err := x.Attachments()
		if err != nil {
			return nil, nil, err
		}
		mds, atts = append(mds, m...), append(atts, a...)
	}
	return mds, atts, nil
}

// CopyExtras copies the metadata and attachments of src into dst when
// dst's format can hold them (MCAP); it does nothing otherwise.
func CopyExtras(dst Writer, src record.Reader) error {
	w, ok := dst.(extrasWriter)
	if !ok {
		return nil
	}
	for _, p := range parts(src) {
		x, ok := p.(extrasReader)
		if !ok {
			continue
		}
		mds, err := x.Metadata()
		if err != nil {
			return err
		}
		for _, md := range mds {
			if err := w.AddMetadata(md.Name, md.Metadata); err != nil {
				return err
			}
		}
		atts, err := x.Attachments()
		if err != nil {
			return err
		}
		for _, a := range atts {
			data, err := io.ReadAll(x.AttachmentData(a))
			if err != nil {
				return errors.Join(fmt.Errorf("attachment %s", a.Name), err)
			}
			if err := w.AddAttachment(a.Name, a.MediaType, a.LogTime, a.CreateTime, data); err != nil {
				return err
			}
		}
	}
	return nil
}
