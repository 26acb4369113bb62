package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairExitCodes: reindex and recover exit 0 only when nothing was
// lost; the torn end of a recording that was never closed does not count
// (issue 10 point 3).
func TestRepairExitCodes(t *testing.T) {
	killed := filepath.Join("..", "..", "decode", "bag", "testdata", "rosbag-record-killed.bag.active")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"reindex", killed}, exitOK, "549 messages on 2 connections"},
		{[]string{"reindex", studyFile("broken/study.bag.active")}, exitOK, "messages"},
		{[]string{"reindex", studyFile("broken/study-truncated.bag")}, exitProblem, "skipped"},
		{[]string{"recover", studyFile("broken/study-crc.mcap")}, exitProblem, "kept unverified"},
		{[]string{"recover", studyFile("study.mcap")}, exitOK, "messages"},
	} {
		out := filepath.Join(t.TempDir(), "out"+filepath.Ext(strings.TrimSuffix(c.args[1], ".active")))
		stdout, stderr, code := run(t, append(c.args, "-o", out)...)
		if code != c.code || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, c.code, stdout, stderr)
		}
	}
}
