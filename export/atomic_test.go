package export

import (
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExportFileMode: exported files and folders get os.Create's modes
// (0644 and 0755 under umask 022), not CreateTemp's private 0600 (review
// F3: export wrote -rw------- files while every other writer wrote
// -rw-r--r--).
func TestExportFileMode(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	for _, format := range []Format{Parquet, CSV} {
		dir := exportDir(t, newCorpus(t, 2, 12), 2, WithFormat(format))
		n := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return err
			}
			st, err := d.Info()
			if err != nil {
				return err
			}
			want := fs.FileMode(0o644)
			if d.IsDir() {
				want = 0o755
			} else {
				n++
			}
			if st.Mode().Perm() != want || strings.Contains(d.Name(), ".tmp-") {
				t.Errorf("%s: %s %v, want %v", format, p, st.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil || n == 0 {
			t.Fatalf("%s: %d files, %v", format, n, err)
		}
	}
}
