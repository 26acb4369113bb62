package recording_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// count reads every message of path opened with o, returning how many and
// the error that ended the iteration (nil at the end).
func count(t *testing.T, path string, o recording.OpenOptions) (int, error) {
	t.Helper()
	r, err := recording.OpenWith(path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = recordtest.Read(t, it, func(*record.Message) { n++ })
	return n, err
}

// TestOpenSkipBadMCAP opens the damaged MCAP files of a generated study,
// alone and as a split of a rosbag2 folder, with OnSkip: every message that
// can be read is read, and each damaged stretch is reported once as a
// *record.Error naming the file, the stretch and what was salvaged.
func TestOpenSkipBadMCAP(t *testing.T) {
	dir := genStudy(t)
	intact, err := count(t, filepath.Join(dir, "study-none.mcap"), recording.OpenOptions{})
	if err != nil || intact == 0 {
		t.Fatalf("intact file: %d messages, %v", intact, err)
	}
	folder := t.TempDir()
	for name, src := range map[string]string{"run_0.mcap": "study-none.mcap", "run_1.mcap": filepath.Join("broken", "study-crc.mcap")} {
		data, err := os.ReadFile(filepath.Join(dir, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, path, damaged string
		sentinel            error
		want                int // messages read with OnSkip; 0: fewer than intact
		note                string
	}{
		{"crc", filepath.Join(dir, "broken", "study-crc.mcap"), "", record.ErrCRC, intact, "messages kept, their content may be damaged; damaged bytes ["},
		{"truncated", filepath.Join(dir, "broken", "study-truncated.mcap"), "", record.ErrTruncated, 0, "bytes that decompress; about "},
		{"rosbag2", folder, filepath.Join(folder, "run_1.mcap"), record.ErrCRC, 2 * intact, "messages kept, their content may be damaged; damaged bytes ["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			damaged := tc.damaged
			if damaged == "" {
				damaged = tc.path
			}
			// Without OnSkip: the error of the damaged stretch.
			strict, err := count(t, tc.path, recording.OpenOptions{})
			var want *record.Error
			if !errors.As(err, &want) || want.File != damaged || !errors.Is(err, tc.sentinel) {
				t.Fatalf("without OnSkip: %d messages, then %v", strict, err)
			}
			var skipped []error
			// (KeepUnverified: the CRC-failed chunk's messages are read;
			// TestSkipBadDropsUnverified checks the default.)
			n, err := count(t, tc.path, recording.OpenOptions{OnSkip: func(err error) { skipped = append(skipped, err) }, KeepUnverified: true})
			if err != nil || n <= strict || tc.want != 0 && n != tc.want || tc.want == 0 && n >= intact {
				t.Errorf("with OnSkip: %d messages (%d without), then %v", n, strict, err)
			}
			if len(skipped) != 1 {
				t.Fatalf("%d stretches reported: %v", len(skipped), skipped)
			}
			var re *record.Error
			if !errors.As(skipped[0], &re) || re.File != want.File || re.Offset != want.Offset || re.Field != want.Field ||
				!errors.Is(re, tc.sentinel) || !strings.Contains(re.Detail, tc.note) ||
				strings.Count(strings.TrimPrefix(re.Error(), re.File), tc.sentinel.Error()) != 1 || strings.Contains(re.Detail, want.Field) {
				t.Errorf("reported %v, want the stretch of %v", skipped[0], want)
			}
		})
	}
}
