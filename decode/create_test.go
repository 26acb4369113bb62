package decode

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreateFolderMode: the folders Create makes for a recording have the
// mode of every output's folder, 0777 less the umask (0775 under umask
// 002), not a fixed 0755.
func TestCreateFolderMode(t *testing.T) {
	old := syscall.Umask(0o002)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "new")
	for _, name := range []string{"run.bag", "run.mcap"} {
		w, err := Create(filepath.Join(dir, name), CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w.Abort()
		if st, err := os.Stat(dir); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != 0o775 {
			t.Errorf("%s: %s: mode %v, want 0775", name, dir, st.Mode().Perm())
		}
		os.Remove(dir)
	}
}
