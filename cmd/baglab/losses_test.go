package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
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

// rosbagManyChunks writes, with Debian's rosbag, 2,000 std_msgs/String
// messages of 100 to 199 bytes in chunks of about 4 kB, and prints how
// many messages rosbag reads back.
const rosbagManyChunks = `
import logging, sys
logging.disable(logging.CRITICAL)
import rosbag, rospy
from std_msgs.msg import String
with rosbag.Bag(sys.argv[1], "w", chunk_threshold=int(sys.argv[2])) as bag:
    for i in range(2000):
        bag.write("/text", String(data="x" * (100 + i % 100)), rospy.Time(100, i * 1000))
print(rosbag.Bag(sys.argv[1]).get_message_count())
`

// TestCutBagLossCountsPastTheEnd: a closed bag cut in half (an
// interrupted download) lost the messages of every chunk past the cut,
// not only those of the torn chunk. The bag header's index position says
// how many bytes of chunks followed the cut end, so the closing line's
// estimate covers them: what cat reads plus the estimate comes within 3%
// of what rosbag reads of the whole file for chunks of 4 KB, and within
// 6% for one chunk of the whole file (the index records that follow the
// chunk, 12 bytes per message, count as lost bytes there, where with many
// chunks the mean size of the intact ones includes theirs). Before, the estimate covered the torn chunk's
// bytes only and fell short by about half the file; and when the torn
// chunk was the only one, it took the few bytes before it for the mean
// message size and said 1,000 times too many messages were lost.
func TestCutBagLossCountsPastTheEnd(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	for threshold, percent := range map[int]int{4096: 3, 1 << 20: 6} {
		dir := t.TempDir()
		whole := filepath.Join(dir, "whole.bag")
		out, err := exec.Command(testenv.Python, "-c", rosbagManyChunks, whole, strconv.Itoa(threshold)).Output()
		if err != nil {
			t.Fatalf("rosbag: %v", err)
		}
		total, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil || total != 2000 {
			t.Fatalf("rosbag read %q messages (%v)", out, err)
		}
		data, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(dir, "cut.bag")
		if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := run(t, "cat", "-q", "--skip-bad", cut)
		if code != exitOK {
			t.Fatalf("chunks of %d bytes: cat: exit %d: %s", threshold, code, stderr)
		}
		read := strings.Count(stdout, "\n")
		m := regexp.MustCompile(`about (\d+) messages? lost in unreadable bytes and in the (\d+) bytes that the bag header says followed the cut end`).FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("chunks of %d bytes: no estimate past the cut end in:\n%s", threshold, stderr)
		}
		lost, _ := strconv.Atoi(m[1])
		if d := read + lost - total; d < -total*percent/100 || d > total*percent/100 {
			t.Errorf("chunks of %d bytes: read %d + about %d lost = %d, rosbag reads %d in the whole file", threshold, read, lost, read+lost, total)
		}
	}
}

// TestCutMCAPLossCountsTheTornChunk: an MCAP file cut inside its one chunk
// (rosbag's 2,000 messages converted) lost the rest of the chunk. The
// chunk header gives its uncompressed size, so the closing line estimates
// the messages of what did not arrive, at the density of the records that
// did: what cat reads plus the estimate comes within 3% of what rosbag
// reads, for the chunk stored, zstd and lz4. Before, it said "0 messages
// left out" beside the messages kept unverified.
func TestCutMCAPLossCountsTheTornChunk(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.bag")
	out, err := exec.Command(testenv.Python, "-c", rosbagManyChunks, whole, strconv.Itoa(1<<20)).Output()
	if err != nil {
		t.Fatalf("rosbag: %v", err)
	}
	total, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || total != 2000 {
		t.Fatalf("rosbag read %q messages (%v)", out, err)
	}
	for _, compression := range []string{"none", "zstd", "lz4"} {
		mcap := filepath.Join(dir, compression+".mcap")
		if _, stderr, code := run(t, "convert", "-q", whole, mcap, "--compression", compression); code != exitOK {
			t.Fatalf("convert: exit %d: %s", code, stderr)
		}
		data, err := os.ReadFile(mcap)
		if err != nil {
			t.Fatal(err)
		}
		chunks := studygen.MCAPChunks(data)
		if len(chunks) == 0 {
			t.Fatalf("%s: no chunk", compression)
		}
		start, end := chunks[0][0], chunks[0][1]
		cut := filepath.Join(dir, compression+"-cut.mcap")
		if err := os.WriteFile(cut, data[:start+9+(end-start-9)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := run(t, "cat", "-q", "--skip-bad", cut)
		if code != exitOK {
			t.Fatalf("%s: cat: exit %d: %s", compression, code, stderr)
		}
		read := strings.Count(stdout, "\n")
		m := regexp.MustCompile(`about (\d+) messages? lost in unreadable bytes`).FindStringSubmatch(stderr)
		if m == nil {
			t.Errorf("%s: read %d, no estimate of the rest in:\n%s", compression, read, stderr)
			continue
		}
		lost, _ := strconv.Atoi(m[1])
		if d := read + lost - total; d < -total*3/100 || d > total*3/100 {
			t.Errorf("%s: read %d + about %d lost = %d, rosbag reads %d", compression, read, lost, read+lost, total)
		}
	}
}
