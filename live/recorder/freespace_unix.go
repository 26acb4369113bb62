//go:build unix

package recorder

import "golang.org/x/sys/unix"

// freeBytes is the space free for an unprivileged writer on the disk of
// dir, and false when it cannot be told.
func freeBytes(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	// The fields' types differ between systems (Bsize is uint32 on macOS).
	return int64(uint64(st.Bavail) * uint64(st.Bsize)), true
}
