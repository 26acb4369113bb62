package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion: `baglab --version` prints what `baglab version` prints.
func TestVersion(t *testing.T) {
	cmdOut, _, code := run(t, "version")
	if code != exitOK || !strings.HasPrefix(cmdOut, "baglab "+version+" ") || !strings.Contains(cmdOut, runtime.Version()) {
		t.Fatalf("baglab version: exit %d, %q", code, cmdOut)
	}
	flagOut, stderr, code := run(t, "--version")
	if code != exitOK || flagOut != cmdOut {
		t.Errorf("baglab --version: exit %d, %q (stderr %q), want %q", code, flagOut, stderr, cmdOut)
	}
}
