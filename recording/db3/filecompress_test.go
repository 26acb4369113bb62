package db3

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// CompressFolder copies the rosbag2 sqlite3 folder src to dst as
// `ros2 bag record --compression-mode file --compression-format zstd`
// leaves it: each split compressed whole by Debian's zstd (the reference
// implementation) into NAME.db3.zstd, the uncompressed file gone, and
// metadata.yaml naming the compressed files (prefix + name: rosbag2's
// version 4 writer prefixed the folder's name) with compression_mode FILE
// and compression_format zstd (rosbag2_compression
// sequential_compression_writer.cpp compress_file, zstd_compressor.cpp
// compress_uri).
func compressFolder(t *testing.T, src, dst, prefix string) {
	t.Helper()
	testenv.RequirePeer(t, "zstd")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(src, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(meta)
	dbs, _ := filepath.Glob(filepath.Join(src, "*.db3"))
	for _, db := range dbs {
		name := filepath.Base(db)
		if out, err := exec.Command("zstd", "-q", "-o", filepath.Join(dst, name+".zstd"), db).CombinedOutput(); err != nil {
			t.Fatalf("zstd: %v\n%s", err, out)
		}
		text = strings.ReplaceAll(text, "    - "+name+"\n", "    - "+prefix+name+".zstd\n")
	}
	text = strings.Replace(text, `compression_format: ""`, "compression_format: zstd", 1)
	text = strings.Replace(text, `compression_mode: ""`, "compression_mode: FILE", 1)
	if !strings.Contains(text, "compression_mode: FILE") || !strings.Contains(text, ".db3.zstd") {
		t.Fatalf("metadata.yaml not rewritten:\n%s", text)
	}
	if err := os.WriteFile(filepath.Join(dst, "metadata.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// privateTemp points the OS temp directory at a new empty folder and
// returns a function counting what is left in it.
func privateTemp(t *testing.T) func() int {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return func() int {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}
}

// TestFileCompressedFolder: a folder whose splits Debian's zstd compressed
// reads exactly as the uncompressed folder (channels, summary, messages,
// with and without filters), with version 4's prefixed paths too, and
// leaves no temporary file.
func TestFileCompressedFolder(t *testing.T) {
	dir, want := pythonRecordings(t)
	left := privateTemp(t)
	plain, err := Open(filepath.Join(dir, "split"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for _, prefix := range []string{"", "rosbag2_2020_11_02-22_44_49/"} {
		zdir := filepath.Join(t.TempDir(), "zbag")
		compressFolder(t, filepath.Join(dir, "split"), zdir, prefix)
		r, err := Open(zdir)
		if err != nil {
			t.Fatal(err)
		}
		if n := left(); n != 0 {
			t.Errorf("%d temporary files in TMPDIR while the reader is open", n)
		}
		got := collect(t, r, record.Filter{})
		if !reflect.DeepEqual(got, want["split"]) {
			t.Errorf("prefix %q: messages differ from those written (%d, want %d)", prefix, len(got), len(want["split"]))
		}
		f := record.Filter{Topic: func(s string) bool { return s == "/count" }, Start: 1_000_000_500, End: 1_000_002_500}
		if a, b := collect(t, r, f), collect(t, plain, f); !reflect.DeepEqual(a, b) || len(a) == 0 {
			t.Errorf("filtered: %d messages, uncompressed folder %d", len(a), len(b))
		}
		zs, err := r.Summary()
		if err != nil {
			t.Fatal(err)
		}
		ps, _ := plain.Summary()
		if zs.Compression != "zstd" || !reflect.DeepEqual(zs.Topics, ps.Topics) || zs.MessageCount != ps.MessageCount || zs.StartNs != ps.StartNs || zs.EndNs != ps.EndNs {
			t.Errorf("summary %+v, uncompressed %+v", zs, ps)
		}
		zc, _ := r.Channels()
		pc, _ := plain.Channels()
		if !reflect.DeepEqual(zc, pc) {
			t.Errorf("channels %+v, uncompressed %+v", zc, pc)
		}
		if probs, err := Check(zdir); err != nil || len(probs) != 0 {
			t.Errorf("Check: %v %v", probs, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if n := left(); n != 0 {
			t.Errorf("%d temporary files left in TMPDIR", n)
		}
	}
}

// TestFileCompressedDamage: a cut, a corrupted and an empty .zstd split
// fail Open with a *record.Error naming the file and an offset; with
// WithSkipBad the damaged split is reported and the intact one read. No
// temporary file stays.
func TestFileCompressedDamage(t *testing.T) {
	dir, want := pythonRecordings(t)
	base := t.TempDir() // before TMPDIR changes
	left := privateTemp(t)
	var first []wantMsg // the messages of split_0
	for _, m := range want["split"] {
		if m.Timestamp < 1_000_001_000 {
			first = append(first, m)
		}
	}
	cases := []struct {
		name     string
		damage   func(b []byte) []byte
		sentinel error
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, record.ErrTruncated},
		{"corrupted", func(b []byte) []byte {
			for i := len(b) / 3; i < len(b)/3+64; i++ {
				b[i] ^= 0x5a
			}
			return b
		}, record.ErrFormat},
		{"empty", func(b []byte) []byte { return nil }, record.ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			zdir := filepath.Join(base, c.name)
			compressFolder(t, filepath.Join(dir, "split"), zdir, "")
			bad := filepath.Join(zdir, "split_1.db3.zstd")
			b, err := os.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, c.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Open(zdir)
			var re *record.Error
			if !errors.As(err, &re) || re.File != bad || re.Offset < 0 || !errors.Is(err, c.sentinel) {
				t.Fatalf("Open: %v, want a %v error naming %s", err, c.sentinel, bad)
			}
			if n := left(); n != 0 {
				t.Errorf("%d temporary files left after the failure", n)
			}
			var reported []error
			r, err := Open(zdir, record.WithSkipBad(func(s record.Skipped) { reported = append(reported, s.Err) }))
			if err != nil {
				t.Fatal(err)
			}
			if len(reported) != 0 {
				t.Errorf("Open reported %v; the readings report it", reported)
			}
			if got := collect(t, r, record.Filter{}); !reflect.DeepEqual(got, first) {
				t.Errorf("with skip-bad: %d messages, want split_0's %d", len(got), len(first))
			}
			if len(reported) != 1 || !errors.As(reported[0], &re) || re.File != bad {
				t.Errorf("reported %v, want the damaged split once by the reading", reported)
			}
			if _, err := r.Summary(); err != nil {
				t.Error(err)
			}
			r.Close()
			if n := left(); n != 0 {
				t.Errorf("%d temporary files left", n)
			}
		})
	}
}
