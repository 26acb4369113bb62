package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOpenInPlace: a file opened in place serves its bytes from the
// mapping, refuses ranges that leave it, and reads through ReadAt as a
// file opened plainly does.
func TestOpenInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, inPlace := range []bool{false, true} {
		var ra io.ReaderAt
		var closer io.Closer
		_, err := Open(path, inPlace, func(r io.ReaderAt, size int64) (int64, error) { ra = r; return size, nil },
			func(_ int64, c io.Closer) { closer = c })
		if err != nil {
			t.Fatal(err)
		}
		m, mapped := ra.(*Mapped)
		if mapped != (inPlace && runtime.GOOS != "windows") {
			t.Errorf("in place %v: mapped %v", inPlace, mapped)
		}
		buf := make([]byte, 10)
		if n, err := ra.ReadAt(buf, 9995); n != 5 || err != io.EOF || string(buf[:5]) != "56789" {
			t.Errorf("in place %v: ReadAt at 9995: %d %v %q", inPlace, n, err, buf[:n])
		}
		if mapped {
			for _, c := range []struct {
				off, n int64
				ok     bool
			}{{0, 10000, true}, {9990, 10, true}, {10000, 0, true}, {9990, 11, false}, {-1, 2, false}, {10001, 0, false}, {5, -1, false}, {1, 1 << 62, false}} {
				b, ok := m.Bytes(c.off, c.n)
				if ok != c.ok || ok && !bytes.Equal(b, want[c.off:c.off+c.n]) {
					t.Errorf("Bytes(%d, %d) = %d bytes, %v; want %v", c.off, c.n, len(b), ok, c.ok)
				}
			}
		}
		if err := closer.Close(); err != nil {
			t.Errorf("in place %v: Close: %v", inPlace, err)
		}
	}
}

// TestFault: Fault makes an error of the runtime's fault panic only; any
// other panic goes on.
func TestFault(t *testing.T) {
	if err := Fault(nil); err != nil {
		t.Errorf("Fault(nil) = %v", err)
	}
	if err := Fault(faultPanic{}); !errors.Is(err, ErrCut) {
		t.Errorf("Fault of a fault = %v, want ErrCut", err)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("Fault of another panic: recovered %v, want it to go on", r)
		}
	}()
	Fault("other")
	t.Error("Fault of another panic returned")
}

type faultPanic struct{}

func (faultPanic) Addr() uintptr { return 0x1000 }

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
				t.Skip("no mapping on " + runtime.GOOS)
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
