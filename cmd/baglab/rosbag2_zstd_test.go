package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/mcapfile"
)

// TestFileCompressedRosbag2: a rosbag2 sqlite3 folder whose splits Debian's
// zstd compressed whole, with metadata.yaml as rosbag2's
// SequentialCompressionWriter leaves it (compression_mode FILE,
// NAME_N.db3.zstd), gives cat, info and export exactly what the
// uncompressed folder gives; a cut split exits 3 naming it, and with
// --skip-bad the other split is read. No temporary file stays in TMPDIR.
func TestFileCompressedRosbag2(t *testing.T) {
	testenv.RequirePeer(t, "sqlite3", "zstd")
	plain, z := fileCompressedRosbag2(t)
	dir := filepath.Dir(plain)
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o700)
	t.Setenv("TMPDIR", tmp)
	left := func(when string) {
		if es, _ := os.ReadDir(tmp); len(es) != 0 {
			t.Errorf("%s: %d files left in TMPDIR", when, len(es))
		}
	}

	want, _, code := run(t, "cat", plain)
	got, stderr, zcode := run(t, "cat", z)
	if code != 0 || zcode != 0 || got != want || strings.Count(got, "\n") != 202 {
		t.Errorf("cat: exit %d (uncompressed %d), outputs differ: %s", zcode, code, stderr)
	}
	wantInfo, _, _ := run(t, "info", plain)
	gotInfo, _, _ := run(t, "info", z)
	// Only the compression differs, and the rosbag2: line says how.
	norm := strings.NewReplacer(plain, "FOLDER", z, "FOLDER", "compression: none", "compression: X", "compression: zstd", "compression: X", ", zstd per file", "")
	if norm.Replace(gotInfo) != norm.Replace(wantInfo) || !strings.Contains(gotInfo, "zstd per file") {
		t.Errorf("info:\n%s\nuncompressed:\n%s", gotInfo, wantInfo)
	}
	for _, in := range []string{plain, z} {
		out := filepath.Join(dir, "csv-"+filepath.Base(in))
		if _, stderr, code := run(t, "export", in, "--out", out, "--format", "csv"); code != 0 {
			t.Fatalf("export %s: exit %d: %s", in, code, stderr)
		}
	}
	for _, f := range []string{"chatter.csv", "count.csv"} {
		a, err1 := os.ReadFile(filepath.Join(dir, "csv-split", f))
		b, err2 := os.ReadFile(filepath.Join(dir, "csv-z", f))
		// The source column names the file read: NAME.db3.zstd.
		src := strings.NewReplacer(plain, "FOLDER", z, "FOLDER", ".db3.zstd,", ".db3,")
		if err1 != nil || err2 != nil || src.Replace(string(a)) != src.Replace(string(b)) || len(a) == 0 {
			t.Errorf("export %s differs (%v %v)", f, err1, err2)
		}
	}
	left("after reading")

	bad := filepath.Join(z, "split_1.db3.zstd")
	b, _ := os.ReadFile(bad)
	os.WriteFile(bad, b[:len(b)/2], 0o644)
	for _, verb := range []string{"cat", "info"} {
		if _, stderr, code := run(t, verb, z); code != exitBadInput || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "truncated") {
			t.Errorf("%s of a cut split: exit %d: %s", verb, code, stderr)
		}
	}
	out, stderr, code := run(t, "cat", "--skip-bad", z)
	if n := strings.Count(out, "\n"); n != 101 || strings.Count(stderr, "skipped: "+bad) != 1 || !strings.Contains(stderr, "1 damaged byte range") {
		t.Errorf("cat --skip-bad: exit %d, %d messages (want split_0's 101): %s", code, n, stderr)
	}
	left("after the damaged reads")
}

