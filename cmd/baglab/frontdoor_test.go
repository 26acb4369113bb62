package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

type infoDoc struct {
	Path         string `json:"path"`
	Format       string `json:"format"`
	MessageCount uint64 `json:"message_count"`
	Metadata     []struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// TestFolderInputs: a folder of bags and MCAP files is its recordings, each
// summarised and checked apart (info, doctor), never a merge of unrelated
// files nor a silently ignored bag; a folder of MCAP splits keeps the
// metadata of every split (info, convert).
func TestFolderInputs(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	recordtest.CopyFile(t, studyFile("study.bag"), filepath.Join(plain, "a.bag"))
	recordtest.CopyFile(t, studyFile("study-lz4.bag"), filepath.Join(plain, "b.bag"))
	recordtest.CopyFile(t, studyFile("queries.mcap"), filepath.Join(plain, "c.mcap"))
	out, stderr, code := run(t, "info", "--json", plain)
	var docs []infoDoc
	if code != 0 || json.Unmarshal([]byte(out), &docs) != nil {
		t.Fatalf("info DIR: exit %d: %s", code, stderr)
	}
	if len(docs) != 3 || docs[0].Format != "bag" || docs[1].Format != "bag" || docs[2].Format != "mcap" ||
		!strings.HasSuffix(docs[0].Path, "a.bag") || !strings.HasSuffix(docs[2].Path, "c.mcap") {
		t.Errorf("info DIR: %+v", docs)
	}
	text, _, _ := run(t, "info", plain)
	for _, name := range []string{"a.bag", "b.bag", "c.mcap"} {
		if !strings.Contains(text, name) {
			t.Errorf("info DIR does not name %s:\n%s", name, text)
		}
	}
	out, _, code = run(t, "doctor", plain)
	for _, name := range []string{"a.bag: ok", "b.bag: ok", "c.mcap: ok"} {
		if !strings.Contains(out, name) {
			t.Errorf("doctor DIR (exit %d) does not check %s:\n%s", code, name, out)
		}
	}
	// report of the folder: every recording analysed and listed.
	page := filepath.Join(dir, "p.html")
	if _, stderr, code := run(t, "report", "--no-learn", plain, "-o", page); code != 0 {
		t.Errorf("report DIR: exit %d: %s", code, stderr)
	}
	// A bag in the folder counts in cat: every message of the three files.
	cat, _, code := run(t, "cat", plain)
	want := 0
	for _, d := range docs {
		want += int(d.MessageCount)
	}
	if n := strings.Count(cat, "\n"); code != 0 || n != want {
		t.Errorf("cat DIR: exit %d, %d lines, want %d", code, n, want)
	}

	// MCAP splits of one recording: the metadata of each split survives.
	splits := filepath.Join(dir, "run")
	recordtest.CopyFile(t, studyFile("queries.mcap"), filepath.Join(splits, "run_0.mcap"))
	recordtest.CopyFile(t, studyFile("study.mcap"), filepath.Join(splits, "run_1.mcap"))
	out, stderr, code = run(t, "info", "--json", splits)
	var one infoDoc
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil {
		t.Fatalf("info splits: exit %d: %s\n%s", code, stderr, out)
	}
	if len(one.Metadata) == 0 || one.Metadata[len(one.Metadata)-1].Name != "study" {
		t.Errorf("info of a split folder lost the metadata of a split: %+v", one.Metadata)
	}
	conv := filepath.Join(dir, "conv.mcap")
	if _, stderr, code := run(t, "convert", splits, conv); code != 0 {
		t.Fatalf("convert: %s", stderr)
	}
	out, _, _ = run(t, "info", "--json", conv)
	var c infoDoc
	if json.Unmarshal([]byte(out), &c) != nil || len(c.Metadata) != len(one.Metadata) || c.MessageCount != one.MessageCount {
		t.Errorf("convert of a split folder: %+v, want the metadata of %+v", c, one)
	}
}

// TestAnalyzeSkipBadDamagedFiles: analyze and report --skip-bad on a
// truncated and a CRC-damaged file analyse the intact messages, as cat
// --skip-bad does, and say what was skipped; without --skip-bad they stop
// with exit 3 and name the repair.
func TestAnalyzeSkipBadDamagedFiles(t *testing.T) {
	for _, name := range []string{"study-truncated.bag", "study-truncated.mcap", "study-crc.mcap"} {
		path := filepath.Join("..", "..", "testdata", "sample", "broken", name)
		out, stderr, code := run(t, "analyze", "all", "--skip-bad", "--no-learn", "--json", path)
		if code != 0 || !strings.Contains(stderr, "skipped") || !json.Valid([]byte(out)) {
			t.Errorf("analyze --skip-bad %s: exit %d\n%s", name, code, stderr)
		}
		page := filepath.Join(t.TempDir(), "r.html")
		if _, stderr, code := run(t, "report", "--skip-bad", "--no-learn", path, "-o", page); code != 0 {
			t.Errorf("report --skip-bad %s: exit %d\n%s", name, code, stderr)
		}
		_, stderr, code = run(t, "analyze", "all", "--no-learn", path)
		repair := "reindex"
		if strings.HasSuffix(name, ".mcap") {
			repair = "recover"
		}
		if code != exitBadInput || !strings.Contains(stderr, name) || !strings.Contains(stderr, "baglab "+repair) {
			t.Errorf("analyze %s: exit %d, want 3 naming the file and %s\n%s", name, code, repair, stderr)
		}
	}
}

// TestQuietStillSaysWhatWasSkipped: --quiet drops progress and notes, but
// what --skip-bad leaves out is still said on stderr: never silent.
func TestQuietStillSaysWhatWasSkipped(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "sample", "broken", "study-crc.mcap")
	for _, args := range [][]string{
		{"cat", "-q", "--skip-bad", path},
		{"analyze", "all", "-q", "--skip-bad", "--no-learn", "--json", path},
	} {
		_, stderr, code := run(t, args...)
		if code != 0 || !strings.Contains(stderr, "baglab: skipped: ") || !strings.Contains(stderr, "baglab: --skip-bad: ") {
			t.Errorf("%v: exit %d, stderr without the skip reports:\n%s", args, code, stderr)
		}
		if strings.Contains(stderr, "baglab: wrote") {
			t.Errorf("%v: a note despite --quiet:\n%s", args, stderr)
		}
	}
}

