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
			interrupted := false
			for attempt := 0; attempt < 5 && !interrupted; attempt++ {
				dir := t.TempDir()
				args := append([]string{"export", "--out", filepath.Join(dir, "tables")}, inputs...)
				if verb == "merge" {
					args = append([]string{"merge", filepath.Join(dir, "out.mcap")}, inputs...)
				}
				done := make(chan int, 1)
				var errb strings.Builder
				go func() { done <- Main(args, strings.NewReader(""), &strings.Builder{}, &errb) }()
				var code int
				finished := false
			wait:
				for {
					select {
					case code = <-done:
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
				if err := syscall.Kill(os.Getpid(), c.sig); err != nil {
					t.Fatal(err)
				}
				select {
				case code = <-done:
				case <-time.After(20 * time.Second):
					t.Fatalf("%s %v: still running after 20 s", verb, c.sig)
				}
				if code == exitOK {
					continue // finished before the signal arrived
				}
				interrupted = true
				if code != c.code {
					t.Errorf("%s %v: exit %d, want %d: %s", verb, c.sig, code, c.code, errb.String())
				}
				if left := temporaries(dir); len(left) > 0 {
					t.Errorf("%s %v: left %v", verb, c.sig, left)
				}
			}
			if !interrupted {
				t.Errorf("%s %v: never caught while writing", verb, c.sig)
			}
		}
	}
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