// TestFileCompressedRosbag2MCAP: a rosbag2 folder of MCAP storage (the
// public fixture rosbag2_tests/cdr_test, recorded by rosbag2) whose split
// Debian's zstd compressed whole, with metadata.yaml as rosbag2's
// SequentialCompressionWriter leaves it (compression_mode FILE,
// NAME_0.mcap.zstd), gives cat and info --json what the folder as
// recorded gives; a cut split exits 3 naming it, and doctor reports it.
func TestFileCompressedRosbag2MCAP(t *testing.T) {
	testenv.RequirePeer(t, "zstd")
	fixture := testenv.Fixtures(t, "rosbag2", "rosbag2_tests", "cdr_test")
	dir := t.TempDir()
	z := filepath.Join(dir, "z")
	os.Mkdir(z, 0o755)
	meta, err := os.ReadFile(filepath.Join(fixture, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`compression_format: ""`, "compression_format: zstd", `compression_mode: ""`, "compression_mode: FILE",
		"- cdr_test_0.mcap\n", "- cdr_test_0.mcap.zstd\n", "path: cdr_test_0.mcap\n", "path: cdr_test_0.mcap.zstd\n").Replace(string(meta))
	if strings.Count(text, "cdr_test_0.mcap.zstd") != 2 {
		t.Fatalf("metadata.yaml of the fixture changed:\n%s", meta)
	}
	os.WriteFile(filepath.Join(z, "metadata.yaml"), []byte(text), 0o644)
	split := filepath.Join(z, "cdr_test_0.mcap.zstd")
	if out, err := exec.Command("zstd", "-q", "-o", split, filepath.Join(fixture, "cdr_test_0.mcap")).CombinedOutput(); err != nil {
		t.Fatalf("zstd: %v\n%s", err, out)
	}
	want, _, code := run(t, "cat", fixture)
	got, stderr, zcode := run(t, "cat", z)
	if code != 0 || zcode != 0 || got != want || strings.Count(got, "\n") != 7 {
		t.Errorf("cat: exit %d (as recorded %d), %d lines, outputs differ: %s", zcode, code, strings.Count(got, "\n"), stderr)
	}
	// Only the rosbag2 object (what metadata.yaml says) differs, as the
	// two metadata.yaml do.
	wantInfo, _, _ := run(t, "info", "--json", fixture)
	gotInfo, _, _ := run(t, "info", "--json", z)
	norm := strings.NewReplacer(fixture, "FOLDER", z, "FOLDER", `"compression_format": "zstd"`, `"compression_format": ""`,
		`"compression_mode": "FILE"`, `"compression_mode": ""`, "cdr_test_0.mcap.zstd", "cdr_test_0.mcap")
	if norm.Replace(gotInfo) != norm.Replace(wantInfo) || !strings.Contains(gotInfo, `"compression_mode": "FILE"`) {
		t.Errorf("info --json:\n%s\nas recorded:\n%s", gotInfo, wantInfo)
	}
	b, _ := os.ReadFile(split)
	os.WriteFile(split, b[:len(b)/2], 0o644)
	if _, stderr, code := run(t, "cat", z); code != exitBadInput || !strings.Contains(stderr, split) {
		t.Errorf("cat of a cut split: exit %d: %s", code, stderr)
	}
	if out, _, code := run(t, "doctor", z); code == exitOK || !strings.Contains(out, "cdr_test_0.mcap.zstd: zstd stream: truncated") {
		t.Errorf("doctor of a cut split: exit %d: %s", code, out)
	}
	// --skip-bad leaves the split out, reported once (not once for the
	// summary and again for the reading).
	if out, stderr, code := run(t, "cat", "--skip-bad", z); code != exitOK || out != "" || strings.Count(stderr, "skipped: "+split) != 1 {
		t.Errorf("cat --skip-bad of a cut split: exit %d, output %q: %s", code, out, stderr)
	}
}

// TestMessageCompressedRosbag2MCAP: a rosbag2 folder of MCAP storage
// recorded with compression_mode MESSAGE (each message's data a zstd
// frame, as rosbag2's SequentialCompressionWriter stores it for any
// storage) gives cat what the folder as recorded gives: the messages of
// rosbag2's own fixture (cdr_test), each compressed by Debian's zstd. A
// message whose frame is damaged exits 3 naming it. (The messages were
// decoded compressed: exit 3, every message "does not decode".)
func TestMessageCompressedRosbag2MCAP(t *testing.T) {
	testenv.RequirePeer(t, "zstd")
	fixture := testenv.Fixtures(t, "rosbag2", "rosbag2_tests", "cdr_test")
	z := filepath.Join(t.TempDir(), "z")
	os.Mkdir(z, 0o755)
	meta, err := os.ReadFile(filepath.Join(fixture, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`compression_format: ""`, "compression_format: zstd", `compression_mode: ""`, "compression_mode: MESSAGE").Replace(string(meta))
	os.WriteFile(filepath.Join(z, "metadata.yaml"), []byte(text), 0o644)
	compressMessages := func(damage bool) {
		r, err := mcapfile.Open(filepath.Join(fixture, "cdr_test_0.mcap"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var buf bytes.Buffer
		w, err := mcapfile.NewWriter(&buf, mcapfile.WithProfile("ros2"))
		if err != nil {
			t.Fatal(err)
		}
		ids := map[*record.Channel]uint32{}
		chs, _ := r.Channels()
		for _, c := range chs {
			if ids[c], err = w.AddChannel(c); err != nil {
				t.Fatal(err)
			}
		}
		it, err := r.Messages(record.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for i := 0; ; i++ {
			m, err := it.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("zstd", "-q", "-c")
			cmd.Stdin = bytes.NewReader(m.Data)
			data, err := cmd.Output()
			if err != nil {
				t.Fatalf("zstd: %v", err)
			}
			if damage && i == 3 {
				data = data[:len(data)-2]
			}
			c := *m
			c.Data = data
			if err := w.WriteMessage(ids[m.Channel], &c); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(z, "cdr_test_0.mcap"), buf.Bytes(), 0o644)
	}
	compressMessages(false)
	want, _, code := run(t, "cat", fixture)
	got, stderr, zcode := run(t, "cat", z)
	if code != 0 || zcode != 0 || got != want || strings.Count(got, "\n") != 7 {
		t.Errorf("cat: exit %d (as recorded %d), %d lines, outputs differ: %s", zcode, code, strings.Count(got, "\n"), stderr)
	}
	compressMessages(true)
	if _, stderr, code := run(t, "cat", z); code != exitBadInput || !strings.Contains(stderr, "cdr_test_0.mcap: offset") || !strings.Contains(stderr, "compression_mode MESSAGE") {
		t.Errorf("cat of a damaged frame: exit %d: %s", code, stderr)
	}
}

// fileCompressedRosbag2 writes a rosbag2 sqlite3 folder of two splits
// (recording/db3/testdata/mkdb3.py: 202 messages) and a copy whose splits
// Debian's zstd compressed whole, with metadata.yaml as rosbag2's
// SequentialCompressionWriter leaves it; it returns both folders.
func fileCompressedRosbag2(t *testing.T) (plain, z string) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(testenv.Python, "../../recording/db3/testdata/mkdb3.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("mkdb3.py: %v\n%s", err, out)
	}
	plain, z = filepath.Join(dir, "split"), filepath.Join(dir, "z")
	os.Mkdir(z, 0o755)
	meta, _ := os.ReadFile(filepath.Join(plain, "metadata.yaml"))
	text := strings.NewReplacer(`compression_format: ""`, "compression_format: zstd", `compression_mode: ""`, "compression_mode: FILE",
		"    - split_0.db3\n", "    - split_0.db3.zstd\n", "    - split_1.db3\n", "    - split_1.db3.zstd\n").Replace(string(meta))
	os.WriteFile(filepath.Join(z, "metadata.yaml"), []byte(text), 0o644)
	for _, n := range []string{"split_0.db3", "split_1.db3"} {
		if out, err := exec.Command("zstd", "-q", "-o", filepath.Join(z, n+".zstd"), filepath.Join(plain, n)).CombinedOutput(); err != nil {
			t.Fatalf("zstd: %v\n%s", err, out)
		}
	}
	return plain, z
}
