package export

import (
	"os"
	"path/filepath"
	"testing"
)

// TestManifestRowClosesDamagedFiles: a manifest row file that is no
// Parquet file is an error and leaves no file open (arrow-go's
// file.OpenParquetFile kept it open, so FuzzManifestRow ran out of file
// descriptors).
func TestManifestRowClosesDamagedFiles(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	path := filepath.Join(t.TempDir(), "row.parquet")
	if err := os.WriteFile(path, []byte("000000"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fds()
	for range 50 {
		if _, err := readManifestFile(path); err == nil {
			t.Fatal("a damaged manifest row read without an error")
		}
	}
	if after := fds(); after > before+5 {
		t.Errorf("%d files open after reading 50 damaged manifest rows, %d before", after, before)
	}
}
