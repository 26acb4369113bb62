package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written. Commit renames it to its final path, Abort
// removes it; after either, both are no-ops.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts the file that will become path. It is created 0644 (not
// CreateTemp's private 0600): outputs are meant to be shared.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Path is the final path.
func (f *File) Path() string { return f.path }

// Commit closes the file and renames it to its final path.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.Name()
	err := f.File.Close()
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.Name())
}

// Write writes path with fill through a temporary file, creating missing
// parent directories.
func Write(path string, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return errors.Join(fmt.Errorf("writing %s", path), err)
	}
	return f.Commit()
}
