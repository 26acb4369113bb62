package recording_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// openFiles counts the open file descriptors of the process, from Linux's
// /proc/self/fd (this file builds on Linux only).
func openFiles(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting open files: %v", err)
	}
	return len(ents)
}

// TestInputsOpenLazily: OpenInputs over many recordings leaves none of
// them open, and reading them (Each with two jobs, FileMessages, the
// merged Messages) opens each only while it is read, so the open files
// do not grow with the number of inputs. Messages carry the channels that
// Channels listed, although the files were opened again.
func TestInputsOpenLazily(t *testing.T) {
	study := genStudy(t)
	dir := t.TempDir()
	const copies = 20
	var paths []string
	for i := range copies {
		for _, name := range []string{"study.bag", "study.mcap", "queries.db3"} {
			p := filepath.Join(dir, fmt.Sprintf("%02d-%s", i, name))
			recordtest.CopyFile(t, filepath.Join(study, name), p)
			paths = append(paths, p)
		}
	}
	base := openFiles(t)
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if n := openFiles(t); n > base {
		t.Errorf("%d files open after OpenInputs of %d recordings, %d before", n, len(paths), base)
	}
	// Each recording is open while read: two at a time, each at most a
	// few descriptors (sqlite keeps a journal beside the database).
	const perReading = 4
	var mu sync.Mutex
	most, wrong := 0, 0
	msgs := make([]uint64, len(paths))
	err = in.Each(context.Background(), recording.EachOptions{Jobs: 2, Visit: func(file int, m *record.Message, _ decode.Decoder) error {
		chans, _ := in.File(file).Channels()
		n := openFiles(t)
		mu.Lock()
		defer mu.Unlock()
		most = max(most, n)
		if !slices.Contains(chans, m.Channel) {
			wrong++
		}
		msgs[file]++
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if most > base+2*perReading {
		t.Errorf("Each with 2 jobs over %d recordings had up to %d files open, %d before", len(paths), most, base)
	}
	if wrong > 0 {
		t.Errorf("%d messages carry a channel that Channels does not list", wrong)
	}
	for i, n := range msgs {
		if want := in.File(i).Summary().MessageCount; n != want {
			t.Errorf("%s: %d messages, the summary says %d", paths[i], n, want)
		}
	}
	if n := openFiles(t); n > base {
		t.Errorf("%d files open after Each, %d before", n, base)
	}
	for i := range paths {
		it, err := in.File(i).Messages(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if n := openFiles(t); n > base+perReading {
			t.Errorf("FileMessages(%d): %d files open, %d before", i, n, base)
		}
		it.Close()
	}
	it, err := in.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	recordtest.Each(t, it, func(*record.Message) { total++ })
	if total != in.Summary().MessageCount {
		t.Errorf("Messages: %d messages, the summaries say %d", total, in.Summary().MessageCount)
	}
	if n := openFiles(t); n > base {
		t.Errorf("%d files open after the merged stream was closed, %d before", n, base)
	}
}
