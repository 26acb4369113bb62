package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCopyFailureLeavesNoFolder: a convert or merge that fails (exit 3, an
// MCAP file whose chunk CRC fails) takes away the folders decode.Create
// made for its output, and keeps the empty folder that was there before.
func TestCopyFailureLeavesNoFolder(t *testing.T) {
	crc := studyFile("broken/study-crc.mcap")
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"convert", func(out string) []string { return []string{"convert", crc, out + ".bag"} }},
		{"merge", func(out string) []string { return []string{"merge", out + ".mcap", studyFile("study.mcap"), crc} }},
	} {
		t.Run(c.name, func(t *testing.T) { failureLeavesNoFolder(t, c.name, c.args) })
	}
}

// failureLeavesNoFolder runs the command args gives for an output out in
// missing folders under an empty folder that exists; the run must fail
// with bad input (exit 3) and leave that folder there and empty.
func failureLeavesNoFolder(t *testing.T, verb string, args func(out string) []string) {
	t.Helper()
	before := filepath.Join(t.TempDir(), "before")
	if err := os.Mkdir(before, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, args(filepath.Join(before, "new", "deeper", "out"))...)
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, stderr)
	}
	if ents, err := os.ReadDir(before); err != nil || len(ents) != 0 {
		t.Errorf("%s after the failed %s: %d entries (%v), want it there and empty", before, verb, len(ents), err)
	}
}
