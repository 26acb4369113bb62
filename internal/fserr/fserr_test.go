package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCause: the cause of a path error, found through wrapping; other
// errors unchanged.
func TestCause(t *testing.T) {
	_, err := os.Stat(filepath.Join(t.TempDir(), "missing.bag"))
	if got := Cause(err); got != syscall.ENOENT || got.Error() != "no such file or directory" {
		t.Errorf("Cause(%v) = %v, want ENOENT", err, got)
	}
	wrapped := fmt.Errorf("writing x: %w", &fs.PathError{Op: "sync", Path: "x", Err: syscall.ENOSPC})
	if got := Cause(wrapped); got != syscall.ENOSPC {
		t.Errorf("Cause(%v) = %v, want ENOSPC", wrapped, got)
	}
	plain := errors.New("plain")
	if got := Cause(plain); got != plain {
		t.Errorf("Cause(plain) = %v", got)
	}
	if got := Cause(nil); got != nil {
		t.Errorf("Cause(nil) = %v", got)
	}
}
