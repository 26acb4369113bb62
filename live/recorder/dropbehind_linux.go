package recorder

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeBehind starts the writeback of n bytes of f at off.
func writeBehind(f *os.File, off, n int64) error {
	return unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// dropCache waits until n bytes of f at off are on the disk and drops
// them from the page cache.
func dropCache(f *os.File, off, n int64) error {
	if err := unix.SyncFileRange(int(f.Fd()), off, n,
		unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}
