package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
)

// baglab record --snapshot as a process of its own: SIGUSR1 writes a
// snapshot beside -o, named by the trigger time, holding the last
// --snapshot-duration; Ctrl-C ends it with exit 0 and lists the file.
func TestRecordSnapshotSIGUSR1(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	m.Start(t, "pub", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/chatter", "std_msgs/String", "data: hi")
	dir := t.TempDir()
	rec := startBaglab(t, m, "rec", "record", "--snapshot", "--snapshot-duration", "1s", "-o", filepath.Join(dir, "box.bag"), "/chatter")
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(m.Log("rec"), "/chatter: connected to"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("recorder not connected\n%s", m.Log("rec"))
		}
	}
	time.Sleep(3 * time.Second)
	rec.Signal(syscall.SIGUSR1)
	var snaps []string
	for deadline := time.Now().Add(20 * time.Second); len(snaps) == 0; time.Sleep(100 * time.Millisecond) {
		snaps, _ = filepath.Glob(filepath.Join(dir, "box_*.bag"))
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot after SIGUSR1\n%s", m.Log("rec"))
		}
	}
	if err := rec.Stop(syscall.SIGINT, 30*time.Second); err != nil {
		t.Fatalf("record: %v\n%s", err, m.Log("rec"))
	}
	n := len(readTopics(t, snaps[0])["/chatter"])
	if n < 5 || n > 25 {
		t.Fatalf("%d messages in a 1 s snapshot at 20 Hz", n)
	}
	if log := m.Log("rec"); !strings.Contains(log, "SIGUSR1: snapshot written to "+snaps[0]) || !strings.Contains(log, "wrote "+snaps[0]) {
		t.Fatalf("log:\n%s", log)
	}
}

func TestRecordSnapshotUsage(t *testing.T) {
	for _, args := range [][]string{
		{"record", "-o", "x.bag", "--snapshot-duration", "5s", "/a"},
		{"record", "-o", "x.bag", "--snapshot", "--split", "--duration", "5", "/a"},
		{"record", "-o", "x.bag", "--snapshot", "--snapshot-size", "lots", "/a"},
		{"record", "-o", "x.bag", "--snapshot", "--snapshot-service", "other", "/a"},
	} {
		if _, errOut, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
}
