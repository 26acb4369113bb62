package cdr

import (
	"bytes"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGoldenRegenerate reruns the npm generator and checks it reproduces the
// committed corpus byte for byte, so the fixtures are what the independent
// implementation writes (needs node and `make deps-npm`).
func TestGoldenRegenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	testenv.RequirePeer(t, "rosmsg2", "cdr")
	out := t.TempDir()
	cmd := exec.Command("node", filepath.Join(goldenDir, "gen", "gen.mjs"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node gen.mjs: %v\n%s", err, b)
	}
	var want, got []string
	for _, ext := range []string{"*.cdr", "*.json", "*.msg"} {
		w, _ := filepath.Glob(filepath.Join(goldenDir, ext))
		g, _ := filepath.Glob(filepath.Join(out, ext))
		want, got = append(want, w...), append(got, g...)
	}
	if len(got) != len(want) {
		t.Fatalf("generator wrote %d files, corpus has %d", len(got), len(want))
	}
	for _, w := range want {
		a, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, filepath.Base(w)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from a fresh generation", filepath.Base(w))
		}
	}
}
