package recorder

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/recording"
)

// fileTimes reads a recorded bag: the receive times of topic's messages
// and the statistics kept in it.
func fileTimes(t *testing.T, path, topic string) ([]time.Time, Stats) {
	t.Helper()
	rd, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	msgs := recordtest.MessagesByTopic(t, rd)
	var times []time.Time
	for _, m := range msgs[topic] {
		times = append(times, time.Unix(0, m.LogTime))
	}
	var st Stats
	if s := msgs[StatsTopic]; len(s) != 1 || json.Unmarshal([]byte(stringData(s[0].Data)), &st) != nil {
		t.Fatalf("%s: no statistics message", path)
	}
	return times, st
}

// --duration is checked as rosbag record's writer checks it before each
// message (recorder.cpp checkDuration): a message received more than the
// duration after the file's start goes to the next file, and the next
// file starts where the last one's duration ends (start_time_ +=
// max_duration), so with --split file k holds what was received in
// (start + k·D, start + (k+1)·D], however long closing a file takes.
// Without --split the recording ends there, and no later message is
// written. --max-splits N keeps N closed files besides the one being
// written (recorder.cpp checkNumSplits deletes the oldest only when more
// than N closed files are listed): Debian's rosbag record --split
// --duration 1 --max-splits 2 left NAME_3, NAME_4 and NAME_5.
func TestRecordDurationGrid(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	dir := t.TempDir()
	const d = 400 * time.Millisecond
	split := filepath.Join(dir, "grid.bag")
	r, stop := startRecorder(t, m, Options{Output: split, Topics: []string{"/grid"}, Split: true, Duration: d})
	once := filepath.Join(dir, "once.bag")
	_, stopOnce := startRecorder(t, m, Options{Output: once, Topics: []string{"/grid"}, Duration: 3 * time.Second,
		NodeOptions: rosnode.Options{Name: "/record_once"}})
	keep := filepath.Join(dir, "keep.bag")
	_, stopKeep := startRecorder(t, m, Options{Output: keep, Topics: []string{"/grid"}, Split: true, Duration: d, MaxSplits: 2,
		NodeOptions: rosnode.Options{Name: "/record_keep"}})
	pub := m.Start(t, "pub", rostest.Python, "-c", pyPublisher, "grid", "/grid", "600", "200")
	if err := pub.Wait(60 * time.Second); err != nil {
		t.Fatalf("publisher: %v\n%s", err, m.Log("pub"))
	}
	r.waitReceived(t, "/grid", 600, 10*time.Second)
	res := stop()
	n := 0
	for k, f := range res.Files {
		if want := filepath.Join(dir, fmt.Sprintf("grid_%d.bag", k)); f != want {
			t.Fatalf("file %d is %s, want %s", k, f, want)
		}
		times, st := fileTimes(t, f, "/grid")
		from, to := st.Started.Add(time.Duration(k)*d), st.Started.Add(time.Duration(k+1)*d)
		for i, at := range times {
			if k > 0 && !at.After(from) || at.After(to) {
				t.Fatalf("%s: message %d received %s after the start, want within (%s, %s]",
					f, i, at.Sub(st.Started), from.Sub(st.Started), to.Sub(st.Started))
			}
		}
		n += len(times)
	}
	if n != 600 || len(res.Files) < 8 {
		t.Fatalf("%d messages in %d files, want 600 in at least 8", n, len(res.Files))
	}

	resOnce := stopOnce()
	times, st := fileTimes(t, once, "/grid")
	if len(times) == 0 || len(resOnce.Files) != 1 {
		t.Fatalf("without --split: %d messages in %v", len(times), resOnce.Files)
	}
	for i, at := range times {
		if at.Sub(st.Started) > 3*time.Second {
			t.Fatalf("without --split: message %d received %s after the start, want none after --duration 3s", i, at.Sub(st.Started))
		}
	}

	// The last file written is keep_N.bag; N-2, N-1 and N stay.
	resKeep := stopKeep()
	var last int
	if len(resKeep.Files) > 0 {
		fmt.Sscanf(filepath.Base(resKeep.Files[len(resKeep.Files)-1]), "keep_%d.bag", &last)
	}
	var want []string
	for k := last - 2; k <= last; k++ {
		want = append(want, filepath.Join(dir, fmt.Sprintf("keep_%d.bag", k)))
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "keep_*"))
	slices.Sort(onDisk)
	if last < 3 || !slices.Equal(resKeep.Files, want) || !slices.Equal(onDisk, slices.Sorted(slices.Values(want))) {
		t.Fatalf("--max-splits 2: kept %v, on disk %v; want the last 3 files %v", resKeep.Files, onDisk, want)
	}
}