// mcapWithUnknownType is a mcapByNode body: 3 std_msgs/String
// messages on /a and 4 on /thing, whose type nobody_msgs/Thing the file
// stores no definition of and no registry knows.
const mcapWithUnknownType = `
  const w = new McapWriter({ writable });
  await w.start({ profile: "ros1", library: "test" });
  const s = await w.registerSchema({ name: "std_msgs/String", encoding: "ros1msg", data: Buffer.from("string data\n") });
  const u = await w.registerSchema({ name: "nobody_msgs/Thing", encoding: "ros1msg", data: Buffer.from("") });
  const a = await w.registerChannel({ topic: "/a", messageEncoding: "ros1", schemaId: s, metadata: new Map() });
  const t = await w.registerChannel({ topic: "/thing", messageEncoding: "ros1", schemaId: u, metadata: new Map() });
  for (let i = 0; i < 7; i++) {
    const txt = Buffer.from("m" + i);
    const data = Buffer.concat([Buffer.from([txt.length, 0, 0, 0]), txt]);
    await w.addMessage({ channelId: i % 2 ? a : t, sequence: i, logTime: BigInt(5e9 + i * 1e9), publishTime: BigInt(5e9 + i * 1e9), data });
  }
`

// TestSkipBadSaidAlikeByEveryVerb: cat, export and analyze all with
// --skip-bad --quiet, on an MCAP file (written by npm @mcap/core) whose
// topic /thing has a type nobody defines, each name /thing once, in the
// same words, and exit 0 (issue 31 A3). Before, cat named it once per
// message, export only in a note --quiet hid, and analyze not at all.
func TestSkipBadSaidAlikeByEveryVerb(t *testing.T) {
	testenv.RequirePeer(t, "mcap")
	dir := t.TempDir()
	path := filepath.Join(dir, "unknown.mcap")
	mcapByNode(t, mcapWithUnknownType, path)
	var want []string
	for _, args := range [][]string{
		{"cat", "--skip-bad", "--quiet", path},
		{"export", "--skip-bad", "--quiet", path, "--out", filepath.Join(dir, "x")},
		{"analyze", "all", "--skip-bad", "--quiet", "--no-learn", "--json", path},
		{"filter", "--skip-bad", "--quiet", path, filepath.Join(dir, "f.mcap")},
		{"convert", "--skip-bad", "--quiet", path, filepath.Join(dir, "c.bag")},
	} {
		_, stderr, code := run(t, args...)
		var reports []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "/thing") {
				reports = append(reports, l)
			}
		}
		if code != 0 || len(reports) != 1 || !strings.HasPrefix(reports[0], "baglab: skipped: ") || !strings.Contains(stderr, "baglab: --skip-bad: 1 topic without a usable definition left out; see above") {
			t.Errorf("%s: exit %d, %d lines naming /thing, want 1 skip report:\n%s", args[0], code, len(reports), stderr)
			continue
		}
		if want == nil {
			want = reports
		} else if reports[0] != want[0] {
			t.Errorf("%s says %q, cat %q", args[0], reports[0], want[0])
		}
	}
}

