package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOverwriteRule: one rule for every output, row by row as README's
// exit-code table states it: an output that exists (a file, or a folder
// that holds files) is refused with exit 5 unless --force, and with
// --force it is written whole: nothing of the earlier output stays beside
// the new one. Before, analyze --out and --plots wrote into a folder
// holding an earlier run (mixing the two) and report -o replaced a page
// without --force.
func TestOverwriteRule(t *testing.T) {
	bag := studyFile("study.bag")
	stale := func(t *testing.T, out string) string {
		t.Helper()
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(out, "earlier-run.parquet")
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name   string
		args   func(out string) []string
		folder bool
	}{
		{"analyze --out", func(out string) []string { return []string{"analyze", "grasps", "-q", bag, "--out", out} }, true},
		{"analyze --plots", func(out string) []string { return []string{"analyze", "grasps", "-q", bag, "--plots", out} }, true},
		{"report -o", func(out string) []string { return []string{"report", "-q", bag, "-o", out + ".html"} }, false},
		{"filter", func(out string) []string { return []string{"filter", "-q", bag, out + ".bag"} }, false},
		{"convert", func(out string) []string { return []string{"convert", "-q", bag, out + ".mcap"} }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var old string
			if c.folder {
				old = stale(t, out)
			} else {
				old = c.args(out)[len(c.args(out))-1]
				if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, stderr, code := run(t, c.args(out)...); code != exitOutput {
				t.Fatalf("over an existing output: exit %d, want %d: %s", code, exitOutput, stderr)
			}
			if b, err := os.ReadFile(old); err != nil || string(b) != "old" {
				t.Fatalf("a refused run changed %s: %q %v", old, b, err)
			}
			if _, stderr, code := run(t, append(c.args(out), "--force")...); code != exitOK {
				t.Fatalf("--force: exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(old)
			switch {
			case c.folder && err == nil:
				t.Errorf("--force left the earlier run's %s in the folder", filepath.Base(old))
			case !c.folder && (err != nil || string(b) == "old"):
				t.Errorf("--force did not replace %s: %v", old, err)
			}
			if c.folder {
				if ents, _ := os.ReadDir(out); len(ents) == 0 {
					t.Errorf("--force wrote nothing into %s", out)
				}
			}
		})
	}
}
