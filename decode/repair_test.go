package decode_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/record"
)

// TestRepair: Repair dispatches to the container's repair. A bag Debian's
// rosbag record left when killed is reindexed to its 549 messages on 2
// connections with nothing damaged (its torn end does not count), and the
// output opens with 549 messages; a cut bag is damaged; a CRC-damaged MCAP
// lists its stretch, kept unverified or, with DropUnverified, left out; a
// db3 file is ErrUnsupported.
func TestRepair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sample := func(name string) string { return filepath.Join("..", "testdata", "sample", name) }
	killed := filepath.Join("bag", "testdata", "rosbag-record-killed.bag.active")
	out := filepath.Join(dir, "killed.bag")
	rep, err := decode.Repair(ctx, decode.FormatBag, killed, out, decode.RepairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Damaged || len(rep.Stretches) != 0 || !strings.HasPrefix(rep.Summary, "549 messages on 2 connections") {
		t.Errorf("killed bag: %+v, want 549 messages on 2 connections, nothing damaged", rep)
	}
	in, err := decode.OpenInputs([]string{out}, decode.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := in.Count(nil); n != 549 {
		t.Errorf("reindexed bag holds %d messages, want 549", n)
	}
	in.Close()

	rep, err = decode.Repair(ctx, decode.FormatBag, sample("broken/study-truncated.bag"), filepath.Join(dir, "cut.bag"), decode.RepairOptions{})
	if err != nil || !rep.Damaged || !strings.Contains(rep.Summary, "skipped") {
		t.Errorf("cut bag: %+v, %v; want damaged with the skipped range in the summary", rep, err)
	}

	for _, drop := range []bool{false, true} {
		rep, err = decode.Repair(ctx, decode.FormatMCAP, sample("broken/study-crc.mcap"), filepath.Join(dir, "crc.mcap"+map[bool]string{false: "", true: ".drop"}[drop]), decode.RepairOptions{DropUnverified: drop})
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

	if _, err := decode.Repair(ctx, decode.FormatDB3, sample("queries.db3"), filepath.Join(dir, "q.db3"), decode.RepairOptions{}); !errors.Is(err, record.ErrUnsupported) {
		t.Errorf("db3: %v, want ErrUnsupported", err)
	}
}