// TestPartialResultsSaid: every readable file of info is printed and each
// bad one gets an error line; a topic pattern or a time window that selects
// nothing is said.
func TestPartialResultsSaid(t *testing.T) {
	bad := filepath.Join("..", "..", "testdata", "sample", "broken", "study-crc.mcap")
	missing := filepath.Join(t.TempDir(), "nope.bag")
	out, stderr, code := run(t, "info", studyFile("study.bag"), missing, studyFile("queries.mcap"))
	if code != exitNoInput || !strings.Contains(out, "study.bag") || !strings.Contains(out, "queries.mcap") || !strings.Contains(stderr, "nope.bag") {
		t.Errorf("info A missing C: exit %d\nstdout %.300s\nstderr %s", code, out, stderr)
	}
	_, stderr, code = run(t, "cat", "--topics", "/lama/objects,/typo", studyFile("study.bag"))
	if code != 0 || !strings.Contains(stderr, "/typo") {
		t.Errorf("--topics with a typo: exit %d: %s", code, stderr)
	}
	out, stderr, code = run(t, "cat", "--start", "+100000s", studyFile("study.bag"))
	if code != 0 || out != "" || !strings.Contains(stderr, "after the recording ends") {
		t.Errorf("window after the end: exit %d: %s", code, stderr)
	}
	outBag := filepath.Join(t.TempDir(), "empty.bag")
	// A window outside the recording is a warning in every verb (README's
	// exit-code table): filter writes a recording without messages.
	_, stderr, code = run(t, "filter", "--start", "+100000s", studyFile("study.bag"), outBag)
	if _, err := os.Stat(outBag); code != exitOK || err != nil || !strings.Contains(stderr, "after the recording ends") || !strings.Contains(stderr, "wrote 0 messages") {
		t.Errorf("filter selecting nothing: exit %d, file written %v: %s", code, err == nil, stderr)
	}
	_, stderr, _ = run(t, "cat", bad)
	if !strings.Contains(stderr, "baglab recover") {
		t.Errorf("cat of a damaged MCAP does not name the repair: %s", stderr)
	}
}

