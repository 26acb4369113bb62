package recording_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/mcapfile"
)

// stringMsg is a serialised std_msgs/String (ROS1 and CDR alike but for
// CDR's encapsulation header).
func stringMsg(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}

const stringMD5 = "992ce8a1687cec8c8bd883ec73ca41d1"

// writeStrings writes n std_msgs/String messages on /x with md5 as the
// stored md5sum and def as the definition.
func writeStrings(t *testing.T, w record.Writer, md5, def string, n int) {
	t.Helper()
	id, err := w.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "ros1",
		Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte(def), MD5: md5}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		at := int64(1e18) + int64(i)*1e6
		if err := w.WriteMessage(id, &record.Message{LogTime: at, PublishTime: at, Data: stringMsg("hello")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func check(t *testing.T, path string) []record.Problem {
	t.Helper()
	probs, err := recording.Check(context.Background(), path, recording.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return probs
}

// TestCheckMD5Once: a stored md5sum that disagrees with the definition is
// one problem, in one wording, whatever the format (doctor used to report
// a bag's twice: once from bag.Check, once from its own pass).
func TestCheckMD5Once(t *testing.T) {
	dir := t.TempDir()
	zero := strings.Repeat("0", 32)
	bw, err := bag.Create(filepath.Join(dir, "md5.bag"))
	if err != nil {
		t.Fatal(err)
	}
	writeStrings(t, bw, zero, "string data\n", 3)
	mw, err := mcapfile.Create(filepath.Join(dir, "md5.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	writeStrings(t, mw, zero, "string data\n", 3)
	for _, name := range []string{"md5.bag", "md5.mcap"} {
		probs := check(t, filepath.Join(dir, name))
		want := "topic /x: stored md5sum " + zero + " of std_msgs/String disagrees with its definition's MD5 " + stringMD5
		if len(probs) != 1 || probs[0].Message != want || probs[0].Severity != record.SeverityError {
			t.Errorf("%s: %v, want one error %q", name, probs, want)
		}
	}
}

// TestCheckDefinition: a definition that does not parse is one problem,
// and its messages are not reported again one by one.
func TestCheckDefinition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "def.bag")
	bw, err := bag.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	writeStrings(t, bw, stringMD5, "strin@ data\n", 5)
	probs := check(t, path)
	if len(probs) != 1 || !strings.HasPrefix(probs[0].Message, "topic /x: definition of std_msgs/String: ") || strings.Count(probs[0].Message, "/x") != 1 {
		t.Errorf("%v", probs)
	}
}

// TestCheckSound: sound files of every format have no problems.
func TestCheckSound(t *testing.T) {
	dir := t.TempDir()
	bw, _ := bag.Create(filepath.Join(dir, "ok.bag"))
	writeStrings(t, bw, stringMD5, "string data\n", 20)
	mw, _ := mcapfile.Create(filepath.Join(dir, "ok.mcap"))
	writeStrings(t, mw, stringMD5, "string data\n", 20)
	for _, name := range []string{"ok.bag", "ok.mcap"} {
		if probs := check(t, filepath.Join(dir, name)); len(probs) != 0 {
			t.Errorf("%s: %v", name, probs)
		}
	}
}

// writeDB3 writes a rosbag2 recording of n std_msgs/String messages.
func writeDB3(t *testing.T, path string, n int) {
	t.Helper()
	w, err := db3.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data\n")}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		at := int64(1e18) + int64(i)*1e6
		if err := w.WriteMessage(id, &record.Message{LogTime: at, PublishTime: at, Data: append([]byte{0, 1, 0, 0}, stringMsg("hi\x00")...)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckDB3 runs SQLite's integrity check and compares metadata.yaml's
// counts with the messages (doctor checked no db3 structure before), of
// a sqlite3 folder and of an MCAP one.
func TestCheckDB3(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "run")
	writeDB3(t, folder, 50)
	if probs := check(t, folder); len(probs) != 0 {
		t.Fatalf("sound: %v", probs)
	}
	meta := filepath.Join(folder, "metadata.yaml")
	y, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	y = bytes.ReplaceAll(y, []byte("message_count: 50"), []byte("message_count: 51"))
	if err := os.WriteFile(meta, y, 0o644); err != nil {
		t.Fatal(err)
	}
	probs := check(t, folder)
	if len(probs) != 2 || probs[0].Severity != record.SeverityWarning ||
		probs[0].Message != "metadata.yaml counts 51 messages, the files hold 50" ||
		probs[1].Message != "metadata.yaml counts 51 messages on /x, the files hold 50" {
		t.Errorf("counts: %v", probs)
	}

	// The same for a rosbag2 folder of MCAP splits, as rosbag2 wrote it
	// (the talker fixture: 10 messages on /rosout, 10 on /topic), with
	// one topic's count made wrong (MCAP folders' counts went unchecked).
	talker := filepath.Join(dir, "talker")
	if err := os.CopyFS(talker, os.DirFS(testenv.Fixtures(t, "rosbag2", "rosbag2_py", "talker"))); err != nil {
		t.Fatal(err)
	}
	if probs := check(t, talker); len(probs) != 0 {
		t.Fatalf("talker as recorded: %v", probs)
	}
	meta = filepath.Join(talker, "metadata.yaml")
	if y, err = os.ReadFile(meta); err != nil {
		t.Fatal(err)
	}
	y = bytes.Replace(y, []byte("message_count: 10\n    topic_metadata:\n      name: /rosout"), []byte("message_count: 11\n    topic_metadata:\n      name: /rosout"), 1)
	if err := os.WriteFile(meta, y, 0o644); err != nil {
		t.Fatal(err)
	}
	probs = check(t, talker)
	if len(probs) != 1 || probs[0].Severity != record.SeverityWarning || probs[0].Message != "metadata.yaml counts 11 messages on /rosout, the files hold 10" {
		t.Errorf("talker counts: %v", probs)
	}

	// Damage a b-tree page of the messages table: the integrity check
	// names it.
	file := filepath.Join(dir, "bad.db3")
	writeDB3(t, file, 2000)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := 4096
	for p := page; p+page <= len(data); p += page {
		if data[p] == 0x0d { // a table leaf page
			copy(data[p+8:p+24], bytes.Repeat([]byte{0xff}, 16)) // its cell pointers
			break
		}
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	probs = check(t, file)
	if !hasError(probs, "bad.db3: SQLite integrity check: ") {
		t.Errorf("damaged page: %v", probs)
	}
}

func hasError(probs []record.Problem, words string) bool {
	for _, p := range probs {
		if p.Severity == record.SeverityError && strings.Contains(p.Message, words) {
			return true
		}
	}
	return false
}

// TestCheckMCAPFolder checks each split of a rosbag2 MCAP folder and names
// the damaged one.
func TestCheckMCAPFolder(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"run_0.mcap", "run_1.mcap"} {
		w, err := mcapfile.Create(filepath.Join(folder, name), mcapfile.WithCompression("none"))
		if err != nil {
			t.Fatal(err)
		}
		writeStrings(t, w, stringMD5, "string data\n", 10)
	}
	if probs := check(t, folder); len(probs) != 0 {
		t.Fatalf("sound: %v", probs)
	}
	p := filepath.Join(folder, "run_1.mcap")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("hello"))
	data[i] = 'j'
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	probs := check(t, folder)
	if !hasError(probs, "run_1.mcap: chunk.uncompressed_crc: CRC mismatch") || hasError(probs, "run_0.mcap") || probs[0].Repair != record.RepairRecover {
		t.Errorf("%v", probs)
	}
}

// TestCheckUnsupportedEncoding: a channel of an encoding baglab does not
// decode (protobuf) is a warning that its messages are not checked, not an
// error: the file is not damaged (doctor exited 1 on such files, the MCAP
// conformance suite's among them).
func TestCheckUnsupportedEncoding(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proto.mcap")
	w, err := mcapfile.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/pose", MessageEncoding: "protobuf",
		Schema: &record.Schema{Name: "foxglove.Pose", Encoding: "protobuf", Data: []byte{0x0a, 0x03, 'a', 'b', 'c'}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMessage(id, &record.Message{LogTime: 1, PublishTime: 1, Data: []byte{8, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	probs := check(t, path)
	if len(probs) != 1 || probs[0].Severity != record.SeverityWarning || !strings.HasPrefix(probs[0].Message, "topic /pose: its messages are not checked: ") {
		t.Errorf("%v, want one warning that /pose is not checked", probs)
	}
	// Reading it says that baglab does not decode the encoding, not that
	// a definition is missing.
	in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	err = in.RequireDefinitions()
	if !errors.Is(err, record.ErrUnsupported) || !strings.Contains(err.Error(), `message encoding "protobuf" (/pose)`) || strings.Contains(err.Error(), "--msg-path") {
		t.Errorf("RequireDefinitions: %v", err)
	}
}
