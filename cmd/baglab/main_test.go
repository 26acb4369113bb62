package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/recording"
)

// studyDir holds the generated sample study shared by the CLI tests.
var (
	studyDir string
	study    *studygen.Study
)

func TestMain(m *testing.M) {
	// Run as the baglab command itself, for tests that measure it as a
	// process of its own (startBaglab).
	if os.Getenv("BAGLAB_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "baglab-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	study, err = studygen.Generate(msgdef.Default(), studygen.Options{Seed: 7, Sessions: 6})
	if err == nil {
		_, err = studygen.WriteAll(dir, study)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "generate study:", err)
		os.Exit(1)
	}
	studyDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	if leanPair.dir != "" {
		os.RemoveAll(leanPair.dir)
	}
	os.Exit(code)
}

// run executes baglab with args and returns stdout, stderr and the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func studyFile(name string) string { return filepath.Join(studyDir, name) }

type catLine struct {
	Topic     string          `json:"topic"`
	Type      string          `json:"type"`
	LogTimeNs int64           `json:"log_time_ns"`
	Message   json.RawMessage `json:"message"`
}

func parseCat(t *testing.T, out string) []catLine {
	t.Helper()
	var lines []catLine
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l catLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", len(lines)+1, err, sc.Text())
		}
		lines = append(lines, l)
	}
	return lines
}

func TestInfoJSON(t *testing.T) {
	for _, name := range []string{"study.bag", "study-lz4.bag", "study-bz2.bag", "study.mcap", "study-lz4.mcap", "study-none.mcap"} {
		t.Run(name, func(t *testing.T) {
			out, stderr, code := run(t, "info", "--json", studyFile(name))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var s struct {
				Path         string `json:"path"`
				Format       string `json:"format"`
				StartNs      int64  `json:"start_ns"`
				EndNs        int64  `json:"end_ns"`
				DurationNs   int64  `json:"duration_ns"`
				MessageCount int    `json:"message_count"`
				Compression  string `json:"compression"`
				Topics       []struct {
					Topic        string  `json:"topic"`
					Type         string  `json:"type"`
					Encoding     string  `json:"encoding"`
					MD5          string  `json:"md5"`
					MessageCount int     `json:"message_count"`
					FrequencyHz  float64 `json:"frequency_hz"`
				} `json:"topics"`
			}
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatal(err)
			}
			if s.MessageCount != len(study.ROS1) {
				t.Errorf("message_count %d, generated %d", s.MessageCount, len(study.ROS1))
			}
			if s.StartNs != study.ROS1[0].LogTime || s.EndNs != study.ROS1[len(study.ROS1)-1].LogTime || s.DurationNs != s.EndNs-s.StartNs {
				t.Errorf("times %d..%d (%d), want %d..%d", s.StartNs, s.EndNs, s.DurationNs, study.ROS1[0].LogTime, study.ROS1[len(study.ROS1)-1].LogTime)
			}
			counts := map[string]int{}
			for _, e := range study.ROS1 {
				counts[e.Topic]++
			}
			if len(s.Topics) != len(counts) {
				t.Errorf("%d topics, want %d", len(s.Topics), len(counts))
			}
			for _, tp := range s.Topics {
				if tp.MessageCount != counts[tp.Topic] {
					t.Errorf("%s: %d messages, want %d", tp.Topic, tp.MessageCount, counts[tp.Topic])
				}
				if tp.Topic == "/lama/objects" && (tp.Type != "lama_msgs/LamaObject" || tp.MD5 != "e2747a1741c10b06140b9673d9018102" || tp.Encoding != "ros1") {
					t.Errorf("/lama/objects: %+v", tp)
				}
			}
		})
	}
}

