//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// syncsDirs: a directory opened for reading can be synced, which makes
// the names it holds durable.
const syncsDirs = true

// umask is the process's file mode creation mask, read once while the
// package is initialised (before any goroutine of ours creates files:
// reading it means setting it for a moment).
var umask = readUmask()

func readUmask() os.FileMode {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return os.FileMode(m)
}

// writable reports why files cannot be created in dir (nil: they can).
func writable(dir string) error {
	return syscall.Access(dir, 2 /* W_OK */)
}
