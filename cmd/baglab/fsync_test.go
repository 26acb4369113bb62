package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// syncCalls runs baglab with args under strace and returns its calls of
// the system's syncs (fsync, fdatasync, sync_file_range, sync, syncfs...),
// each as its name and the path of the file it named, as the kernel saw
// it, with the temporary part of the name (".NAME.tmp-123") shortened to
// ".NAME.tmp".
func syncCalls(t *testing.T, args ...string) []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command("strace", append([]string{"-f", "-qq", "-y", "-o", log, "-e", "trace=/sync", os.Args[0]}, args...)...)
	cmd.Env = append(os.Environ(), "BAGLAB_TEST_MAIN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace baglab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`(?m)^\d+ +(\w*sync\w*)\((?:\d+<([^>]*)>)?`)
	tmp := regexp.MustCompile(`\.tmp-\d+`)
	var calls []string
	for _, m := range call.FindAllStringSubmatch(string(b), -1) {
		calls = append(calls, m[1]+" "+tmp.ReplaceAllString(m[2], ".tmp"))
	}
	return calls
}

// TestConvertFsync: convert, filter, merge, reindex and recover write
// their output without syncing it to disk (as cp, rosbag and rosbag2 do),
// and with --fsync sync every file of it before the rename, the kernel's
// own record of the calls (strace) says. The bytes are the same either
// way.
func TestConvertFsync(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		testenv.Missing(t, "strace not on PATH (Debian strace; make deps-apt)")
	}
	in := studyFile("study.bag")
	for _, c := range []struct {
		name string
		args func(out string) []string
		out  string   // the output's name
		want []string // with --fsync: the calls, sorted, the folder's temporary named DIR
	}{
		{"bag", func(out string) []string { return []string{"convert", studyFile("study.mcap"), out} }, "out.bag",
			[]string{"fsync DIR/.out.bag.tmp"}},
		{"mcap", func(out string) []string { return []string{"filter", in, out} }, "out.mcap",
			[]string{"fsync DIR/.out.mcap.tmp"}},
		// a folder: itself and each of its files (nil: as the output holds them)
		{"ros2 mcap", func(out string) []string {
			return []string{"convert", in, out, "--to", "ros2", "--split-size", "50000"}
		}, "out", nil},
		{"ros2 sqlite3", func(out string) []string {
			return []string{"merge", "--to", "ros2", "--storage", "sqlite3", out, in, studyFile("study-lz4.bag")}
		}, "out", nil},
		{"ros2 file", func(out string) []string { return []string{"convert", in, out, "--to", "ros2"} }, "out.mcap",
			[]string{"fsync DIR/.out.mcap.tmp", "fsync DIR/.out.mcap.tmp/out.mcap"}},
		{"reindex", func(out string) []string { return []string{"reindex", in, "-o", out} }, "out.bag",
			[]string{"fsync DIR/.out.bag.tmp"}},
		{"recover", func(out string) []string { return []string{"recover", studyFile("study.mcap"), "-o", out} }, "out.mcap",
			[]string{"fsync DIR/.out.mcap.tmp"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dirs := [2]string{t.TempDir(), t.TempDir()}
			if got := syncCalls(t, append(c.args(filepath.Join(dirs[0], c.out)), "-q")...); len(got) != 0 {
				t.Errorf("without --fsync: %q, want no sync", got)
			}
			got := syncCalls(t, append(c.args(filepath.Join(dirs[1], c.out)), "-q", "--fsync")...)
			for i := range got {
				got[i] = strings.Replace(got[i], dirs[1], "DIR", 1)
			}
			slices.Sort(got)
			if c.want == nil {
				c.want = []string{"fsync DIR/.out.tmp"}
				entries, err := os.ReadDir(filepath.Join(dirs[1], c.out))
				if err != nil || len(entries) < 2 {
					t.Fatalf("want a folder of splits and metadata.yaml: %v, %v", entries, err)
				}
				for _, e := range entries {
					c.want = append(c.want, "fsync DIR/.out.tmp/"+e.Name())
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("with --fsync: %q, want %q", got, c.want)
			}
			sameTree(t, filepath.Join(dirs[0], c.out), filepath.Join(dirs[1], c.out))
		})
	}
}

// sameTree fails t unless a and b (files, or folders of files) hold the
// same names and bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	var names []string
	err := filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(a, p)
			names = append(names, rel)
		}
		return err
	})
	if err != nil || len(names) == 0 {
		t.Fatalf("%s: %v, %d files", a, err, len(names))
	}
	for _, n := range names {
		x, errx := os.ReadFile(filepath.Join(a, n))
		y, erry := os.ReadFile(filepath.Join(b, n))
		if errx != nil || erry != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %d and %d bytes differ (%v, %v)", n, len(x), len(y), errx, erry)
		}
	}
}
