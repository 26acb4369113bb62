package studygen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
)

func TestDeterministic(t *testing.T) {
	write := func(seed uint64) string {
		dir := t.TempDir()
		s, err := Generate(msgdef.Default(), Options{Seed: seed, Sessions: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteAll(dir, s); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, b, c := write(5), write(5), write(6)
	for _, name := range []string{"study.bag", "study-bz2.bag", "study.mcap", "queries.mcap", "all_types.bag", "broken/study-crc.mcap", "truth.json"} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		z, _ := os.ReadFile(filepath.Join(c, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
		if name != "all_types.bag" && bytes.Equal(x, z) {
			t.Errorf("%s is the same for another seed", name)
		}
	}
}

func TestEveryNativeType(t *testing.T) {
	reg := msgdef.Default()
	s, err := Generate(reg, Options{Seed: 1, Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range append(append([]Event{}, s.AllROS1...), s.AllROS2...) {
		seen[e.Value.Type.Name] = true
	}
	for _, name := range reg.Names() {
		pkg, _, _ := strings.Cut(name, "/")
		for _, p := range NativePackages {
			if p == pkg {
				typ, err := reg.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				if !seen[typ.Name] {
					t.Errorf("no message of %s", name)
				}
			}
		}
	}
	if len(seen) < 200 {
		t.Errorf("only %d types", len(seen))
	}
	// The study's own streams carry the ground truth they were drawn from.
	groups := 0
	for _, g := range s.Truth.Placements {
		if g.N == 0 {
			t.Errorf("placement group %+v has no placements", g)
		}
		groups++
	}
	if groups == 0 || len(s.Truth.Grasps) == 0 || len(s.Truth.Facts) == 0 || s.Truth.Queries.Requests == 0 {
		t.Errorf("truth is incomplete: %+v", s.Truth)
	}
}

// TestSampleIsCurrent regenerates the committed sample (testdata/sample)
// and requires identical files.
func TestSampleIsCurrent(t *testing.T) {
	dir := t.TempDir()
	s, err := Generate(msgdef.Default(), Options{Seed: 1, Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteAll(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, File{Name: "truth.json"})
	for _, f := range files {
		want, _ := filepath.Glob(filepath.Join("../../../testdata/sample", f.Name, "*"))
		got, _ := filepath.Glob(filepath.Join(dir, f.Name, "*"))
		if len(got) == 0 { // a plain file, not a folder
			want, got = []string{filepath.Join("../../../testdata/sample", f.Name)}, []string{filepath.Join(dir, f.Name)}
		}
		if len(want) != len(got) {
			t.Errorf("%s: %d files committed, %d generated (make sample)", f.Name, len(want), len(got))
			continue
		}
		for i := range got {
			a, err := os.ReadFile(want[i])
			if err != nil {
				t.Errorf("%v (make sample)", err)
				continue
			}
			b, _ := os.ReadFile(got[i])
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs from the generator's output: run make sample", want[i])
			}
		}
	}
}
