package recording_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

func genStudy(t testing.TB) string {
	return studytest.Dir(t, studygen.Options{Seed: 3, Sessions: 2})
}

// drain opens path, reads its summary and decodes every message to JSON,
// returning how many decoded and the first error.
func drain(path string) (int, error) {
	r, err := recording.Open(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if _, err := r.Summary(); err != nil {
		return 0, err
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	res := decode.NewResolver(nil)
	jw := sink.NewJSONWriter()
	n := 0
	for {
		m, err := it.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if m.Channel.MessageEncoding == "json" {
			n++
			continue
		}
		dec, err := res.For(m.Channel)
		if err != nil {
			return n, err
		}
		jw.Begin(nil)
		if err := dec.Decode(m.Data, jw); err != nil {
			return n, err
		}
		n++
	}
}

func TestSniff(t *testing.T) {
	dir := genStudy(t)
	cases := map[string]recording.Format{
		filepath.Join(dir, "study.bag"):               recording.FormatBag,
		filepath.Join(dir, "broken/study.bag.active"): recording.FormatBag,
		filepath.Join(dir, "study.mcap"):              recording.FormatMCAP,
		filepath.Join(dir, "queries.db3"):             recording.FormatDB3,
	}
	var bad []string
	if fx, ok := testenv.FixturesIfPresent(t); ok {
		cases[filepath.Join(fx, "rosbag2/rosbag2_py/multiple_files")] = recording.FormatMCAP
		cases[filepath.Join(fx, "rosbag-js/example-lz4.bag")] = recording.FormatBag
		bad = []string{filepath.Join(fx, "rosbag-js/asci-file.txt"), filepath.Join(fx, "rosbag-js/empty-file.bag")}
	}
	for path, want := range cases {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("fixture missing: %v", err)
			continue
		}
		got, err := recording.Sniff(path)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	for _, bad := range bad {
		_, err := recording.Sniff(bad)
		var re *record.Error
		if !errors.As(err, &re) || re.File != bad || re.Offset != 0 {
			t.Errorf("%s: %v, want a record.Error naming the file at offset 0", bad, err)
		}
	}
}

// TestDecodeEveryFixture reads and decodes every message of the generated
// study and of the other implementations' fixtures through the front door.
func TestDecodeEveryFixture(t *testing.T) {
	dir := genStudy(t)
	paths := []string{}
	for _, name := range []string{"study.bag", "study-lz4.bag", "study-bz2.bag", "study.mcap", "study-lz4.mcap", "study-none.mcap", "queries.mcap", "queries.db3", "queries_rosbag2", "all_types.bag", "all_types.mcap", "all_types_ros2.mcap", "all_types_ros2.db3", "broken/study.bag.active"} {
		paths = append(paths, filepath.Join(dir, name))
	}
	if fx, ok := testenv.FixturesIfPresent(t); ok {
		for _, name := range []string{"example.bag", "example-bz2.bag", "example-lz4.bag", "example-unsorted-chunks.bag", "no-messages.bag"} {
			paths = append(paths, filepath.Join(fx, "rosbag-js", name))
		}
		paths = append(paths, filepath.Join(fx, "rosbag2/rosbag2_py/wbag"), filepath.Join(fx, "rosbag2/rosbag2_py/multiple_files"))
		rb2, _ := filepath.Glob(filepath.Join(fx, "rosbag2/*/*/*.mcap"))
		for _, p := range rb2 {
			if !strings.Contains(p, "wrong_rmw") {
				paths = append(paths, p)
			}
		}
	}
	for _, p := range paths {
		n, err := drain(p)
		if err != nil {
			t.Errorf("%s: after %d messages: %v", p, n, err)
		}
	}
}

// TestCutEverywhere cuts small recordings of every format at many offsets:
// every cut either reads cleanly or fails with an error, never a panic.
func TestCutEverywhere(t *testing.T) {
	dir := genStudy(t)
	srcs := []string{filepath.Join(dir, "queries.mcap"), filepath.Join(dir, "study-bz2.bag")}
	if p, ok := testenv.FixturesIfPresent(t, "rosbag-js", "example-lz4.bag"); ok {
		srcs = append(srcs, p)
	}
	tmp := t.TempDir()
	for _, src := range srcs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/300)
		if testing.Short() {
			step = max(1, len(data)/40)
		}
		cut := filepath.Join(tmp, "cut"+filepath.Ext(src))
		for n := 0; n < len(data); n += step {
			if err := os.WriteFile(cut, data[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s cut at %d: panic %v", src, n, p)
					}
				}()
				_, _ = drain(cut)
			}()
		}
	}
}

func TestMergeOrder(t *testing.T) {
	dir := genStudy(t)
	in, err := recording.OpenInputs([]string{filepath.Join(dir, "study.bag"), filepath.Join(dir, "queries.mcap")}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sum := in.Summary()
	it, err := in.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	n := uint64(0)
	recordtest.Each(t, it, func(m *record.Message) {
		if m.LogTime < last {
			t.Fatalf("message %d at %d after %d", n, m.LogTime, last)
		}
		last = m.LogTime
		n++
	})
	if n != sum.MessageCount || n == 0 {
		t.Errorf("%d messages, summary says %d", n, sum.MessageCount)
	}
}
