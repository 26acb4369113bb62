package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Causes of a CheckError (besides fs.ErrExist and the error of the write
// access check).
var (
	// ErrInput is an output that names one of the inputs.
	ErrInput = errors.New("would overwrite an input")
	// ErrIsDir is an output file that is a directory.
	ErrIsDir = errors.New("a directory, not a file")
	// ErrNotDir is an output directory, or the nearest existing ancestor
	// of an output, that is not a directory.
	ErrNotDir = errors.New("not a directory")
)

// CheckError says why Path cannot be an output.
type CheckError struct {
	// Path is the output checked.
	Path string
	// Dir is the existing directory (or file) Err is about when the
	// output cannot be created in it: the nearest existing one at or
	// above the directory the output goes into. Empty when Err is about
	// Path itself: ErrInput, ErrIsDir, fs.ErrExist, and ErrNotDir for an
	// output directory that is a file.
	Dir string
	// Err is ErrInput, ErrIsDir, fs.ErrExist (Path exists and force was
	// not given), ErrNotDir, or the error of the write access check of
	// Dir.
	Err error
}

func (e *CheckError) Error() string {
	if e.Dir != "" {
		return e.Dir + ": " + e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *CheckError) Unwrap() error { return e.Err }

// CheckFile checks, before anything is read or written, that path can
// become an output file: it names none of inputs (the same file, however
// spelled), is not a directory, does not exist unless force, and its
// directory is writable or can be made (its nearest existing ancestor is
// a writable directory). It creates nothing. A failure is a *CheckError.
func CheckFile(path string, force bool, inputs []string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && sameAsAny(st, inputs):
		return &CheckError{Path: path, Err: ErrInput}
	case err == nil && st.IsDir():
		return &CheckError{Path: path, Err: ErrIsDir}
	case err == nil && !force:
		return &CheckError{Path: path, Err: fs.ErrExist}
	}
	return checkWritable(path, filepath.Dir(path))
}

// CheckDir checks that dir can be an output directory: it is a writable
// directory, or it can be made (its nearest existing ancestor is a
// writable directory). It creates nothing. A failure is a *CheckError;
// when dir itself is a file, its Err is ErrNotDir and its Dir empty.
func CheckDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return &CheckError{Path: dir, Err: ErrNotDir}
	}
	return checkWritable(dir, dir)
}

// checkWritable checks that entries can be created in dir, or in its
// nearest existing ancestor when dir does not exist yet.
func checkWritable(path, dir string) error {
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return &CheckError{Path: path, Dir: p, Err: ErrNotDir}
			}
			if err := writable(p); err != nil {
				return &CheckError{Path: path, Dir: p, Err: err}
			}
			return nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return &CheckError{Path: path, Dir: p, Err: err}
		}
		p = parent
	}
}

// IsInput reports whether path names an existing file that one of inputs
// names too, however spelled (relative, absolute, through a link).
func IsInput(path string, inputs []string) bool {
	st, err := os.Stat(path)
	return err == nil && sameAsAny(st, inputs)
}

// sameAsAny reports whether st, an existing file's, is one that one of
// inputs names.
func sameAsAny(st fs.FileInfo, inputs []string) bool {
	for _, in := range inputs {
		if si, err := os.Stat(in); err == nil && os.SameFile(st, si) {
			return true
		}
	}
	return false
}
