package db3

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// python is the Debian interpreter with the stdlib sqlite3 module.
const python = testenv.Python

type wantMsg struct {
	Topic     string `json:"topic"`
	Timestamp int64  `json:"timestamp"`
	Data      string `json:"data"`
}

var (
	pyOnce sync.Once
	pyDir  string
	pyWant map[string][]wantMsg
	pyErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pyDir != "" {
		os.RemoveAll(pyDir)
	}
	os.Exit(code)
}

// pythonRecordings makes the test recordings with testdata/mkdb3.py (once
// per test binary); tests must not modify them.
func pythonRecordings(t testing.TB) (dir string, want map[string][]wantMsg) {
	t.Helper()
	testenv.RequirePeer(t, "sqlite3")
	pyOnce.Do(func() {
		if pyDir, pyErr = os.MkdirTemp("", "db3test"); pyErr != nil {
			return
		}
		out, err := exec.Command(python, filepath.Join("testdata", "mkdb3.py"), pyDir).CombinedOutput()
		if err != nil {
			pyErr = fmt.Errorf("mkdb3.py: %v\n%s", err, out)
			return
		}
		b, err := os.ReadFile(filepath.Join(pyDir, "expected.json"))
		if err == nil {
			err = json.Unmarshal(b, &pyWant)
		}
		pyErr = err
	})
	if pyErr != nil {
		t.Fatal(pyErr)
	}
	return pyDir, pyWant
}

