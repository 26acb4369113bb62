package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFolderNamesWhatItLeavesOut: a folder given as input stands for the
// recordings directly in it; info and cat now name the entries they leave
// out (a sub-folder, a file of another kind; hidden files are not named),
// where they left them out without a word.
func TestFolderNamesWhatItLeavesOut(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(studyFile("study.bag"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"run.bag": data, "notes.txt": []byte("x"), ".hidden": nil, "day2/run.bag": data} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := dir + ": left out 2 entries that are not recordings (sub-folders are not searched): day2, notes.txt"
	for _, args := range [][]string{{"info", dir}, {"cat", "-n", "1", dir}} {
		_, stderr, code := run(t, args...)
		if code != exitOK || strings.Count(stderr, want) != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line naming day2 and notes.txt", args[0], code, stderr)
		}
	}
}