// TestExitCodesMeanOneThing: 3 only for bad data; a missing input, a
// folder where a file is expected, an existing or unwritable output each
// their own code, checked before any input is read; flags that do not
// apply are refused.
func TestExitCodesMeanOneThing(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "exists.mcap")
	recordtest.CopyFile(t, studyFile("study.mcap"), existing)
	file := filepath.Join(dir, "file")
	recordtest.CopyFile(t, studyFile("truth.json"), file)
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing input", []string{"cat", filepath.Join(dir, "nope.bag")}, exitNoInput, "nope.bag"},
		{"folder for a file", []string{"analyze", "map", studyFile("study.bag"), "--baseline", dir}, exitNoInput, "directory"},
		{"existing output", []string{"convert", studyFile("study.bag"), existing}, exitOutput, "exists"},
		{"output under a file", []string{"convert", studyFile("study.bag"), filepath.Join(file, "x.mcap")}, exitOutput, "not a directory"},
		{"export --out a file", []string{"export", studyFile("study.bag"), "--out", file}, exitOutput, "not a directory"},
		{"csv with compression", []string{"export", studyFile("study.bag"), "--out", dir, "--format", "csv", "--compression", "snappy"}, exitUsage, "--compression"},
		{"grasps --theta", []string{"analyze", "grasps", studyFile("study.bag"), "--theta", "circular"}, exitUsage, "--theta"},
		{"models-out with no-learn", []string{"analyze", "placements", studyFile("study.bag"), "--no-learn", "--models-out", filepath.Join(dir, "m.bag")}, exitUsage, "--no-learn"},
		{"bad baseline", []string{"analyze", "map", studyFile("study.bag"), "--baseline", file + "x"}, exitNoInput, "x"},
		{"msg-path missing", []string{"info", "--msg-path", filepath.Join(dir, "nomsgs"), studyFile("study.bag")}, exitUsage, "nomsgs"},
		{"report -o a folder", []string{"report", studyFile("study.bag"), "-o", dir}, exitOutput, "directory"},
		{"keep-unverified alone", []string{"cat", "--keep-unverified", studyFile("study.bag")}, exitUsage, "--skip-bad"},
		{"wide with json", []string{"analyze", "map", studyFile("study.bag"), "--wide", "--json"}, exitUsage, "--wide"},
		{"bad data", []string{"cat", filepath.Join("..", "..", "testdata", "sample", "broken", "study-truncated.bag")}, exitBadInput, "offset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, c.args...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, want %d with %q\nstdout %.200s\nstderr %s", code, c.code, c.msg, out, stderr)
			}
			if c.code != exitBadInput && out != "" {
				t.Errorf("printed output before failing: %.200s", out)
			}
		})
	}
}

