package mcapfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

func asRecordError(err error, re **record.Error) bool { return errors.As(err, re) }

// exercise runs every read path over data and reports the first error. Any
// error must be a *record.Error naming the file.
func exercise(t *testing.T, data []byte, name string) {
	t.Helper()
	check := func(what string, err error) bool {
		if err == nil || err == io.EOF {
			return err == nil
		}
		var re *record.Error
		if !errors.As(err, &re) {
			t.Fatalf("%s: %s: error %T %v is not a *record.Error", name, what, err, err)
		}
		if re.File != name || !(errors.Is(err, record.ErrTruncated) || errors.Is(err, record.ErrLength) || errors.Is(err, record.ErrFormat) ||
			errors.Is(err, record.ErrCRC) || errors.Is(err, record.ErrUnsupported) || errors.Is(err, record.ErrNotFound)) {
			t.Fatalf("%s: %s: error %v lacks the file or a sentinel", name, what, err)
		}
		return false
	}
	for _, opts := range [][]Option{nil, {record.WithoutIndex()}, {record.WithWorkers(1)}} {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), name, opts...)
		if !check("open", err) {
			continue
		}
		_, err = r.Summary()
		check("summary", err)
		_, err = r.Channels()
		check("channels", err)
		if atts, err := r.Attachments(); check("attachments", err) {
			for _, a := range atts {
				io.Copy(io.Discard, r.AttachmentData(a))
			}
		}
		_, err = r.Metadata()
		check("metadata", err)
		it, err := r.Messages(record.Filter{})
		if check("messages", err) {
			for i := 0; ; i++ {
				m, err := it.Next()
				if err != nil {
					check("next", err)
					if _, again := it.Next(); again != err {
						t.Fatalf("%s: Next after %v returned %v", name, err, again)
					}
					break
				}
				if m.Channel == nil || m.Channel.Schema == nil {
					t.Fatalf("%s: message without channel or schema", name)
				}
			}
			it.Close()
		}
		r.Close()
	}
	CheckReaderAt(bytes.NewReader(data), int64(len(data)), name)
}

// truncationInputs are the files cut at every byte: one of each
// conformance group with every feature, and real rosbag2 files.
func truncationInputs(t *testing.T) []string {
	var files []string
	for _, g := range []string{
		"OneMessage/OneMessage-ch-chx-mx-pad-rch-rsh-st-sum.mcap",
		"OneMessage/OneMessage-pad-rch-rsh-st-sum.mcap",
		"TenMessages/TenMessages-ch-chx-mx-pad-rch-rsh-st-sum.mcap",
		"TenMessages/TenMessages-ch-mx-pad.mcap",
		"OneAttachment/OneAttachment-ax-pad-st-sum.mcap",
		"OneMetadata/OneMetadata-mdx-pad-st-sum.mcap",
		"OneSchemalessMessage/OneSchemalessMessage-ch-chx-mx-pad-rch-st-sum.mcap",
		"NoData/NoData-pad-st-sum.mcap",
	} {
		files = append(files, filepath.Join(fixtures(t), "mcap-conformance", "data", g))
	}
	for _, f := range []string{"rosbag2_transport/test_bag_for_seek/test_bag_for_seek_0.mcap", "rosbag2_py/talker/talker.mcap", "rosbag2_tests/cdr_test/cdr_test_0.mcap"} {
		files = append(files, filepath.Join(fixtures(t), "rosbag2", f))
	}
	return files
}

// TestTruncatedEverywhere cuts files at every byte: every read path gives
// an error or a clean partial result, never a panic.
func TestTruncatedEverywhere(t *testing.T) {
	for _, path := range truncationInputs(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		step := 1
		if testing.Short() {
			step = 61
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			for n := 0; n < len(data); n += step {
				exercise(t, data[:n], "cut.mcap")
			}
		})
	}
}

// TestCorruptEverywhere flips each byte of small files in turn.
func TestCorruptEverywhere(t *testing.T) {
	for _, path := range truncationInputs(t)[:8] {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			for i := range data {
				bad := bytes.Clone(data)
				bad[i] ^= 0xa5
				exercise(t, bad, "bad.mcap")
			}
		})
	}
}

// FuzzReader feeds arbitrary bytes to every read path and to Check: errors
// are record.Errors, nothing panics, nothing allocates past the input.
func FuzzReader(f *testing.F) {
	var files []string
	if dir, ok := testenv.FixturesIfPresent(f, "mcap-conformance"); ok {
		files, _ = filepath.Glob(filepath.Join(dir, "data", "*", "*.mcap"))
	}
	for i, p := range files {
		if i%7 != 0 {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	if p, ok := testenv.FixturesIfPresent(f, "rosbag2", "rosbag2_transport", "test_bag_for_seek", "test_bag_for_seek_0.mcap"); ok {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, b := range straySeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		exercise(t, data, "fuzz.mcap")
	})
}
