package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "hello" {
		t.Fatalf("%q, %v", b, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A failing writer leaves neither the file nor its temporary.
	bad := filepath.Join(dir, "bad.txt")
	boom := errors.New("boom")
	if err := Write(bad, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "sub" {
		t.Errorf("left %v", entries)
	}
}

func TestAbortAndCommitOnce(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("data")
	f.Abort()
	f.Abort()
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("abort left %v", entries)
	}
}
