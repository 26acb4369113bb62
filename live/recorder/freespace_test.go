package recorder

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestFreeBytes: the free space --min-space checks is what GNU df reports
// available on the same disk, within what other writers may change
// between the two reads (64 MB).
func TestFreeBytes(t *testing.T) {
	dir := t.TempDir()
	got, ok := freeBytes(dir)
	if !ok {
		t.Fatal("free space of a temporary folder not told")
	}
	testenv.RequirePeer(t, "df")
	out, err := exec.Command("df", "--output=avail", "-B1", dir).Output()
	if err != nil {
		t.Fatalf("GNU df: %v", err)
	}
	lines := strings.Fields(string(out))
	want, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("df said %q", out)
	}
	if d := got - want; d < -64<<20 || d > 64<<20 {
		t.Errorf("%d bytes free, df says %d", got, want)
	}
	if _, ok := freeBytes(dir + "/missing"); ok {
		t.Error("free space of a missing folder told")
	}
}