func TestCatSameAcrossFormats(t *testing.T) {
	want, _, code := run(t, "cat", studyFile("study.bag"))
	if code != 0 {
		t.Fatal("cat study.bag failed")
	}
	lines := parseCat(t, want)
	if len(lines) != len(study.ROS1) {
		t.Fatalf("%d lines, want %d", len(lines), len(study.ROS1))
	}
	// Messages with equal log times may come in another order: indexed bags
	// follow rosbag (by connection), MCAP and unindexed bags file order.
	want = sortedLines(want)
	for _, name := range []string{"study-lz4.bag", "study-bz2.bag", "study.mcap", "study-lz4.mcap", "study-none.mcap", "broken/study.bag.active"} {
		got, stderr, code := run(t, "cat", studyFile(name))
		if got = sortedLines(got); code != 0 || got != want {
			t.Errorf("%s: exit %d, output differs from study.bag (%d vs %d bytes): %s", name, code, len(got), len(want), stderr)
		}
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestCatValues(t *testing.T) {
	out, _, code := run(t, "cat", studyFile("study.mcap"), "--topics", "/lama/*", "--limit", "2")
	if code != 0 {
		t.Fatal("cat failed")
	}
	lines := parseCat(t, out)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	var obj struct {
		ID         int32    `json:"id"`
		Name       string   `json:"name"`
		Type       int32    `json:"type"`
		References [2]int32 `json:"references"`
	}
	if err := json.Unmarshal(lines[0].Message, &obj); err != nil {
		t.Fatal(err)
	}
	if lines[0].Topic != "/lama/objects" || lines[0].Type != "lama_msgs/LamaObject" || obj.ID != 1 || obj.Name != "place_1" || obj.Type != 1 {
		t.Errorf("first LaMa object: %+v %+v", lines[0], obj)
	}
	if lines[0].LogTimeNs != studygen.StartNs+2e9 {
		t.Errorf("log time %d", lines[0].LogTimeNs)
	}

	// A time window relative to the start keeps exactly the messages in it.
	out, _, code = run(t, "cat", studyFile("study.bag"), "--start", "+10s", "--end", "+20s")
	if code != 0 {
		t.Fatal("cat with a window failed")
	}
	want := 0
	for _, e := range study.ROS1 {
		if e.LogTime >= study.ROS1[0].LogTime+10e9 && e.LogTime < study.ROS1[0].LogTime+20e9 {
			want++
		}
	}
	if got := len(parseCat(t, out)); got != want || want == 0 {
		t.Errorf("window: %d messages, want %d", got, want)
	}
}

func TestCatROS2(t *testing.T) {
	out, stderr, code := run(t, "cat", studyFile("queries.mcap"), "--topics", "re:_service_event$")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := parseCat(t, out)
	if len(lines) != 2*study.Truth.Queries.Requests {
		t.Fatalf("%d events, want %d", len(lines), 2*study.Truth.Queries.Requests)
	}
	var ev struct {
		Info struct {
			EventType      int   `json:"event_type"`
			SequenceNumber int64 `json:"sequence_number"`
			Stamp          struct {
				Sec     int64 `json:"sec"`
				Nanosec int64 `json:"nanosec"`
			} `json:"stamp"`
		} `json:"info"`
		Request []struct {
			Patterns []string `json:"patterns"`
			ID       string   `json:"id"`
		} `json:"request"`
	}
	if err := json.Unmarshal(lines[0].Message, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Info.EventType != 0 || ev.Info.SequenceNumber != 1 || len(ev.Request) != 1 || ev.Request[0].ID != "query_0" || ev.Info.Stamp.Sec*1e9+ev.Info.Stamp.Nanosec != lines[0].LogTimeNs {
		t.Errorf("first event: %s", lines[0].Message)
	}
}

func TestConvertRoundTrips(t *testing.T) {
	dir := t.TempDir()
	want, _, _ := run(t, "cat", studyFile("study.bag"))
	steps := [][]string{
		{"convert", studyFile("study.bag"), filepath.Join(dir, "a.mcap")},
		{"convert", filepath.Join(dir, "a.mcap"), filepath.Join(dir, "b.bag"), "--compression", "lz4"},
		{"convert", filepath.Join(dir, "b.bag"), filepath.Join(dir, "c.bag"), "--compression", "bz2"},
	}
	for _, s := range steps {
		if _, stderr, code := run(t, s...); code != 0 {
			t.Fatalf("%v: exit %d: %s", s, code, stderr)
		}
		got, _, _ := run(t, "cat", s[2])
		if got != want {
			t.Errorf("%v: messages differ after conversion", s)
		}
	}
	// ROS2 (CDR) into a ROS1 bag: re-encoded, the same values; the
	// builtin_interfaces Time and Duration become ROS1 time and duration.
	out := filepath.Join(dir, "q.bag")
	if _, stderr, code := run(t, "convert", studyFile("queries.mcap"), out); code != 0 {
		t.Fatalf("convert queries: %s", stderr)
	}
	a, _, _ := run(t, "cat", studyFile("queries.mcap"))
	b, _, _ := run(t, "cat", out)
	la, lb := parseCat(t, a), parseCat(t, b)
	if len(la) != len(lb) || len(la) == 0 {
		t.Fatalf("%d vs %d messages", len(la), len(lb))
	}
	for i := range la {
		var va, vb any
		json.Unmarshal(la[i].Message, &va)
		json.Unmarshal(lb[i].Message, &vb)
		if !reflect.DeepEqual(va, normROS1(vb)) || la[i].Topic != lb[i].Topic || la[i].LogTimeNs != lb[i].LogTimeNs {
			t.Errorf("message %d differs:\n%s\n%s", i, la[i].Message, lb[i].Message)
		}
	}
	// An existing output is refused without --force.
	if _, _, code := run(t, "convert", studyFile("study.bag"), out); code != exitOutput {
		t.Errorf("overwrite without --force: exit %d, want %d", code, exitOutput)
	}
}

func TestFilterAndMerge(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "lama.bag")
	if _, stderr, code := run(t, "filter", studyFile("study.bag"), part, "--topics", "/lama/**"); code != 0 {
		t.Fatal(stderr)
	}
	out, _, _ := run(t, "cat", part)
	for _, l := range parseCat(t, out) {
		if !strings.HasPrefix(l.Topic, "/lama/") {
			t.Errorf("filter kept %s", l.Topic)
		}
	}
	merged := filepath.Join(dir, "all.mcap")
	if _, stderr, code := run(t, "merge", merged, studyFile("study.bag"), studyFile("queries.mcap")); code != 0 {
		t.Fatal(stderr)
	}
	out, _, _ = run(t, "cat", merged)
	lines := parseCat(t, out)
	if len(lines) != len(study.ROS1)+len(study.ROS2) {
		t.Errorf("merged %d messages, want %d", len(lines), len(study.ROS1)+len(study.ROS2))
	}
	for i := 1; i < len(lines); i++ {
		if lines[i].LogTimeNs < lines[i-1].LogTimeNs {
			t.Fatalf("merged output out of time order at %d", i)
		}
	}
}

// TestExitCodes: README's exit-code table, row by row, with the rules
// decided for the cases that differed by verb: a time window outside the
// recording is a warning (exit 0) in every verb, filter writing a
// recording without messages; an export into a folder that holds other
// files is an existing output (5, not 2); a folder with no recordings is
// an input that cannot be opened (4, not 3). 130, 143 and 129 are
// TestSignalLeavesNoTemporary's; 141 TestBrokenPipe's.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	other := filepath.Join(dir, "other")
	for _, d := range []string{empty, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing file", []string{"info", filepath.Join(studyDir, "nope.bag")}, exitNoInput, "nope.bag"},
		{"not a recording", []string{"info", filepath.Join(studyDir, "truth.json")}, exitBadInput, "not a recording"},
		{"truncated bag", []string{"cat", studyFile("broken/study-truncated.bag")}, exitBadInput, "offset"},
		{"unknown flag", []string{"cat", "--frobnicate", studyFile("study.bag")}, exitUsage, "frobnicate"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
		{"missing argument", []string{"cat"}, exitUsage, "requires at least 1 arg"},
		{"bad time", []string{"cat", "--start", "yesterday", studyFile("study.bag")}, exitUsage, "RFC 3339"},
		{"doctor damaged", []string{"doctor", "--no-decode", studyFile("broken/study-crc.mcap")}, exitProblem, "CRC"},
		{"doctor clean", []string{"doctor", studyFile("study.bag")}, exitOK, "ok"},
		{"window outside: cat", []string{"cat", "--start", "+1h", studyFile("study.bag")}, exitOK, "no message is selected"},
		{"window outside: analyze", []string{"analyze", "grasps", "--start", "+1h", studyFile("study.bag")}, exitOK, "no message is selected"},
		{"window outside: filter", []string{"filter", "--start", "+1h", studyFile("study.bag"), filepath.Join(dir, "w.bag")}, exitOK, "wrote 0 messages"},
		{"export into other files", []string{"export", studyFile("study.bag"), "--out", other}, exitOutput, "other"},
		{"existing output", []string{"filter", studyFile("study.bag"), filepath.Join(dir, "w.bag")}, exitOutput, "--force"},
		{"folder without recordings", []string{"info", empty}, exitNoInput, "no recordings"},
		{"pattern selecting nothing", []string{"cat", "--topics", "/nope", studyFile("study.bag")}, exitUsage, "/nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %.500s\nstderr: %.500s", code, c.code, out, stderr)
			}
			if !strings.Contains(out+stderr, c.msg) {
				t.Errorf("output lacks %q\nstdout: %.500s\nstderr: %.500s", c.msg, out, stderr)
			}
		})
	}
}

func TestInterruptedCopyLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	g := &globalOptions{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	o := &copyOptions{g: g, inputs: []string{studyFile("study.bag")}, output: filepath.Join(dir, "x.mcap")}
	err := runCopy(ctx, o)
	if exitCode(err) != exitInterrupted {
		t.Fatalf("err %v, exit %d", err, exitCode(err))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("interrupted copy left %v", entries)
	}
}

func TestMsgShow(t *testing.T) {
	out, _, code := run(t, "msg", "show", "interactive_world_msgs/Placement")
	if code != 0 || !strings.Contains(out, "md5: 4f63d615a22760175f8259186166cef2") || !strings.Contains(out, "MSG: geometry_msgs/Point") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, _, _ = run(t, "msg", "list", "remap_msgs")
	if !strings.Contains(out, "remap_msgs/") {
		t.Errorf("msg list remap_msgs: %s", out)
	}
	if _, _, code := run(t, "msg", "show", "nope_msgs/Nope"); code != exitUsage {
		t.Errorf("unknown type: exit %d", code)
	}
}

func TestInfoMCAPMetadata(t *testing.T) {
	out, _, code := run(t, "info", "--json", studyFile("study.mcap"))
	if code != 0 {
		t.Fatal("info failed")
	}
	var s struct {
		Metadata []struct {
			Name     string            `json:"name"`
			Metadata map[string]string `json:"metadata"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Metadata) != 1 || s.Metadata[0].Name != "study" || s.Metadata[0].Metadata["experiment"] != "breakfast table" {
		t.Errorf("metadata: %+v", s.Metadata)
	}
}

// TestMsgPath: a type baglab does not know, from a user package, is
// shown with msg show only when --msg-path names its directory.
func TestMsgPath(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "lab_msgs", "msg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "Trial.msg"), []byte("Header header\nstring subject\nuint32 trial\nfloat64[] scores\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "msg", "show", "--msg-path", dir, "lab_msgs/Trial")
	if code != 0 || !strings.Contains(out, "uint32 trial") || !strings.Contains(out, "MSG: std_msgs/Header") {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
	if _, _, code := run(t, "msg", "show", "lab_msgs/Trial"); code != exitUsage {
		t.Errorf("without --msg-path: exit %d, want %d", code, exitUsage)
	}
}

// TestMissingDefinitions: a rosbag2 database that stores no definitions of
// a type baglab does not know fails up front, naming the type and its
// topic; --msg-path with the package makes it readable. A common interface
// (std_msgs/msg/String) decodes with the built-in definition, said once.
func TestMissingDefinitions(t *testing.T) {
	dir := t.TempDir()
	testenv.RequirePeer(t, "sqlite3")
	if out, err := exec.Command(testenv.Python, "../../recording/db3/testdata/mkdb3.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("mkdb3.py: %v\n%s", err, out)
	}
	old := filepath.Join(dir, "old.db3")
	out, stderr, code := run(t, "cat", old)
	if lines := parseCat(t, out); code != 0 || len(lines) != 10 || string(lines[1].Message) != `{"data":"x"}` ||
		!strings.Contains(stderr, "decoded with the built-in definition of ROS 2") {
		t.Errorf("built-in std_msgs/msg/String: exit %d, %d lines: %s", code, len(lines), stderr)
	}
	mine := filepath.Join(dir, "mine.db3")
	script := "import shutil, sqlite3, sys; shutil.copy(sys.argv[1], sys.argv[2]); db = sqlite3.connect(sys.argv[2]); " +
		"db.execute(\"UPDATE topics SET type = 'my_msgs/msg/String'\"); db.commit()"
	if out, err := exec.Command(testenv.Python, "-c", script, old, mine).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, verb := range [][]string{{"cat", mine}, {"export", mine, "--out", filepath.Join(dir, "x")}, {"convert", mine, filepath.Join(dir, "x.bag")}} {
		_, stderr, code := run(t, verb...)
		if code != exitBadInput || !strings.Contains(stderr, "my_msgs/msg/String (/old)") || !strings.Contains(stderr, "--msg-path") {
			t.Errorf("%s: exit %d: %s", verb[0], code, stderr)
		}
	}
	pkg := filepath.Join(dir, "msgs", "my_msgs")
	if err := os.MkdirAll(filepath.Join(pkg, "msg"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pkg, "package.xml"), []byte(`<package format="3"><name>my_msgs</name><buildtool_depend>ament_cmake</buildtool_depend></package>`), 0o644)
	os.WriteFile(filepath.Join(pkg, "msg", "String.msg"), []byte("string data\n"), 0o644)
	out, stderr, code = run(t, "cat", "--msg-path", filepath.Join(dir, "msgs"), mine)
	lines := parseCat(t, out)
	if code != 0 || len(lines) != 10 || string(lines[1].Message) != `{"data":"x"}` {
		t.Errorf("with --msg-path: exit %d, %d lines (%s): %s", code, len(lines), out, stderr)
	}
}

func TestDoctor(t *testing.T) {
	const noSummary = "(public fixture NoData.mcap)" // an MCAP without summary, found in the subtest
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"warnings only", []string{"doctor", noSummary}, exitOK, []string{"warning", "no summary"}},
		{"strict", []string{"doctor", "--strict", noSummary}, exitProblem, []string{"warning"}},
		{"damaged bag", []string{"doctor", studyFile("broken/study-truncated.bag")}, exitProblem, []string{"error at offset", "baglab reindex"}},
		{"damaged mcap", []string{"doctor", studyFile("broken/study-crc.mcap")}, exitProblem, []string{"CRC mismatch", "baglab recover"}},
		{"unreadable among others", []string{"doctor", studyFile("study.bag"), studyFile("truth.json")}, exitBadInput, []string{"study.bag: ok", "truth.json: error", "not a recording"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if i := slices.Index(c.args, noSummary); i >= 0 {
				c.args[i] = testenv.Fixtures(t, "mcap-conformance", "data", "NoData", "NoData.mcap")
			}
			out, stderr, code := run(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", code, c.code, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	out, _, code := run(t, "doctor", "--json", studyFile("study.mcap"), studyFile("broken/study-crc.mcap"))
	var probs []recording.FileProblem
	if err := json.Unmarshal([]byte(out), &probs); err != nil || code != exitProblem {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(probs) == 0 {
		t.Fatal("no problems reported for the damaged file")
	}
	for _, p := range probs {
		if p.File != studyFile("broken/study-crc.mcap") || p.Offset <= 0 || p.Severity != "error" {
			t.Errorf("problem %+v", p)
		}
	}
}

// TestPartialNeedsForce: an existing --partial file is an existing output
// like any other (exit 5 without --force, replaced whole with it); it was
// replaced silently.
func TestPartialNeedsForce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(out, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"analyze", "placements", studyFile("study.bag"), "--partial", out}
	if _, stderr, code := run(t, args...); code != exitOutput || !strings.Contains(stderr, "--force") {
		t.Errorf("existing --partial: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Error("the existing file was changed")
	}
	if _, stderr, code := run(t, append(args, "--force")...); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); !json.Valid(b) {
		t.Errorf("--force left %q", b)
	}
}

func TestModelsOutNeedsForce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "models.bag")
	if err := os.WriteFile(out, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"analyze", "placements", studyFile("study.bag"), "--models-out", out}
	if _, stderr, code := run(t, args...); code != exitOutput || !strings.Contains(stderr, "--force") {
		t.Errorf("existing --models-out: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Error("the existing file was changed")
	}
	if _, stderr, code := run(t, append(args[:len(args)-2], "--models-out", out, "--force")...); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
}
