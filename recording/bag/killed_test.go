package bag

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// TestRosbagRecordKilled reads bags that Debian's C++ rosbag record left
// when killed with SIGKILL (testdata/PROVENANCE.md): a crash recording is
// not an error (issue 10 point 2). Summary and the iterator read every
// complete message — at least all that Debian rosbag's own reindex
// recovers, the same bytes in the same order — and the torn end is
// reported once, as a truncation running to the end of the file.
func TestRosbagRecordKilled(t *testing.T) {
	for _, name := range []string{"rosbag-record-killed.bag.active", "rosbag-record-killed-lz4.bag.active"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var torn []record.Skipped
			r, err := Open(path, record.WithWarning(func(s record.Skipped) { torn = append(torn, s) }))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			s, err := r.Summary()
			if err != nil || s.Unindexed == "" || len(s.Topics) != 2 {
				t.Fatalf("summary %+v, %v", s, err)
			}
			if len(torn) != 0 {
				t.Fatalf("Summary reported %v", torn)
			}
			got := collect(t, r, record.Filter{})
			if s.MessageCount != uint64(len(got)) {
				t.Errorf("summary counts %d messages, the iterator reads %d", s.MessageCount, len(got))
			}
			if len(torn) != 1 || !errors.Is(torn[0].Err, record.ErrTruncated) || torn[0].Offset+torn[0].Length != int64(len(data)) ||
				!strings.Contains(torn[0].Note, "never closed") {
				t.Fatalf("torn %+v", torn)
			}
			peer := runPeer(t, "reindex", path, filepath.Join(t.TempDir(), "peer.bag"))
			want := peer.msgs(t)
			if len(got) < len(want) || len(want) < 400 {
				t.Fatalf("%d messages, Debian rosbag reindex recovers %d", len(got), len(want))
			}
			// rosbag reindex gives up on the unterminated chunk; the
			// complete records in it (stored) are ours alone.
			equalMsgs(t, timeOrder(got[:len(want)]), timeOrder(want))
			t.Logf("%d messages (Debian rosbag reindex: %d); torn %d bytes at %d", len(got), len(want), torn[0].Length, torn[0].Offset)
		})
	}
}
