package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestClosingCountCountsMessages: the closing line of --skip-bad counts
// messages, not skip reports, and says the same in every verb: on an MCAP
// file whose chunk CRC fails, the messages left out are those that
// --keep-unverified keeps (the difference of the two cat outputs), and
// with --keep-unverified they are counted as kept unverified; the damaged
// byte range is given too. Before, every verb ended with "1 message(s)
// skipped", also when it kept every message.
func TestClosingCountCountsMessages(t *testing.T) {
	in := studyFile("broken/study-crc.mcap")
	count := func(args ...string) (int, string) {
		stdout, stderr, code := run(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		return strings.Count(stdout, "\n"), lines[len(lines)-1]
	}
	verified, last := count("cat", "-q", "--skip-bad", in)
	all, lastKept := count("cat", "-q", "--skip-bad", "--keep-unverified", in)
	lost := all - verified
	if lost <= 0 {
		t.Fatalf("the fixture loses nothing: %d and %d messages", verified, all)
	}
	want := fmt.Sprintf("baglab: --skip-bad: %d messages left out, 1 damaged byte range (", lost)
	wantKept := fmt.Sprintf("baglab: --skip-bad: 0 messages left out, %d messages kept unverified (no CRC vouches for them), 1 damaged byte range (", lost)
	if !strings.HasPrefix(last, want) {
		t.Errorf("cat --skip-bad ends %q, want %q...", last, want)
	}
	if !strings.HasPrefix(lastKept, wantKept) {
		t.Errorf("cat --skip-bad --keep-unverified ends %q, want %q...", lastKept, wantKept)
	}
	for _, args := range [][]string{
		{"export", "-q", "--skip-bad", in, "--out", filepath.Join(t.TempDir(), "x")},
		{"analyze", "all", "-q", "--skip-bad", in},
	} {
		if _, got := count(args...); got != last {
			t.Errorf("%s ends %q, cat %q", args[0], got, last)
		}
	}
}
