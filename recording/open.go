package recording

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/remote"
)

// Sniff reports the format of the file at path from its first bytes. A
// directory is a rosbag2 folder (db3 or MCAP storage, see metadata.yaml).
func Sniff(path string) (Format, error) {
	if remote.IsURL(path) {
		return sniffURL(path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return sniffDir(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	return sniffBytes(path, head[:n])
}

func sniffBytes(path string, head []byte) (Format, error) {
	var what []string
	for _, c := range formats() {
		if c.magic != nil && bytes.HasPrefix(head, c.magic) {
			return c.format, nil
		}
		what = append(what, c.what)
	}
	switch {
	case len(head) == 0:
		return "", &record.Error{File: path, Offset: 0, Err: record.ErrTruncated, Detail: "empty file"}
	case bytes.HasPrefix(head, []byte("#ROSBAG V")):
		return "", &record.Error{File: path, Offset: 0, Err: record.ErrUnsupported,
			Detail: fmt.Sprintf("bag version %q (only 2.0 is supported)", bytes.TrimSpace(head[:min(len(head), 14)]))}
	}
	return "", &record.Error{File: path, Offset: 0, Err: record.ErrFormat,
		Detail: "not a recording: expected " + orList(what)}
}

// sniffDir recognises a rosbag2 folder by its metadata.yaml storage
// identifier, or without one by its split files (see IsBag2Folder). Any
// other folder is not one recording (Expand lists the recordings in it).
func sniffDir(dir string) (Format, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return sniffBag2(dir, filepath.Join(dir, "metadata.yaml"), names, func() (*db3.Bag2Metadata, error) { return db3.ReadBag2Metadata(dir) })
}

// sniffBag2 is sniffDir of the folder where, from the names of its files
// and, when it has one, its metadata.yaml (metaFile, which meta reads).
func sniffBag2(where, metaFile string, names []string, meta func() (*db3.Bag2Metadata, error)) (Format, error) {
	if !slices.Contains(names, "metadata.yaml") {
		if !isBag2Names(names) {
			return "", &InputError{Path: where, Err: errors.New("a folder, not one recording (a rosbag2 folder has a metadata.yaml or the numbered splits of one recording); name the recordings in it")}
		}
		for _, c := range formats() {
			if c.splitExt != "" && slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, c.splitExt) }) {
				return c.format, nil
			}
		}
	}
	m, err := meta()
	if err != nil {
		return "", err
	}
	for _, c := range formats() {
		if c.storage != "" && c.storage == m.StorageIdentifier {
			return c.format, nil
		}
	}
	return "", &record.Error{File: metaFile, Offset: -1, Err: record.ErrUnsupported,
		Detail: fmt.Sprintf("storage_identifier %q", m.StorageIdentifier)}
}

// OpenOptions change how recordings are read.
type OpenOptions struct {
	// OnSkip, when set, makes readers that can go on past damaged data do
	// so (ROS1 bags: a chunk that does not decompress, a record that does
	// not parse, a cut tail; MCAP files and rosbag2 MCAP folders: a chunk
	// whose CRC fails or that does not decompress, a record whose length is
	// damaged, a cut tail; rosbag2 folders: a split file that cannot be
	// read, such as a compressed split whose zstd stream is damaged or
	// cut), reporting each skipped range to OnSkip as a *record.Error.
	// Other readers still stop at the first error.
	OnSkip func(error)
	// OnWarning receives, as a *record.Error, damage that is no error: the
	// torn end of a ROS1 bag that was never closed (a .bag.active file,
	// rosbag record killed), after whose last complete message the
	// iterators end; a data end or footer record out of place in an MCAP
	// file, which reading goes past. Without it these go to OnSkip, if
	// set.
	OnWarning func(error)
	// KeepUnverified keeps, with OnSkip, the messages that no CRC vouches
	// for (an MCAP chunk whose CRC fails or whose compressed data is
	// damaged), marked record.Message.Unverified; by default they are left
	// out and reported.
	KeepUnverified bool
	// InPlace reads message data in place from local files mapped into
	// memory, where the reader can (record.ReadOptions.InPlace): the
	// messages come Pinned.
	InPlace bool
	// Remote reads the URLs among the paths (s3://, gs://, azblob://,
	// http(s)://; see package remote): the command's session, whose
	// context bounds every request and which keeps each object for every
	// reading of it. Nil opens each URL in a session of its own, closed
	// with its reader.
	Remote *remote.Session
}

// Open opens a recording of any supported format. A rosbag2 folder with MCAP
// storage opens as its split files merged in time order. The split files
// of a rosbag2 folder recorded with compression_mode FILE (NAME_0.db3.zstd,
// NAME_0.mcap.zstd ...) are decompressed into private temporary files as
// they are opened; nothing of them stays behind.
func Open(path string) (record.Reader, error) {
	return OpenWith(path, OpenOptions{})
}

// OpenWith is Open with options.
func OpenWith(path string, o OpenOptions) (record.Reader, error) {
	if remote.IsURL(path) {
		return openURL(path, o)
	}
	format, err := Sniff(path)
	if err != nil {
		return nil, err
	}
	c, ok := formatRow(format)
	if !ok || c.open == nil {
		return nil, fmt.Errorf("%s: unsupported format %q", path, format)
	}
	return c.open(path, o)
}
