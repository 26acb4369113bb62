//go:build unix

package fileio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseDropsPages: ranges released beyond the last keepMapped bytes,
// over every mapped file, leave the process's resident memory (Linux's
// RssFile), and their bytes still read back right, mapped again. Three
// files read in turn, each smaller than keepMapped, keep no more mapped
// than one large file.
func TestReleaseDropsPages(t *testing.T) {
	const total = keepMapped + 48<<20
	for _, files := range []int{1, 3} {
		size := int64(total / files)
		var maps []*Mapped
		var wants [][]byte
		for f := range files {
			path := filepath.Join(t.TempDir(), "f")
			want := make([]byte, size)
			for i := range want {
				want[i] = byte((i + f) * 7 >> 12)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			var m *Mapped
			var closer io.Closer
			if _, err := Open(path, true, func(r io.ReaderAt, size int64) (int64, error) { m, _ = r.(*Mapped); return size, nil },
				func(_ int64, c io.Closer) { closer = c }); err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			if m == nil {
				t.Fatalf("%s: opened in place, but not mapped", path)
			}
			maps, wants = append(maps, m), append(wants, want)
		}
		const step = 1 << 20
		sum, wantSum := 0, 0
		before := rssFile(t)
		for off := int64(0); off < size; off += step {
			for f, m := range maps {
				b, _ := m.Bytes(off, min(step, size-off))
				for i := 0; i < len(b); i += 4096 {
					sum += int(b[i])
					wantSum += int(wants[f][off+int64(i)])
				}
				m.Release(off, int64(len(b)))
			}
		}
		if sum != wantSum {
			t.Errorf("%d files: read a sum of %d, want %d", files, sum, wantSum)
		}
		if after := rssFile(t); before >= 0 && after-before > keepMapped+8<<20 {
			t.Errorf("%d files: resident file pages grew by %d MB reading %d MB, want at most %d MB", files, (after-before)>>20, total>>20, (keepMapped+8<<20)>>20)
		}
		for f, m := range maps {
			if b, _ := m.Bytes(0, size); !bytes.Equal(b, wants[f]) {
				t.Errorf("%d files: the released bytes of file %d read back differently", files, f)
			}
		}
	}
}

// rssFile is the process's resident file-backed memory in bytes (-1 where
// /proc/self/status does not say).
func rssFile(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "RssFile: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return -1
}
