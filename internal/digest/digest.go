package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File is one file with its size and digest.
type File struct {
	// Path is the path given, or for a file of a folder its path relative
	// to the folder, with forward slashes.
	Path   string
	Size   int64
	SHA256 string
}

// Digest is the content identity of a file or folder.
type Digest struct {
	// Size is the size in bytes (of every file for a folder).
	Size int64
	// SHA256 is the hex digest of the file; for a folder, of the listing
	// "<sha256>  <relative path>\n" of its regular files in path order, as
	// `sha256sum` prints it.
	SHA256 string
	// Files lists the files of a folder (nil for a file).
	Files []File
}

// Of returns the digest of the file or folder at path.
func Of(path string) (Digest, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Digest{}, err
	}
	if !st.IsDir() {
		f, err := OfFile(path)
		return Digest{Size: f.Size, SHA256: f.SHA256}, err
	}
	var d Digest
	err = filepath.WalkDir(path, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		f, err := OfFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(path, p)
		f.Path = filepath.ToSlash(rel)
		d.Files = append(d.Files, f)
		return nil
	})
	if err != nil {
		return Digest{}, err
	}
	return OfFiles(d.Files), nil
}

// OfFiles returns the digest of a folder of files (their paths relative
// to it).
func OfFiles(files []File) Digest {
	d := Digest{Files: files}
	sort.Slice(d.Files, func(i, j int) bool { return d.Files[i].Path < d.Files[j].Path })
	var listing strings.Builder
	for _, f := range d.Files {
		d.Size += f.Size
		listing.WriteString(f.SHA256 + "  " + f.Path + "\n")
	}
	sum := sha256.Sum256([]byte(listing.String()))
	d.SHA256 = hex.EncodeToString(sum[:])
	return d
}

// OfFile returns the size and SHA-256 of the file at path.
func OfFile(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, err
	}
	return File{Path: path, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
