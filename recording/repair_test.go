package recording_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// TestRepair: Repair dispatches to the container's repair. A bag Debian's
// rosbag record left when killed is reindexed to its 549 messages on 2
// connections with nothing damaged (its torn end does not count), and the
// output opens with 549 messages; a cut bag is damaged; a CRC-damaged MCAP
// lists its stretch, left out or, with KeepUnverified, kept unverified; a
// db3 file is ErrUnsupported.
func TestRepair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sample := func(name string) string { return filepath.Join("..", "testdata", "sample", name) }
	killed := filepath.Join("bag", "testdata", "rosbag-record-killed.bag.active")
	out := filepath.Join(dir, "killed.bag")
	rep, err := recording.Repair(ctx, recording.FormatBag, killed, out, recording.RepairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Damaged || len(rep.Stretches) != 0 || !strings.HasPrefix(rep.Summary, "549 messages on 2 connections") {
		t.Errorf("killed bag: %+v, want 549 messages on 2 connections, nothing damaged", rep)
	}
	in, err := recording.OpenInputs([]string{out}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := in.Count(nil); n != 549 {
		t.Errorf("reindexed bag holds %d messages, want 549", n)
	}
	in.Close()

	rep, err = recording.Repair(ctx, recording.FormatBag, sample("broken/study-truncated.bag"), filepath.Join(dir, "cut.bag"), recording.RepairOptions{})
	if err != nil || !rep.Damaged || !strings.Contains(rep.Summary, "skipped") {
		t.Errorf("cut bag: %+v, %v; want damaged with the skipped range in the summary", rep, err)
	}

	for _, drop := range []bool{false, true} {
		rep, err = recording.Repair(ctx, recording.FormatMCAP, sample("broken/study-crc.mcap"), filepath.Join(dir, "crc.mcap"+map[bool]string{false: "", true: ".drop"}[drop]), recording.RepairOptions{KeepUnverified: !drop})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Damaged || len(rep.Stretches) != 1 || rep.Stretches[0].Unverified == drop || rep.Stretches[0].Length <= 0 {
			t.Errorf("CRC-damaged MCAP, drop %v: %+v; want one stretch, unverified %v", drop, rep, !drop)
		}
		if drop != strings.Contains(rep.Summary, "dropped") {
			t.Errorf("CRC-damaged MCAP, drop %v: summary %q", drop, rep.Summary)
		}
	}

	if _, err := recording.Repair(ctx, recording.FormatDB3, sample("queries.db3"), filepath.Join(dir, "q.db3"), recording.RepairOptions{}); !errors.Is(err, record.ErrUnsupported) {
		t.Errorf("db3: %v, want ErrUnsupported", err)
	}
}

// TestRepairFolders: Repair makes the missing folders of its output and,
// when it fails (a bag with no bag header, an MCAP recovery cancelled),
// removes those it made that are empty again, keeping every folder that
// was there before, even an empty one, and one it made that holds a file.
func TestRepairFolders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty") // there before, and empty
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join("bag", "testdata", "rosbag-record-killed.bag.active")
	ok := filepath.Join(empty, "made", "ok.bag")
	if _, err := recording.Repair(ctx, recording.FormatBag, killed, ok, recording.RepairOptions{}); err != nil {
		t.Fatalf("repair into a new folder: %v", err)
	}
	if _, err := os.Stat(ok); err != nil {
		t.Fatal(err)
	}
	noHeader := filepath.Join(dir, "no-header.bag")
	if err := os.WriteFile(noHeader, []byte("#ROSBAG V2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	mcap := filepath.Join("..", "testdata", "sample", "study.mcap")
	for _, c := range []struct {
		name      string
		ctx       context.Context
		f         recording.Format
		in, out   string
		gone      string // the first folder Repair made
		kept      string // the folder that must stay
		keptHolds int    // entries it holds afterwards
	}{
		{"bag without header", ctx, recording.FormatBag, noHeader, filepath.Join(empty, "a", "b", "out.bag"), filepath.Join(empty, "a"), empty, 1},
		{"cancelled MCAP", cancelled, recording.FormatMCAP, mcap, filepath.Join(empty, "made", "c", "out.mcap"), filepath.Join(empty, "made", "c"), filepath.Join(empty, "made"), 1},
		{"into a folder made before", ctx, recording.FormatBag, noHeader, filepath.Join(empty, "made", "out.bag"), "", filepath.Join(empty, "made"), 1},
	} {
		if _, err := recording.Repair(c.ctx, c.f, c.in, c.out, recording.RepairOptions{}); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if c.gone != "" {
			if _, err := os.Stat(c.gone); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %s is there after the failure (%v)", c.name, c.gone, err)
			}
		}
		if ents, err := os.ReadDir(c.kept); err != nil || len(ents) != c.keptHolds {
			t.Errorf("%s: %s holds %d entries (%v), want %d", c.name, c.kept, len(ents), err, c.keptHolds)
		}
	}
	// The folder that was there before stays, emptied of what Repair made.
	if err := os.RemoveAll(filepath.Join(empty, "made")); err != nil {
		t.Fatal(err)
	}
	if _, err := recording.Repair(ctx, recording.FormatBag, noHeader, filepath.Join(empty, "x", "out.bag"), recording.RepairOptions{}); err == nil {
		t.Error("no header: no error")
	}
	if ents, err := os.ReadDir(empty); err != nil || len(ents) != 0 {
		t.Errorf("%s: %d entries (%v), want it there and empty", empty, len(ents), err)
	}
}
