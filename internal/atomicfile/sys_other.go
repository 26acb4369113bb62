//go:build !unix

package atomicfile

import "os"

// syncsDirs: Windows cannot sync a directory (FlushFileBuffers refuses a
// handle opened for reading); the files in it are synced all the same.
const syncsDirs = false

// umask is the usual file mode creation mask where the system has none.
const umask os.FileMode = 0o022

// writable reports why files cannot be created in dir; without access(2)
// the write itself tells.
func writable(string) error { return nil }
