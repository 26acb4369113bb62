package db3

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/zfile"
	"modernc.org/sqlite/vfs"
)

// Option configures Open. Of the record.ReadOptions a database reader
// takes only record.WithSkipBad: Open of a folder then leaves out a split
// file that cannot be read (a compressed split whose zstd stream is
// damaged or cut, a file that is not an SQLite rosbag2 database); the
// other splits are read, and each message iterator (Messages) reports the
// split left out to the skip callback as a record.Skipped whose Err is its
// *record.Error, as the readers of other formats report the damage a
// reading meets (a Reader opened for its summary only reports nothing).
// Without it the first such split fails Open.
type Option = record.ReadOption

// Compression modes of metadata.yaml's compression_mode (rosbag2_compression
// compression_mode_from_string: matched without regard to case).
const (
	CompressionNone    = "NONE"
	CompressionFile    = "FILE"
	CompressionMessage = "MESSAGE"
)

// Compression returns the folder's compression mode (CompressionNone,
// CompressionFile or CompressionMessage), checking that its format is one
// baglab decompresses (zstd); errors name the metadata.yaml parsed.
func (m *Bag2Metadata) Compression() (string, error) {
	file := m.file
	mode := strings.ToUpper(m.CompressionMode)
	switch mode {
	case "", CompressionNone:
		return CompressionNone, nil
	case CompressionFile, CompressionMessage:
		if m.CompressionFormat != "zstd" {
			return "", &record.Error{File: file, Offset: -1, Field: "compression_format", Err: record.ErrUnsupported,
				Detail: fmt.Sprintf("compression format %q (baglab decompresses zstd)", m.CompressionFormat)}
		}
		return mode, nil
	}
	return "", &record.Error{File: file, Offset: -1, Field: "compression_mode", Err: record.ErrUnsupported,
		Detail: fmt.Sprintf("compression mode %q (rosbag2 writes NONE, FILE or MESSAGE)", m.CompressionMode)}
}

// SplitPaths returns the paths of the split files relative_file_paths
// names, in order, resolved in dir (see SplitNames).
func (m *Bag2Metadata) SplitPaths(dir string) []string {
	names := m.SplitNames(func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		return err == nil
	})
	for i, n := range names {
		names[i] = filepath.Join(dir, filepath.FromSlash(n))
	}
	return names
}

// SplitNames returns the split files relative_file_paths names, in order,
// as slash-separated paths in the folder, resolved as rosbag2's readers
// resolve them: the path itself, or, when the folder has no such file
// (exists says which it has), its last element. Metadata version 3 and
// before, and the version 4 files of rosbag2's first compression writer,
// prefixed the folder's name ("bag/bag_0.db3.zstd"), which a renamed
// folder no longer matches (rosbag2_compression
// sequential_compression_reader.cpp preprocess_current_file, rosbag2_cpp
// resolve_relative_paths).
func (m *Bag2Metadata) SplitNames(exists func(name string) bool) []string {
	var names []string
	for _, p := range m.RelativeFilePaths {
		name := path.Clean(filepath.ToSlash(p))
		if base := path.Base(name); base != name && !exists(name) && exists(base) {
			name = base
		}
		names = append(names, name)
	}
	return names
}

// openCompressed opens a split file of a compression_mode FILE folder: its
// zstd stream is decompressed into a private temporary file (zfile, which
// leaves nothing behind), and SQLite reads that file through a read-only
// VFS serving it (modernc.org/sqlite/vfs), since SQLite reads a file, not
// a stream. Errors name path, the compressed file. A split that holds an
// SQLite database as it is, not compressed, is read as it is: rosbag2's
// writer leaves the name of a split it could not compress (an empty or
// missing file) unchanged (sequential_compression_writer.cpp
// compress_file).
func openCompressed(path string) (*dbFile, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(sqliteMagic))
	n, _ := io.ReadFull(in, head)
	in.Close()
	if bytes.Equal(head[:n], sqliteMagic) {
		return openFile(path)
	}
	z, err := zfile.Decompress(path)
	if err != nil {
		return nil, err
	}
	if err := checkHeaderAt(path, z, z.Size()); err != nil {
		z.Close()
		return nil, decompressedError(err)
	}
	name, v, err := vfs.New(&splitFS{ra: z, size: z.Size()})
	if err != nil {
		z.Close()
		return nil, err
	}
	release := func() error {
		err := v.Close()
		if zerr := z.Close(); err == nil {
			err = zerr
		}
		return err
	}
	db, err := sql.Open("sqlite", "file:"+splitName+"?vfs="+name+"&mode=ro&immutable=1")
	if err != nil {
		release()
		return nil, err
	}
	f := &dbFile{path: path, db: db, topics: map[int64]*record.Channel{}, release: release}
	if err := f.load(); err != nil {
		f.close()
		return nil, decompressedError(err)
	}
	return f, nil
}

// decompressedError notes in a *record.Error that its offset is one in
// the decompressed content.
func decompressedError(err error) error {
	if re, ok := err.(*record.Error); ok {
		c := *re
		c.Detail = strings.TrimSpace(c.Detail + " (in the decompressed content)")
		return &c
	}
	return err
}

// splitName is the one name splitFS serves.
const splitName = "split.db3"

// splitFS serves a decompressed split to SQLite as a read-only file
// system of one file. Each open gets its own section reader, so that
// SQLite's connections read at once.
type splitFS struct {
	ra   io.ReaderAt
	size int64
}

func (s *splitFS) Open(name string) (fs.File, error) {
	if strings.TrimPrefix(name, "/") != splitName {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &splitFile{SectionReader: io.NewSectionReader(s.ra, 0, s.size), fs: s}, nil
}

type splitFile struct {
	*io.SectionReader
	fs *splitFS
}

func (f *splitFile) Stat() (fs.FileInfo, error) { return splitInfo{f.fs.size}, nil }
func (f *splitFile) Close() error               { return nil }

type splitInfo struct{ size int64 }

func (i splitInfo) Name() string       { return splitName }
func (i splitInfo) Size() int64        { return i.size }
func (i splitInfo) Mode() fs.FileMode  { return 0o400 }
func (i splitInfo) ModTime() time.Time { return time.Time{} }
func (i splitInfo) IsDir() bool        { return false }
func (i splitInfo) Sys() any           { return nil }
