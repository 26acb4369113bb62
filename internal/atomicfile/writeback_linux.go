package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's dirty pages to disk
// without waiting for them (sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE over the whole file: pages already being written
// are left alone). Its error is of no consequence: the sync on closing
// the file reports any.
func startWriteback(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _ = unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE) })
	}
}