// TestExitCodeByType: the code comes from the error's type.
func TestExitCodeByType(t *testing.T) {
	cases := []struct {
		err  error
		code int
	}{
		{&signalError{syscall.SIGTERM}, exitTerminated},
		{&signalError{os.Interrupt}, exitInterrupted},
		{&signalError{syscall.SIGHUP}, exitHungUp},
		{fmt.Errorf("write stdout: %w", syscall.EPIPE), exitBrokenPipe},
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, exitOutput},
		{outputError("x", errors.New("denied")), exitOutput},
		{&recording.InputError{Path: "x", Err: fs.ErrNotExist}, exitNoInput},
		{&record.Error{File: "x", Offset: 3, Err: record.ErrTruncated}, exitBadInput},
		{fmt.Errorf("%w: x", recording.ErrSelection), exitUsage},
		{errors.New("unknown command \"x\""), exitProblem},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.code {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

// writeBag writes one message per topic into a bag, each topic with the
// given definition text of type name.
func writeBag(t *testing.T, path, name, def string, topics ...string) {
	t.Helper()
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, topic := range topics {
		id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "ros1",
			Schema: &record.Schema{Name: name, Encoding: "ros1msg", Data: []byte(def), MD5: "*"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: 1e9 + int64(i), Data: []byte{1, 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestExportNames: a topic whose name is longer than a file name may be
// is exported under a shortened, hashed name; a damaged definition is an
// error naming the file.
func TestExportNames(t *testing.T) {
	dir := t.TempDir()
	long := "/" + strings.Repeat("very_long_name_", 25)
	bagPath := filepath.Join(dir, "long.bag")
	writeBag(t, bagPath, "test/I", "int32 x\n", long, long+"2")
	out := filepath.Join(dir, "out")
	if _, stderr, code := run(t, "export", bagPath, "--out", out); code != 0 {
		t.Fatalf("export of a long topic: exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 || !strings.Contains(entries[0].Name(), "~") || len(entries[0].Name()) > 255 {
		t.Errorf("long topics exported as %v", entries)
	}
	bad := filepath.Join(dir, "bad.bag")
	writeBag(t, bad, "test/Bad", "int32 x\nnot_a_type!! y\n", "/bad")
	_, stderr, code := run(t, "export", bad, "--out", filepath.Join(dir, "out2"))
	if code != exitBadInput || !strings.Contains(stderr, "bad.bag") || !strings.Contains(stderr, "/bad") {
		t.Errorf("damaged definition: exit %d: %s", code, stderr)
	}
}

// slowWriter takes its time over each write and says when the first came.
type slowWriter struct {
	first chan struct{}
	once  sync.Once
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.first) })
	time.Sleep(20 * time.Millisecond)
	return len(p), nil
}

// TestSignalsStop: SIGTERM and SIGINT stop a running command promptly with
// 143 and 130.
func TestSignalsStop(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, exitTerminated}, {syscall.SIGINT, exitInterrupted}} {
		w := &slowWriter{first: make(chan struct{})}
		var errb strings.Builder
		done := make(chan int)
		go func() {
			// Thirty times the study: tens of 1 MiB writes, each slow.
			args := []string{"cat"}
			for range 30 {
				args = append(args, studyFile("study.bag"))
			}
			done <- Main(args, strings.NewReader(""), w, &errb)
		}()
		select {
		case <-w.first:
		case code := <-done:
			t.Fatalf("cat ended (exit %d) before any output", code)
		}
		if err := syscall.Kill(os.Getpid(), c.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			if code != c.code {
				t.Errorf("%v: exit %d, want %d: %s", c.sig, code, c.code, errb.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: cat still running after 10 s", c.sig)
		}
	}
}

// TestInfoTwoTypesOnOneTopic: a topic whose connections carry different
// types shows both in info.
func TestInfoTwoTypesOnOneTopic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.bag")
	w, err := recording.Create(path, recording.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, typ := range []string{"test/A", "test/B"} {
		id, err := w.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "ros1",
			Schema:   &record.Schema{Name: typ, Encoding: "ros1msg", Data: []byte("int32 x\n"), MD5: "*"},
			Metadata: map[string]string{"callerid": fmt.Sprintf("/node%d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: 1e9 + int64(i), Data: []byte{1, 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "info", path)
	if code != 0 || !strings.Contains(out, "test/A | test/B") {
		t.Errorf("info: exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = run(t, "info", "--json", path)
	if !strings.Contains(out, `"types": [`) {
		t.Errorf("info --json lacks the types: %s", out)
	}
}

// TestFullDisk: a full disk under stdout is an output failure (exit 5).
func TestFullDisk(t *testing.T) {
	testenv.RequirePeer(t, "devfull")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	var errb strings.Builder
	if code := Main([]string{"cat", studyFile("study.bag")}, strings.NewReader(""), full, &errb); code != exitOutput {
		t.Errorf("cat > /dev/full: exit %d, want %d: %s", code, exitOutput, errb.String())
	}
}

// TestKeepUnverified: --skip-bad leaves out the messages of a chunk whose
// CRC fails; --keep-unverified keeps them (every message of the study).
func TestKeepUnverified(t *testing.T) {
	crc := filepath.Join("..", "..", "testdata", "sample", "broken", "study-crc.mcap")
	dropped, _, code1 := run(t, "cat", "--skip-bad", crc)
	kept, _, code2 := run(t, "cat", "--skip-bad", "--keep-unverified", crc)
	whole, _, _ := run(t, "cat", filepath.Join("..", "..", "testdata", "sample", "study.mcap"))
	nd, nk, nw := strings.Count(dropped, "\n"), strings.Count(kept, "\n"), strings.Count(whole, "\n")
	if code1 != 0 || code2 != 0 || nd >= nk || nk != nw {
		t.Errorf("--skip-bad: %d lines (exit %d), --keep-unverified: %d (exit %d), the undamaged file: %d", nd, code1, nk, code2, nw)
	}
}

// TestZeroLengthArrays: a definition with zero-length fixed arrays (legal
// in ROS1, they hold nothing) is read by cat and exported to Parquet and
// CSV without those columns and with the rest of the message; export
// panicked on it before (Arrow has no fixed-size list of size 0).
func TestZeroLengthArrays(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "zero.bag")
	writeBag(t, p, "test/Zero", "int32[0] none\ngeometry_msgs/Point[0] points\nint32 x\n"+
		"================================================================================\n"+
		"MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n", "/zero")
	out, stderr, code := run(t, "cat", p)
	if code != 0 || !strings.Contains(out, `"message":{"none":[],"points":[],"x":1}`) {
		t.Errorf("cat: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := run(t, "export", "--out", filepath.Join(dir, "pq"), p); code != 0 {
		t.Errorf("export: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "pq", "zero.parquet")); err != nil {
		t.Error(err)
	}
	if _, stderr, code := run(t, "export", "--format", "csv", "--out", filepath.Join(dir, "csv"), p); code != 0 {
		t.Fatalf("export --format csv: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "csv", "zero.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], ",x") || strings.Contains(lines[0], "none") || !strings.HasSuffix(lines[1], ",1") {
		t.Errorf("CSV:\n%s", b)
	}
}
