package recorder

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Writes and seeks through a dropBehind leave the file with exactly the
// bytes written, and on Linux the windows behind the end are written back
// and dropped as the file grows.
func TestDropBehind(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := &dropBehind{f: f}
	r := rand.New(rand.NewPCG(1, 2))
	var want []byte
	for len(want) < dropLag+5*dropWindow+12345 {
		p := make([]byte, r.IntN(3<<20))
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		if _, err := d.Write(p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p...)
	}
	// Patch the start, as the bag writer patches its header, and go on.
	if _, err := d.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	d.Write([]byte("patched"))
	copy(want[10:], "patched")
	if _, err := d.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	d.Write([]byte("tail"))
	want = append(want, "tail"...)
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file of %d bytes differs from the %d written", len(got), len(want))
	}
	if runtime.GOOS == "linux" && (d.off || d.dropped < 3*dropWindow) {
		t.Errorf("drop-behind off %v, dropped below %d of %d bytes", d.off, d.dropped, len(want))
	}
}
