package digest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestOfMatchesSha256sum checks a file's digest and a folder's listing
// digest against coreutils' sha256sum.
func TestOfMatchesSha256sum(t *testing.T) {
	testenv.RequirePeer(t, "sha256sum")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "rec", "sub"), 0o777); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"rec/a.db3": "first file\n", "rec/sub/b.yaml": "second\x00file", "rec/metadata.yaml": ""}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(args string, stdin string) string {
		cmd := exec.Command("sh", "-c", args)
		cmd.Dir = filepath.Join(dir, "rec")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	f, err := Of(filepath.Join(dir, "rec", "a.db3"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Fields(sum("sha256sum a.db3", ""))[0]; f.SHA256 != want || f.Size != 11 {
		t.Errorf("file digest %s size %d, want %s size 11", f.SHA256, f.Size, want)
	}
	listing := sum("find . -type f | sed 's|^./||' | LC_ALL=C sort | xargs sha256sum", "")
	d, err := Of(filepath.Join(dir, "rec"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Fields(sum("sha256sum", listing))[0]; d.SHA256 != want {
		t.Errorf("folder digest %s, want %s (listing %q)", d.SHA256, want, listing)
	}
	if len(d.Files) != 3 || d.Size != 11+11 {
		t.Errorf("folder: %d files, %d bytes; want 3 files, 22 bytes", len(d.Files), d.Size)
	}
	if _, err := Of(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path gave no error")
	}
}
