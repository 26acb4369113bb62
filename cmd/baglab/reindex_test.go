package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRepairExitCodes: reindex and recover exit 0 only when nothing was
// lost; the torn end of a recording that was never closed does not count
// (issue 10 point 3).
func TestRepairExitCodes(t *testing.T) {
	killed := filepath.Join("..", "..", "recording", "bag", "testdata", "rosbag-record-killed.bag.active")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"reindex", killed}, exitOK, "549 messages on 2 connections"},
		{[]string{"reindex", studyFile("broken/study.bag.active")}, exitOK, "messages"},
		{[]string{"reindex", studyFile("broken/study-truncated.bag")}, exitProblem, "skipped"},
		{[]string{"recover", studyFile("broken/study-crc.mcap")}, exitProblem, "messages dropped: no CRC vouches for them"},
		{[]string{"recover", "--keep-unverified", studyFile("broken/study-crc.mcap")}, exitProblem, "kept unverified"},
		{[]string{"recover", studyFile("study.mcap")}, exitOK, "messages"},
	} {
		out := filepath.Join(t.TempDir(), "out"+filepath.Ext(strings.TrimSuffix(c.args[len(c.args)-1], ".active")))
		stdout, stderr, code := run(t, append(c.args, "-o", out)...)
		if code != c.code || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, c.code, stdout, stderr)
		}
	}
}

// TestRepairSignal: SIGINT or SIGTERM stops reindex and recover while they
// write, with the signal's exit code, and leaves neither the output nor a
// .tmp-* file (issue 10 point 5).
func TestRepairSignal(t *testing.T) {
	src := t.TempDir()
	var inputs []string
	for range 40 {
		inputs = append(inputs, studyFile("study.bag"))
	}
	for _, name := range []string{"big.bag", "big.mcap"} {
		if _, stderr, code := run(t, append([]string{"merge", filepath.Join(src, name)}, inputs...)...); code != exitOK {
			t.Fatalf("merge %s: exit %d: %s", name, code, stderr)
		}
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitInterrupted}, {syscall.SIGTERM, exitTerminated}} {
		for _, verb := range []string{"reindex", "recover"} {
			in, out := filepath.Join(src, "big.bag"), "out.bag"
			if verb == "recover" {
				in, out = filepath.Join(src, "big.mcap"), "out.mcap"
			}
			var last string
			interrupted := signalWhileWriting(t, c.sig, c.code, func(dir string) []string {
				last = filepath.Join(dir, out)
				return []string{verb, in, "-o", last}
			})
			if !interrupted {
				t.Errorf("%s %v: never caught while writing", verb, c.sig)
				continue
			}
			if _, err := os.Stat(last); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s %v: %s is there (%v)", verb, c.sig, last, err)
			}
		}
	}
}

// TestRepairOutputFormat: reindex writes a bag and recover an MCAP file; an
// -o naming the other format is a usage error before the input is read (the
// input here does not exist, which would exit 4).
func TestRepairOutputFormat(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"reindex", filepath.Join(dir, "missing.bag"), "-o", filepath.Join(dir, "x.mcap")},
		{"recover", filepath.Join(dir, "missing.mcap"), "-o", filepath.Join(dir, "x.bag")},
	} {
		_, stderr, code := run(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "x.") {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}

// TestRepairFailureLeavesNoFolder: a reindex that fails (exit 3, a bag
// with no bag header) takes away the folders it made for -o, and keeps
// the empty folder that was there before.
func TestRepairFailureLeavesNoFolder(t *testing.T) {
	in := filepath.Join(t.TempDir(), "no-header.bag")
	if err := os.WriteFile(in, []byte("#ROSBAG V2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failureLeavesNoFolder(t, "reindex", func(out string) []string { return []string{"reindex", in, "-o", out + ".bag"} })
}

// TestRecoverUnverified: recover leaves out what no CRC vouches for by
// default, as cat --skip-bad does; with --keep-unverified it keeps what
// cat --skip-bad --keep-unverified keeps and marks the output, so that
// doctor warns, info lists the mark and cat says so even with --quiet.
// Before, recover kept those messages by default, wrote them with fresh
// CRCs, and doctor called the output ok.
func TestRecoverUnverified(t *testing.T) {
	dir := t.TempDir()
	in := studyFile("broken/study-crc.mcap")
	dropped, kept := filepath.Join(dir, "dropped.mcap"), filepath.Join(dir, "kept.mcap")
	if _, stderr, code := run(t, "recover", in, "-o", dropped); code != exitProblem {
		t.Fatalf("recover: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "recover", "--keep-unverified", in, "-o", kept); code != exitProblem {
		t.Fatalf("recover --keep-unverified: exit %d: %s", code, stderr)
	}
	lines := func(args ...string) int {
		stdout, stderr, code := run(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return strings.Count(stdout, "\n")
	}
	verified, all := lines("cat", "-q", "--skip-bad", in), lines("cat", "-q", "--skip-bad", "--keep-unverified", in)
	if verified >= all {
		t.Fatalf("the fixture has no unverified messages: %d verified, %d in all", verified, all)
	}
	for path, want := range map[string]int{dropped: verified, kept: all} {
		stdout, stderr, code := run(t, "cat", "-q", path)
		if code != exitOK || strings.Count(stdout, "\n") != want {
			t.Errorf("cat %s: exit %d, %d messages, want %d: %s", filepath.Base(path), code, strings.Count(stdout, "\n"), want, stderr)
		}
		marked := strings.Contains(stderr, fmt.Sprintf("unverified content: %d messages kept by baglab recover", all-verified))
		if marked != (path == kept) {
			t.Errorf("cat -q %s: stderr %q; want the unverified note only for the kept output", filepath.Base(path), stderr)
		}
		stdout, _, _ = run(t, "doctor", path)
		if warned := strings.Contains(stdout, "kept unverified by baglab recover"); warned != (path == kept) {
			t.Errorf("doctor %s: %q", filepath.Base(path), stdout)
		}
		stdout, _, _ = run(t, "info", path)
		if listed := strings.Contains(stdout, fmt.Sprintf("metadata baglab_unverified:\n  messages: %d\n", all-verified)); listed != (path == kept) {
			t.Errorf("info %s: %q", filepath.Base(path), stdout)
		}
	}
}
