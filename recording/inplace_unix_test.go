//go:build unix

package recording_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// writeStringBag writes n std_msgs/String messages of size bytes each (the
// i-th filled with the letter i%26 after a) to a bag whose chunks are
// stored uncompressed, which an in-place reading maps.
func writeStringBag(t *testing.T, path string, n, size int) {
	t.Helper()
	w, err := recording.Create(path, recording.CreateOptions{Compression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/text", MessageEncoding: "ros1",
		Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: stringMD5}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		at := int64(1e18) + int64(i)*1e6
		data := stringMsg(strings.Repeat(string(rune('a'+i%26)), size))
		if err := w.WriteMessage(id, &record.Message{LogTime: at, PublishTime: at, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInPlacePinned: a bag read in place gives its messages Pinned, and
// their data, kept without a copy, holds after every later Next and until
// Close the bytes a reading through system calls gives.
func TestInPlacePinned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.bag")
	writeStringBag(t, path, 300, 10_000)
	read := func(o recording.OpenOptions) []record.Message {
		r, err := recording.OpenWith(path, o)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		it, err := r.Messages(record.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		var all []record.Message
		for {
			m, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			c := *m
			if !m.Pinned { // valid until Next
				c.Data = bytes.Clone(m.Data)
			}
			all = append(all, c)
		}
		for i, m := range all { // before Close
			if m.Pinned != o.InPlace {
				t.Fatalf("in place %v: message %d Pinned %v", o.InPlace, i, m.Pinned)
			}
			if want := byte('a' + i%26); len(m.Data) != 10_004 || m.Data[4] != want || m.Data[10_003] != want {
				t.Fatalf("in place %v: message %d holds %q...%q, want %c", o.InPlace, i, m.Data[4:8], m.Data[10_000:], want)
			}
		}
		return all
	}
	if n := len(read(recording.OpenOptions{InPlace: true})); n != 300 {
		t.Errorf("in place: %d messages, want 300", n)
	}
	read(recording.OpenOptions{})
}

// cutOnWrite cuts the file at path to its first kilobyte on the first
// write, as another program truncating a recording while it is read.
type cutOnWrite struct {
	path string
	cut  bool
	t    *testing.T
}

func (c *cutOnWrite) Write(p []byte) (int, error) {
	if !c.cut {
		c.cut = true
		if err := os.Truncate(c.path, 1024); err != nil {
			c.t.Error(err)
		}
	}
	return len(p), nil
}

// TestCatInPlaceCutShort: a bag cut short by another program while cat
// reads it in place ends the output with an error naming the file, as a
// cut file does, where a read of a mapped page past the new end would
// otherwise kill the program (SIGBUS).
func TestCatInPlaceCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.bag")
	writeStringBag(t, path, 200, 256<<10) // 50 MB: more than cat reads ahead
	for _, skipBad := range []bool{false, true} {
		if skipBad {
			writeStringBag(t, path, 200, 256<<10)
		}
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{InPlace: true, SkipBad: skipBad, OnSkip: func(error) {}})
		if err != nil {
			t.Fatal(err)
		}
		n, err := in.WriteNDJSON(context.Background(), &cutOnWrite{path: path, t: t}, recording.NDJSONOptions{})
		in.Close()
		if !errors.Is(err, record.ErrTruncated) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cut short while being read") {
			t.Errorf("skip-bad %v: after %d lines: %v, want an error naming %s, record.ErrTruncated", skipBad, n, err, path)
		}
		if n == 0 || n >= 200 {
			t.Errorf("skip-bad %v: %d lines written, want some and not all", skipBad, n)
		}
	}
}