func collect(t *testing.T, r *Reader, f record.Filter) []wantMsg {
	t.Helper()
	it, err := r.Messages(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []wantMsg
	recordtest.Each(t, it, func(m *record.Message) {
		if m.PublishTime != m.LogTime || m.Offset != -1 || m.Source == "" {
			t.Fatalf("message fields %+v", m)
		}
		out = append(out, wantMsg{m.Channel.Topic, m.LogTime, hex.EncodeToString(m.Data)})
	})
	return out
}

func sameMsgs(t *testing.T, what string, got, want []wantMsg) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: message %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

func TestReadSplitFolder(t *testing.T) {
	dir, want := pythonRecordings(t)
	r, err := Open(filepath.Join(dir, "split"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.Files()) != 2 || r.Metadata() == nil || r.Metadata().Version != 9 {
		t.Fatalf("files %v metadata %+v", r.Files(), r.Metadata())
	}
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 || chs[0].ID != 1 || chs[0].Topic != "/chatter" || chs[1].Topic != "/count" {
		t.Fatalf("channels %+v", chs)
	}
	s := chs[0].Schema
	if s.Name != "std_msgs/msg/String" || s.Encoding != "ros2msg" || !strings.HasSuffix(string(s.Data), "string data\n") || chs[0].MessageEncoding != "cdr" {
		t.Errorf("schema %+v", s)
	}
	if !strings.HasPrefix(chs[0].Metadata["offered_qos_profiles"], "- history: 3") || chs[0].Metadata["type_description_hash"] != "RIHS01_"+strings.Repeat("ab", 32) {
		t.Errorf("metadata %v", chs[0].Metadata)
	}
	sameMsgs(t, "all", collect(t, r, record.Filter{}), want["split"])

	// Filters go into SQL: topic and [start, end).
	f := record.Filter{Topic: func(s string) bool { return s == "/count" }, Start: 1_000_000_500, End: 1_000_001_500}
	var sel []wantMsg
	for _, m := range want["split"] {
		if m.Topic == "/count" && m.Timestamp >= f.Start && m.Timestamp < f.End {
			sel = append(sel, m)
		}
	}
	if len(sel) < 20 {
		t.Fatalf("filter selects only %d", len(sel))
	}
	sameMsgs(t, "filtered", collect(t, r, f), sel)

	sum, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Format != "db3" || sum.MessageCount != 202 || sum.StartNs != 1_000_000_000 || sum.EndNs != 1_000_001_990 || len(sum.Topics) != 2 ||
		sum.Topics[0].MessageCount != 100 || sum.Topics[1].MessageCount != 102 || sum.Topics[0].Type != "std_msgs/msg/String" {
		t.Errorf("summary %+v", sum)
	}
	// Two iterators at once, and Summary between Next calls.
	a, _ := r.Messages(record.Filter{})
	b, _ := r.Messages(record.Filter{})
	ma, _ := a.Next()
	mb, _ := b.Next()
	if _, err := r.Summary(); err != nil {
		t.Fatal(err)
	}
	if ma.LogTime != mb.LogTime {
		t.Error("independent iterators disagree")
	}
	a.Close()
	b.Close()
	if err := r.Close(); err != nil || r.Close() != nil {
		t.Error("Close not idempotent")
	}
}

func TestReadOldSchemaFile(t *testing.T) {
	dir, want := pythonRecordings(t)
	r, err := Open(filepath.Join(dir, "old.db3"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	chs, _ := r.Channels()
	if len(chs) != 1 || chs[0].ID != 5 || chs[0].Schema.Name != "std_msgs/msg/String" || chs[0].Schema.Encoding != "" || chs[0].Schema.Data != nil {
		t.Fatalf("channels %+v schema %+v", chs, chs[0].Schema)
	}
	sameMsgs(t, "old", collect(t, r, record.Filter{}), want["old"])
}

func TestBadFiles(t *testing.T) {
	dir, _ := pythonRecordings(t)
	good, err := os.ReadFile(filepath.Join(dir, "split", "split_0.db3"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		data []byte
		want error
	}{
		"empty":      {nil, record.ErrTruncated},
		"text":       {[]byte("this is not a database at all, it is text\n"), record.ErrFormat},
		"magic only": {good[:16], record.ErrTruncated},
		"half":       {good[:len(good)/2], record.ErrTruncated},
		"one page":   {good[:4096], record.ErrTruncated},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.db3")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(p)
			if err == nil {
				r.Close()
				t.Fatal("opened")
			}
			var re *record.Error
			if !errors.As(err, &re) || !errors.Is(err, c.want) || re.File != p {
				t.Fatalf("error %v, want a record.Error on %s unwrapping to %v", err, p, c.want)
			}
		})
	}
}

// TestTruncatedEverywhere cuts a database at many sizes: opening and reading
// give an error or a clean partial result, never a panic or a hang.
func TestTruncatedEverywhere(t *testing.T) {
	dir, _ := pythonRecordings(t)
	good, err := os.ReadFile(filepath.Join(dir, "old.db3"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for n := 0; n < len(good); n += 97 {
		p := filepath.Join(tmp, "cut.db3")
		if err := os.WriteFile(p, good[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p)
		if err != nil {
			if !errors.Is(err, record.ErrTruncated) && !errors.Is(err, record.ErrFormat) {
				t.Fatalf("cut at %d: %v", n, err)
			}
			continue
		}
		r.Close()
		t.Fatalf("cut at %d of %d opened", n, len(good))
	}
}

// TestCorruptPages flips bytes across a database: opening and reading give
// an error or data, never a panic.
func TestCorruptPages(t *testing.T) {
	dir, _ := pythonRecordings(t)
	good, err := os.ReadFile(filepath.Join(dir, "split", "split_1.db3"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	step := 37
	if testing.Short() {
		step = 401
	}
	for i := 0; i < len(good); i += step {
		bad := bytes.Clone(good)
		bad[i] ^= 0x5a
		p := filepath.Join(tmp, fmt.Sprintf("c%d.db3", i))
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		readDamaged(t, p, fmt.Sprintf("flip at %d", i))
		os.Remove(p)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, folder := range []bool{false, true} {
		path := filepath.Join(dir, "out.db3")
		if folder {
			path = filepath.Join(dir, "outbag")
		}
		w, err := Create(path, WithROSDistro("jazzy"))
		if err != nil {
			t.Fatal(err)
		}
		str := &record.Channel{Topic: "/chatter", MessageEncoding: "cdr", Schema: &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")},
			Metadata: map[string]string{"offered_qos_profiles": "- history: 3", "type_description_hash": "RIHS01_00"}}
		noDef := &record.Channel{Topic: "/x", MessageEncoding: "cdr", Schema: &record.Schema{Name: "pkg/msg/X"}}
		id1, err := w.AddChannel(str)
		if err != nil {
			t.Fatal(err)
		}
		id2, err := w.AddChannel(noDef)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := w.AddChannel(str); again != id1 {
			t.Error("same topic twice got a new id")
		}
		if _, err := w.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "cdr", Schema: &record.Schema{Name: "other/msg/Y"}}); err == nil {
			t.Error("topic with a second type accepted")
		}
		payload := []byte{0, 1, 0, 0, 3, 0, 0, 0, 'h', 'i', 0}
		for i := range 25000 {
			id := id1
			if i%5 == 0 {
				id = id2
			}
			if err := w.WriteMessage(id, &record.Message{LogTime: int64(1000 + (i*7919)%25000), Data: payload}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatal("output exists before Close")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		dbFile := path
		if folder {
			dbFile = filepath.Join(path, "outbag_0.db3")
			meta, err := ReadBag2Metadata(path)
			if err != nil {
				t.Fatal(err)
			}
			if meta.StorageIdentifier != "sqlite3" || meta.MessageCount != 25000 || len(meta.Topics) != 2 || meta.Topics[0].MessageCount != 20000 ||
				meta.RelativeFilePaths[0] != "outbag_0.db3" || meta.StartingTimeNs != 1000 || meta.DurationNs != 24999 || meta.ROSDistro != "jazzy" {
				t.Errorf("metadata %+v", meta)
			}
		}
		// Independent check: Python's sqlite3 reads the tables.
		testenv.RequirePeer(t, "sqlite3")
		script := `
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
out = {}
out["schema"] = db.execute("SELECT schema_version, ros_distro FROM schema").fetchall()
out["topics"] = db.execute("SELECT id, name, type, serialization_format, offered_qos_profiles, type_description_hash FROM topics ORDER BY id").fetchall()
out["defs"] = db.execute("SELECT topic_type, encoding, encoded_message_definition FROM message_definitions ORDER BY id").fetchall()
out["count"] = db.execute("SELECT COUNT(*), MIN(timestamp), MAX(timestamp) FROM messages").fetchall()
out["first"] = [r[0].hex() for r in db.execute("SELECT data FROM messages ORDER BY id LIMIT 1")]
out["index"] = db.execute("SELECT name FROM sqlite_master WHERE type='index'").fetchall()
out["meta"] = db.execute("SELECT metadata_version FROM metadata").fetchall()
print(json.dumps(out))
`
		raw, err := exec.Command(python, "-c", script, dbFile).Output()
		if err != nil {
			t.Fatalf("python: %v", err)
		}
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		wantJSON := `{"schema":[[4,"jazzy"]],"topics":[[1,"/chatter","std_msgs/msg/String","cdr","- history: 3","RIHS01_00"],[2,"/x","pkg/msg/X","cdr","",""]],` +
			`"defs":[["std_msgs/msg/String","ros2msg","string data\n"],["pkg/msg/X","unknown",""]],"count":[[25000,1000,25999]],` +
			`"first":["` + hex.EncodeToString(payload) + `"],"index":[["timestamp_idx"]],"meta":[[9]]}`
		var want map[string]any
		json.Unmarshal([]byte(wantJSON), &want)
		if g, _ := json.Marshal(got); string(g) != mustJSON(want) {
			t.Errorf("python sees\n%s\nwant\n%s", g, mustJSON(want))
		}
		// And our reader.
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		msgs := collect(t, r, record.Filter{})
		if len(msgs) != 25000 || msgs[0].Timestamp != 1000 || msgs[len(msgs)-1].Timestamp != 25999 {
			t.Errorf("read back %d messages", len(msgs))
		}
		chs, _ := r.Channels()
		// A channel without a definition is stored as rosbag2 does,
		// encoding "unknown" with an empty text, and read back so.
		if chs[1].Schema.Encoding != "unknown" || len(chs[1].Schema.Data) != 0 || chs[0].Schema.Encoding != "ros2msg" {
			t.Errorf("schemas %+v %+v", chs[0].Schema, chs[1].Schema)
		}
		r.Close()
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFixtureMetadata parses every upstream rosbag2 metadata.yaml.
func TestFixtureMetadata(t *testing.T) {
	fixtures := testenv.FixturesDir(t)
	files, _ := filepath.Glob(filepath.Join(testenv.Fixtures(t, "rosbag2"), "*", "*", "metadata.yaml"))
	if len(files) < 10 {
		t.Fatalf("found %d metadata.yaml files under %s", len(files), fixtures)
	}
	for _, f := range files {
		m, err := ReadBag2Metadata(filepath.Dir(f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m.StorageIdentifier != "mcap" || len(m.RelativeFilePaths) == 0 || len(m.Topics) == 0 {
			t.Errorf("%s: %+v", f, m)
		}
		var sum uint64
		for _, tp := range m.Topics {
			sum += tp.MessageCount
			if tp.Name == "" || tp.Type == "" || tp.SerializationFormat == "" {
				t.Errorf("%s: topic %+v", f, tp)
			}
		}
		if sum != m.MessageCount {
			t.Errorf("%s: topics count %d, total %d", f, sum, m.MessageCount)
		}
		for _, p := range m.RelativeFilePaths {
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), p)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
	m, err := ReadBag2Metadata(filepath.Join(fixtures, "rosbag2", "rosbag2_py", "wbag"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 4 || m.MessageCount != 6074 || len(m.RelativeFilePaths) != 5 || m.RelativeFilePaths[4] != "wbag_4.mcap" || m.StartingTimeNs != 2623 || m.DurationNs != 411 {
		t.Errorf("wbag: %+v", m)
	}
	m, err = ReadBag2Metadata(filepath.Join(fixtures, "rosbag2", "rosbag2_tests", "wrong_rmw_test"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Topics[0].SerializationFormat != "wrong_format" || len(m.Files) != 1 || m.Files[0].MessageCount != 7 || !strings.Contains(m.Topics[0].OfferedQoSProfiles, "reliability: 1") {
		t.Errorf("wrong_rmw_test: %+v", m)
	}
	if _, err := Open(filepath.Join(fixtures, "rosbag2", "rosbag2_py", "wbag")); !errors.Is(err, record.ErrUnsupported) {
		t.Errorf("opening an MCAP folder as db3: %v", err)
	}
}

// TestSplitMetadataQoS: the split test folder writes offered_qos_profiles
// as a YAML list.
func TestSplitMetadataQoS(t *testing.T) {
	dir, _ := pythonRecordings(t)
	m, err := ReadBag2Metadata(filepath.Join(dir, "split"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Topics[0].OfferedQoSProfiles, "history: keep_last") || m.Topics[1].OfferedQoSProfiles != "" {
		t.Errorf("qos %+v", m.Topics)
	}
}

// FuzzParseBag2Metadata: metadata.yaml and stored metadata parse or fail
// with a record.Error, never naming a file outside the folder.
func FuzzParseBag2Metadata(f *testing.F) {
	files := []string{filepath.Join("..", "..", "testdata", "sample", "queries_rosbag2", "metadata.yaml")}
	if dir, ok := testenv.FixturesIfPresent(f, "rosbag2"); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "metadata.yaml"))
		files = append(files, more...)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("rosbag2_bagfile_information:\n  relative_file_paths: [../x]\n"))
	f.Add([]byte("version: 9\nrelative_file_paths: [x.mcap]\ncustom_data: {a: b}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// metadata.yaml, and the same mapping as a storage file stores it
		for _, parse := range []func([]byte, string) (*Bag2Metadata, error){ParseBag2Metadata, ParseStoredMetadata} {
			m, err := parse(b, "metadata.yaml")
			if err != nil {
				var re *record.Error
				if !errors.As(err, &re) {
					t.Fatalf("error %T %v is not a record.Error", err, err)
				}
				continue
			}
			for _, p := range m.RelativeFilePaths {
				if !filepath.IsLocal(p) {
					t.Fatalf("path %q escapes the folder", p)
				}
			}
		}
	})
}

// TestWriterSystemSQLite writes messages of every size from empty to several
// overflow pages, out of time order, a topic added between them, and
// Python's sqlite3 (the system's SQLite) finds the file intact and reads
// every row back with its bytes, in rowid order and through the time index.
func TestWriterSystemSQLite(t *testing.T) {
	testenv.RequirePeer(t, "sqlite3")
	path := filepath.Join(t.TempDir(), "b.db3")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.AddChannel(&record.Channel{Topic: "/a", MessageEncoding: "cdr", Schema: &record.Schema{Name: "p/msg/A"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	var ids []uint32
	ids = append(ids, a)
	type timed struct {
		ts int64
		id int
	}
	var byTime []timed
	for i := range 700 {
		if i == 333 {
			b, err := w.AddChannel(&record.Channel{Topic: "/b", MessageEncoding: "cdr", Schema: &record.Schema{Name: "p/msg/B"}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, b)
		}
		n := i % 97
		if i%50 == 7 {
			n = 3*pageSize + i
		}
		data := make([]byte, n)
		for k := range data {
			data[k] = byte(i + k*7)
		}
		id := ids[i%len(ids)]
		ts := int64(i*37%700) / 3 // out of order, with ties
		if err := w.WriteMessage(id, &record.Message{LogTime: ts, Data: data}); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(sum, "%d %d %x\n", ts, id, sha256.Sum256(data))
		byTime = append(byTime, timed{ts, i + 1})
	}
	slices.SortFunc(byTime, func(a, b timed) int { return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.id, b.id)) })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	script := `
import sqlite3, sys, hashlib
db = sqlite3.connect(sys.argv[1])
print(db.execute("PRAGMA integrity_check").fetchone()[0])
h = hashlib.sha256()
for ts, topic, data in db.execute("SELECT timestamp, topic_id, data FROM messages ORDER BY id"):
    h.update(("%d %d %s\n" % (ts, topic, hashlib.sha256(data).hexdigest())).encode())
print(h.hexdigest())
print(" ".join(str(i) for (i,) in db.execute("SELECT id FROM messages INDEXED BY timestamp_idx ORDER BY timestamp, id")))
`
	out, err := exec.Command(python, "-c", script, path).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var order []string
	for _, m := range byTime {
		order = append(order, strconv.Itoa(m.id))
	}
	want := "ok\n" + hex.EncodeToString(sum.Sum(nil)) + "\n" + strings.Join(order, " ") + "\n"
	if string(out) != want {
		t.Errorf("python reads\n%.300s\nwant\n%.300s", out, want)
	}
}

// TestWriterAbort: aborting a Writer with batches still being inserted
// leaves nothing behind (no output, no temporary file), stops its
// goroutine, and Close then reports the abort.
func TestWriterAbort(t *testing.T) {
	dir := t.TempDir()
	before := runtime.NumGoroutine()
	for _, name := range []string{"a.db3", "folder"} {
		w, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.AddChannel(&record.Channel{Topic: "/a", MessageEncoding: "cdr", Schema: &record.Schema{Name: "p/msg/A"}})
		if err != nil {
			t.Fatal(err)
		}
		big := make([]byte, 1<<20)
		for i := range 300 {
			data := big[:i%7]
			if i%40 == 0 {
				data = big
			}
			if err := w.WriteMessage(id, &record.Message{LogTime: int64(i), Data: data}); err != nil {
				t.Fatal(err)
			}
		}
		w.Abort()
		if err := w.Close(); err == nil {
			t.Errorf("%s: Close after Abort returned nil", name)
		}
		if err := w.WriteMessage(id, &record.Message{Data: []byte{1}}); err == nil {
			t.Errorf("%s: WriteMessage after Abort returned nil", name)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}
