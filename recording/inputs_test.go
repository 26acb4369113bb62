package recording_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// TestExpand: a plain folder stands for its recordings in name order
// (.bag files included, rosbag2 sub-folders as one recording each), a
// rosbag2 folder and a folder of numbered splits are one recording.
func TestExpand(t *testing.T) {
	study := genStudy(t)
	dir := t.TempDir()
	recordtest.CopyFile(t, filepath.Join(study, "study.bag"), filepath.Join(dir, "plain", "b.bag"))
	recordtest.CopyFile(t, filepath.Join(study, "study.mcap"), filepath.Join(dir, "plain", "a.mcap"))
	recordtest.CopyFile(t, filepath.Join(study, "queries.db3"), filepath.Join(dir, "plain", "c.db3"))
	recordtest.CopyFile(t, filepath.Join(study, "study.mcap"), filepath.Join(dir, "plain", "rb2", "run_0.mcap"))
	recordtest.CopyFile(t, filepath.Join(study, "study.mcap"), filepath.Join(dir, "plain", "rb2", "run_1.mcap"))
	recordtest.CopyFile(t, filepath.Join(study, "truth.json"), filepath.Join(dir, "plain", "notes.json"))
	if err := os.MkdirAll(filepath.Join(dir, "plain", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := recording.Expand([]string{filepath.Join(dir, "plain")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, strings.TrimPrefix(p, dir+"/"))
	}
	want := []string{"plain/a.mcap", "plain/b.bag", "plain/c.db3", "plain/rb2"}
	if !slices.Equal(names, want) {
		t.Errorf("Expand = %q, want %q", names, want)
	}
	if !recording.IsBag2Folder(filepath.Join(dir, "plain", "rb2")) || recording.IsBag2Folder(filepath.Join(dir, "plain")) {
		t.Error("IsBag2Folder: the split folder is one recording, the plain folder is not")
	}
	_, err = recording.Expand([]string{filepath.Join(dir, "plain", "empty")})
	if ie := (*recording.InputError)(nil); !errors.As(err, &ie) || !errors.Is(err, recording.ErrNoRecordings) {
		t.Errorf("empty folder: %v, want an InputError with ErrNoRecordings (exit 4, no input)", err)
	}
	_, err = recording.Expand([]string{filepath.Join(dir, "nope.bag")})
	var ie *recording.InputError
	if !errors.As(err, &ie) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: %v, want an InputError wrapping ErrNotExist", err)
	}
	if _, err := recording.Open(filepath.Join(dir, "plain")); !errors.As(err, &ie) {
		t.Errorf("Open(plain folder): %v, want an InputError", err)
	}
}

// TestInputsSelection: a pattern that matches nothing among others warns,
// patterns that match nothing at all and bad times are ErrSelection, a
// window after the recording warns and selects nothing.
func TestInputsSelection(t *testing.T) {
	study := genStudy(t)
	bagPath := filepath.Join(study, "study.bag")
	var warnings []string
	in, err := recording.OpenInputs([]string{bagPath}, recording.InputOptions{
		Selection: recording.Selection{Topics: []string{"/interactive_world/placement", "/typo"}},
		OnWarning: func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "/typo") {
		t.Errorf("warnings %q, want one about /typo", warnings)
	}
	if in.Count(nil) == 0 {
		t.Errorf("/interactive_world/placement selects nothing? count %d", in.Count(nil))
	}
	in.Close()
	for _, sel := range []recording.Selection{{Topics: []string{"/typo"}}, {Start: "yesterday"}, {Start: "+10s", End: "+5s"}} {
		if _, err := recording.OpenInputs([]string{bagPath}, recording.InputOptions{Selection: sel}); !errors.Is(err, recording.ErrSelection) {
			t.Errorf("%+v: %v, want ErrSelection", sel, err)
		}
	}
	warnings = nil
	in, err = recording.OpenInputs([]string{bagPath}, recording.InputOptions{
		Selection: recording.Selection{Start: "+1000000s"},
		OnWarning: func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	it, err := in.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if m, err := it.Next(); err != io.EOF || len(warnings) != 1 || !strings.Contains(warnings[0], "after the recording ends") {
		t.Errorf("window after the end: first message %v (%v), warnings %q; want none", m, err, warnings)
	}
}

// TestInputsEach: Each hands every selected message of every input to
// Visit with a decoder, whatever the number of jobs; Messages gives the
// same messages as one stream.
func TestInputsEach(t *testing.T) {
	study := genStudy(t)
	paths := []string{filepath.Join(study, "study.bag"), filepath.Join(study, "study.mcap"), filepath.Join(study, "queries.db3")}
	for _, jobs := range []int{1, 3} {
		in, err := recording.OpenInputs(paths, recording.InputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		perFile := make([]int, len(paths))
		done := make([]bool, len(paths))
		err = in.Each(context.Background(), recording.EachOptions{
			Jobs: jobs,
			Visit: func(file int, m *record.Message, dec decode.Decoder) error {
				if dec == nil {
					return errors.New("no decoder")
				}
				if _, err := dec.DecodeValue(m.Data); err != nil {
					return err
				}
				mu.Lock()
				perFile[file]++
				mu.Unlock()
				return nil
			},
			Done: func(file int) error { done[file] = true; return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range paths {
			if want := in.File(i).Summary().MessageCount; uint64(perFile[i]) != want || !done[i] {
				t.Errorf("jobs %d: %s: %d messages (done %v), summary says %d", jobs, paths[i], perFile[i], done[i], want)
			}
		}
		// Want narrows to one type.
		n := 0
		err = in.Each(context.Background(), recording.EachOptions{
			Jobs: jobs,
			Want: func(typ string) bool {
				return typ == "interactive_world_msgs/Placement" || strings.HasSuffix(typ, "/Placement")
			},
			Visit: func(file int, m *record.Message, dec decode.Decoder) error {
				mu.Lock()
				n++
				mu.Unlock()
				return nil
			},
		})
		if err != nil || int64(n) != in.Count(func(typ string) bool { return strings.HasSuffix(typ, "/Placement") }) {
			t.Errorf("jobs %d: Want: %d messages, %v", jobs, n, err)
		}
		in.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in, err := recording.OpenInputs(paths, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.WriteNDJSON(ctx, &strings.Builder{}, recording.NDJSONOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteNDJSON with an ended context: %v", err)
	}
}

// TestInputsSkipBad: with SkipBad a truncated file and a CRC-damaged one
// give their intact messages and report what was skipped; without it they
// stop with a record.Error.
func TestInputsSkipBad(t *testing.T) {
	broken := filepath.Join("..", "testdata", "sample", "broken")
	for _, name := range []string{"study-truncated.bag", "study-truncated.mcap", "study-crc.mcap"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(broken, name)
			var skipped []error
			in, err := recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: true, OnSkip: func(err error) { skipped = append(skipped, err) }})
			if err != nil {
				t.Fatal(err)
			}
			n, err := in.WriteNDJSON(context.Background(), &strings.Builder{}, recording.NDJSONOptions{})
			in.Close()
			if err != nil || n == 0 || len(skipped) == 0 {
				t.Errorf("skip-bad: %d messages, %d skipped, %v", n, len(skipped), err)
			}
			in, err = recording.OpenInputs([]string{path}, recording.InputOptions{})
			if err == nil {
				_, err = in.WriteNDJSON(context.Background(), &strings.Builder{}, recording.NDJSONOptions{})
				in.Close()
			}
			var re *record.Error
			if !errors.As(err, &re) {
				t.Errorf("without skip-bad: %v, want a record.Error", err)
			}
		})
	}
}

// TestCopyToOpensOnce: CopyTo (convert, merge) takes the metadata and
// attachments from the recordings its iterator has open, not from the
// recordings opened a second time: with every input removed once the
// first message is written, the copy into MCAP still holds the metadata
// of both MCAP inputs, in input order, and the copy into a bag (which
// holds none) succeeds too.
func TestCopyToOpensOnce(t *testing.T) {
	study := genStudy(t)
	names := []string{"study.mcap", "study.bag", "study.mcap"}
	var want []recording.Metadata
	for _, name := range names {
		r, err := recording.Open(filepath.Join(study, name))
		if err != nil {
			t.Fatal(err)
		}
		mds, _, err := recording.Extras(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, mds...)
	}
	if len(want) != 2 {
		t.Fatalf("the inputs hold %d metadata records, want 2 (one per MCAP file)", len(want))
	}
	for _, c := range []struct {
		format recording.Format
		want   []recording.Metadata
	}{{recording.FormatMCAP, want}, {recording.FormatBag, nil}} {
		t.Run(string(c.format), func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, name := range names {
				p := filepath.Join(dir, fmt.Sprintf("%d-%s", i, name))
				recordtest.CopyFile(t, filepath.Join(study, name), p)
				paths = append(paths, p)
			}
			in, err := recording.OpenInputs(paths, recording.InputOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			out := filepath.Join(dir, "out."+string(c.format))
			w, err := recording.Create(out, recording.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rw := &removingWriter{Writer: w, t: t, paths: paths}
			var dst recording.Writer = rw
			if c.format == recording.FormatMCAP {
				dst = removingMCAPWriter{rw}
			}
			n, err := in.CopyTo(context.Background(), dst, c.format)
			if err != nil {
				w.Abort()
				t.Fatalf("CopyTo with the inputs removed after the first message: %v", err)
			}
			if !rw.removed || n != in.Count(nil) {
				t.Fatalf("%d of %d messages written, inputs removed: %v", n, in.Count(nil), rw.removed)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := recording.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, _, err := recording.Extras(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d metadata records in the copy, want %d", len(got), len(c.want))
			}
			for i := range got {
				if got[i].Name != c.want[i].Name || !maps.Equal(got[i].Metadata, c.want[i].Metadata) {
					t.Errorf("metadata %d: %s %v, want %s %v", i, got[i].Name, got[i].Metadata, c.want[i].Name, c.want[i].Metadata)
				}
			}
		})
	}
}

// removingWriter removes the files at paths when the first message is
// written through it.
type removingWriter struct {
	recording.Writer
	t       *testing.T
	paths   []string
	removed bool
}

func (w *removingWriter) WriteMessage(id uint32, m *record.Message) error {
	if !w.removed {
		w.removed = true
		for _, p := range w.paths {
			if err := os.Remove(p); err != nil {
				w.t.Fatal(err)
			}
		}
	}
	return w.Writer.WriteMessage(id, m)
}

// removingMCAPWriter is a removingWriter that takes metadata and
// attachments, as the MCAP writer it wraps does.
type removingMCAPWriter struct{ *removingWriter }

type extrasWriter interface {
	AddMetadata(name string, m map[string]string) error
	AddAttachment(name, mediaType string, logTime, createTime uint64, data []byte) error
}

func (w removingMCAPWriter) AddMetadata(name string, m map[string]string) error {
	return w.Writer.(extrasWriter).AddMetadata(name, m)
}

func (w removingMCAPWriter) AddAttachment(name, mediaType string, logTime, createTime uint64, data []byte) error {
	return w.Writer.(extrasWriter).AddAttachment(name, mediaType, logTime, createTime, data)
}

// TestInputsStrayFooterWarns: an MCAP file read in file order (here one
// cut in its closing magic, so that it has no usable summary) with a footer
// record in its data section is read past it, with a warning naming the
// file and offset, and with --skip-bad nothing counts as skipped: no
// message is lost (recording/mcapfile's TestStraySeeds writes the file).
func TestInputsStrayFooterWarns(t *testing.T) {
	data, err := os.ReadFile("testdata/stray-footer.mcap")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.mcap")
	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, skipBad := range []bool{false, true} {
		var warnings []string
		var skipped []error
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{SkipBad: skipBad,
			OnSkip:    func(err error) { skipped = append(skipped, err) },
			OnWarning: func(s string) { warnings = append(warnings, s) }})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = in.Each(context.Background(), recording.EachOptions{Jobs: 1, Visit: func(int, *record.Message, decode.Decoder) error { n++; return nil }})
		in.Close()
		if err != nil || n != 20 {
			t.Errorf("skip-bad %v: %d messages (%v), want 20", skipBad, n, err)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], path+": offset 487: field footer") || len(skipped) != 0 || in.Losses() != (recording.Losses{}) {
			t.Errorf("skip-bad %v: warnings %q, skipped %v (%+v); want one warning naming the footer at offset 487, nothing skipped", skipBad, warnings, skipped, in.Losses())
		}
	}
}
