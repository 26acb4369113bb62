package studygen

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/recording/bag"
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

// TestWriteBigScans: with Scans every point cloud is a new scan, float32
// x, y, z at 8.9-11.1 m from the sensor and z in [-1, 1); without it
// every cloud holds the same bytes.
func TestWriteBigScans(t *testing.T) {
	const cloud = 12 * 1000
	for _, scans := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "big.bag")
		if _, err := WriteBig(path, msgdef.Default(), BigOptions{Size: 400_000, CloudBytes: cloud, SmallPerCloud: 5, Seed: 3, Scans: scans}); err != nil {
			t.Fatal(err)
		}
		r, err := bag.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var clouds [][]byte
		for _, m := range recordtest.MessagesByTopic(t, r)["/camera/depth/points"] {
			// data, then the one byte of is_dense, end the message
			data := m.Data[len(m.Data)-1-cloud : len(m.Data)-1]
			clouds = append(clouds, data)
			if !scans {
				continue
			}
			for p := 0; p < len(data); p += 12 {
				x := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[p:])))
				y := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[p+4:])))
				z := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[p+8:])))
				if r := math.Hypot(x, y); r < 8.9 || r > 11.1 || z < -1 || z >= 1 {
					t.Fatalf("cloud %d, point %d: x %g y %g z %g", len(clouds)-1, p/12, x, y, z)
				}
			}
		}
		r.Close()
		if len(clouds) < 10 {
			t.Fatalf("%d clouds", len(clouds))
		}
		for i := 1; i < len(clouds); i++ {
			if same := bytes.Equal(clouds[i], clouds[0]); same == scans {
				t.Errorf("scans %v: cloud %d the same as the first: %v", scans, i, same)
			}
		}
	}
}
