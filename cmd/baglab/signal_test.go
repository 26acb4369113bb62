package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalLeavesNoTemporary: SIGHUP, SIGTERM or SIGINT while export and
// merge are writing leave no .tmp-* file behind (issue 9 point 3), with
// the signal's exit code.
func TestSignalLeavesNoTemporary(t *testing.T) {
	var inputs []string
	for range 40 {
		inputs = append(inputs, studyFile("study.bag"))
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGHUP, exitHungUp}, {syscall.SIGTERM, exitTerminated}, {syscall.SIGINT, exitInterrupted}} {
		for _, verb := range []string{"export", "merge"} {
			interrupted := signalWhileWriting(t, c.sig, c.code, func(dir string) []string {
				if verb == "merge" {
					return append([]string{"merge", filepath.Join(dir, "out.mcap")}, inputs...)
				}
				return append([]string{"export", "--out", filepath.Join(dir, "tables")}, inputs...)
			})
			if !interrupted {
				t.Errorf("%s %v: never caught while writing", verb, c.sig)
			}
		}
	}
}

// signalWhileWriting runs Main on args(dir) in fresh temporary dirs until
// sig, sent once a .tmp-* file shows in dir, stops a run (at most 5
// attempts; a run that ends first is tried again). The interrupted run must
// exit code within 20 s and leave no .tmp-* in dir. It reports whether a run
// was interrupted.
func signalWhileWriting(t *testing.T, sig syscall.Signal, code int, args func(dir string) []string) bool {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		dir := t.TempDir()
		a := args(dir)
		done := make(chan int, 1)
		var errb strings.Builder
		go func() { done <- Main(a, strings.NewReader(""), &strings.Builder{}, &errb) }()
		finished := false
	wait:
		for {
			select {
			case <-done:
				finished = true
				break wait
			default:
			}
			if len(temporaries(dir)) > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if finished {
			continue // done before a temporary was seen: try again
		}
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		var got int
		select {
		case got = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v %v: still running after 20 s", a, sig)
		}
		if got == exitOK {
			continue // finished before the signal arrived
		}
		if got != code {
			t.Errorf("%v %v: exit %d, want %d: %s", a, sig, got, code, errb.String())
		}
		if left := temporaries(dir); len(left) > 0 {
			t.Errorf("%v %v: left %v", a, sig, left)
		}
		return true
	}
	return false
}

// temporaries lists the .tmp-* files and folders under dir.
func temporaries(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}
