package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// LocalCopy makes one copy per URL for every reading of it, keeps the
// copies no reading holds within its bound (the latest always), retries a
// copy that failed, and Close removes them all.
func TestSessionLocalCopy(t *testing.T) {
	s := NewSession(context.Background(), Options{})
	made := map[string]int{}
	copyOf := func(url string, size int64) func() (string, string, error) {
		return func() (string, string, error) {
			made[url]++
			dir := t.TempDir()
			p := filepath.Join(dir, "x")
			f, err := os.Create(p)
			if err == nil {
				err = f.Truncate(size) // sparse: counts, costs no disk
				f.Close()
			}
			return dir, p, err
		}
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	a1, releaseA1, err := s.LocalCopy("a", copyOf("a", 600<<20))
	if err != nil {
		t.Fatal(err)
	}
	a2, releaseA2, _ := s.LocalCopy("a", copyOf("a", 600<<20))
	if a1 != a2 || made["a"] != 1 {
		t.Fatalf("two readings: paths %s %s, %d copies", a1, a2, made["a"])
	}
	releaseA1()
	releaseA2()
	releaseA2() // twice is once
	a3, releaseA3, _ := s.LocalCopy("a", copyOf("a", 600<<20))
	if a3 != a1 || made["a"] != 1 {
		t.Fatalf("released and opened again: path %s, %d copies", a3, made["a"])
	}
	releaseA3()
	b, releaseB, _ := s.LocalCopy("b", copyOf("b", 600<<20))
	releaseB()
	c, releaseC, _ := s.LocalCopy("c", copyOf("c", 1))
	releaseC()
	// Idle: a, b, c (the latest). b and a come to 1200 MiB, past 1 GiB:
	// a goes.
	if exists(a1) || !exists(b) || !exists(c) {
		t.Errorf("after three copies: a %v, b %v, c %v; want a removed", exists(a1), exists(b), exists(c))
	}

	boom := errors.New("boom")
	if _, _, err := s.LocalCopy("d", func() (string, string, error) { made["d"]++; return "", "", boom }); err != boom {
		t.Fatalf("failed copy: %v", err)
	}
	if _, release, err := s.LocalCopy("d", copyOf("d", 1)); err != nil || made["d"] != 2 {
		t.Fatalf("after a failed copy: %v, %d attempts", err, made["d"])
	} else {
		release()
	}
	s.Close()
	if exists(b) || exists(c) {
		t.Error("Close left copies behind")
	}
}
