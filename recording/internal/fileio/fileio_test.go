package fileio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
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
		if mapped && !inPlace { // in place, unix maps (TestReleaseDropsPages)
			t.Errorf("opened plainly, but mapped")
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
