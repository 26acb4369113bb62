package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// rosbagInvalidUTF8 writes, with Debian's rosbag, a bag of std_msgs/String
// messages whose bytes are not all UTF-8 (as a driver that sends Latin-1
// or binary in a string does), then prints what rosbag reads of them.
const rosbagInvalidUTF8 = `
import json, logging, sys
logging.disable(logging.CRITICAL)
import rosbag, rospy, struct
from std_msgs.msg import String
datas = [b"Caf\xe9 au lait", b"ok \xe2\x9c\x93", b"cut \xf0\x9f\x98", b"\xff\xfe binary"]
with rosbag.Bag(sys.argv[1], "w") as bag:
    for i, d in enumerate(datas):
        raw = struct.pack("<I", len(d)) + d
        bag.write("/text", ("std_msgs/String", raw, String._md5sum, None, String), rospy.Time(100 + i), raw=True)
print(json.dumps([m.data for _, m, _ in rosbag.Bag(sys.argv[1]).read_messages()]))
`

// TestInvalidUTF8Strings: strings that are not valid UTF-8 read as rosbag
// reads them (U+FFFD in place of each invalid sequence), through cat,
// export and convert, with one warning; doctor names where they are.
func TestInvalidUTF8Strings(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	dir := t.TempDir()
	bagPath := filepath.Join(dir, "text.bag")
	out, err := exec.Command(testenv.Python, "-c", rosbagInvalidUTF8, bagPath).Output()
	if err != nil {
		t.Fatalf("rosbag: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || want[0] != "Caf\uFFFD au lait" {
		t.Fatalf("rosbag read %q", want)
	}
	const warning = "3 message(s) of std_msgs/String have strings that are not valid UTF-8"
	// readData is what cat reads of path, warning of the invalid strings
	// when they are still there to repair.
	readData := func(path string, repairs bool) []string {
		t.Helper()
		stdout, stderr, code := run(t, "cat", path)
		if code != 0 {
			t.Fatalf("cat %s: exit %d\n%s", path, code, stderr)
		}
		if strings.Contains(stderr, warning) != repairs {
			t.Errorf("cat %s: warns of invalid strings: %v, want %v:\n%s", path, !repairs, repairs, stderr)
		}
		var got []string
		for _, l := range parseCat(t, stdout) {
			var m struct{ Data string }
			if err := json.Unmarshal(l.Message, &m); err != nil {
				t.Fatal(err)
			}
			got = append(got, m.Data)
		}
		return got
	}
	if got := readData(bagPath, true); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cat read %q\n rosbag %q", got, want)
	}
	mcapPath := filepath.Join(dir, "text.mcap")
	if _, stderr, code := run(t, "convert", bagPath, mcapPath); code != 0 {
		t.Fatalf("convert: exit %d\n%s", code, stderr)
	}
	if got := readData(mcapPath, true); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cat of the converted MCAP file read %q\n rosbag %q", got, want)
	}

	// ROS 2 has the strings as rosbag reads them, with the one warning.
	ros2Path := filepath.Join(dir, "text_ros2")
	_, stderr, code := run(t, "convert", bagPath, ros2Path, "--to", "ros2")
	if code != 0 || !strings.Contains(stderr, warning) {
		t.Errorf("convert --to ros2: exit %d, want 0 and the warning\n%s", code, stderr)
	}
	if got := readData(ros2Path, false); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("cat of the ROS 2 conversion read %q\n rosbag %q", got, want)
	}

	csvDir := filepath.Join(dir, "csv")
	if _, stderr, code := run(t, "export", bagPath, "--out", csvDir, "--format", "csv"); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	csv, err := os.ReadFile(filepath.Join(csvDir, "text.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(csv), w) {
			t.Errorf("CSV lacks %q:\n%s", w, csv)
		}
	}
	if _, stderr, code := run(t, "export", bagPath, "--out", filepath.Join(dir, "parquet")); code != 0 {
		t.Fatalf("export to Parquet: exit %d\n%s", code, stderr)
	}

	stdout, stderr, code := run(t, "doctor", bagPath)
	if code != 0 || strings.Count(stdout, "warning") != 3 || !strings.Contains(stdout, "topic /text: data: invalid UTF-8") {
		t.Errorf("doctor: exit %d, want 0 and three warnings naming the field\n%s%s", code, stdout, stderr)
	}
	if _, _, code := run(t, "doctor", "--strict", bagPath); code != 1 {
		t.Errorf("doctor --strict: exit %d, want 1", code)
	}
}

// TestUndecodableMessageHint: a message whose bytes do not fit its
// definition (here one byte more, which Debian rosbag wrote as given)
// stops cat with exit 3, naming the file, the offset and the type, and
// the hint points to doctor and --skip-bad, not to reindex, whose copy
// would hold the same bytes.
func TestUndecodableMessageHint(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	bagPath := filepath.Join(t.TempDir(), "long.bag")
	const write = `
import sys, rosbag, rospy
from std_msgs.msg import String
with rosbag.Bag(sys.argv[1], "w") as bag:
    bag.write("/text", String(data="first"), rospy.Time(1))
    bag.write("/text", ("std_msgs/String", b"\x02\x00\x00\x00ab!", String._md5sum, None, String), rospy.Time(2), raw=True)
`
	if out, err := exec.Command(testenv.Python, "-c", write, bagPath).CombinedOutput(); err != nil {
		t.Fatalf("rosbag: %v\n%s", err, out)
	}
	stdout, stderr, code := run(t, "cat", bagPath)
	if code != exitBadInput || !strings.Contains(stderr, bagPath+": offset ") || !strings.Contains(stderr, "of the std_msgs/String message") {
		t.Errorf("cat: exit %d, want %d naming the file, offset and type\n%s", code, exitBadInput, stderr)
	}
	if want := "baglab: the message does not decode with the definition " + bagPath + " stores for it: 'baglab doctor " + bagPath + "' lists every such message, --skip-bad reads past them\n"; !strings.HasSuffix(stderr, want) || strings.Contains(stderr, "reindex") {
		t.Errorf("cat: hint\n%s\nwant\n%s", stderr, want)
	}
	if n := len(parseCat(t, stdout)); n != 1 {
		t.Errorf("cat printed %d messages before the bad one, want 1", n)
	}
}

// rosbagEmptyDefinitions writes, with Debian rosbag, connections whose
// message_definition is empty: std_msgs/String with its right MD5 and with
// a wrong one, and std_msgs/Empty, whose definition is rightly empty.
const rosbagEmptyDefinitions = `
import io, sys, rosbag, rospy
from std_msgs.msg import String, Empty
def undefined(cls, md5):
    return type("Undefined", (), {"_type": cls._type, "_md5sum": md5, "_full_text": ""})
def raw(msg):
    b = io.BytesIO(); msg.serialize(b); return b.getvalue()
with rosbag.Bag(sys.argv[1], "w") as bag:
    for i, text in enumerate(["hello", "world"]):
        bag.write("/said", ("std_msgs/String", raw(String(data=text)), String._md5sum, None, undefined(String, String._md5sum)), rospy.Time(1 + i), raw=True)
    bag.write("/tick", ("std_msgs/Empty", raw(Empty()), Empty._md5sum, None, undefined(Empty, Empty._md5sum)), rospy.Time(3), raw=True)
    if len(sys.argv) > 2:
        bag.write("/other", ("std_msgs/String", raw(String(data="x")), "0123456789abcdef0123456789abcdef", None, undefined(String, "0123456789abcdef0123456789abcdef")), rospy.Time(4), raw=True)
`

// TestEmptyStoredDefinition: a connection with an empty message_definition
// (rosbag reads its messages as empty ones) is decoded with the registry's
// definition when the type's MD5 agrees, with a warning; an empty message
// needs none; a wrong MD5 is a missing definition.
func TestEmptyStoredDefinition(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	dir := t.TempDir()
	good, wrong := filepath.Join(dir, "empty-defs.bag"), filepath.Join(dir, "wrong-md5.bag")
	for _, args := range [][]string{{good}, {wrong, "wrong"}} {
		if out, err := exec.Command(testenv.Python, append([]string{"-c", rosbagEmptyDefinitions}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("rosbag: %v\n%s", err, out)
		}
	}
	stdout, stderr, code := run(t, "cat", good)
	if code != 0 {
		t.Fatalf("cat: exit %d\n%s", code, stderr)
	}
	var got []string
	for _, l := range parseCat(t, stdout) {
		got = append(got, l.Topic+" "+string(l.Message))
	}
	if want := `/said {"data":"hello"}|/said {"data":"world"}|/tick {}`; strings.Join(got, "|") != want {
		t.Errorf("cat read %q, want %q", got, want)
	}
	if want := "baglab: warning: /said: the recording stores no definition of std_msgs/String (its message_definition is empty); decoded with the registry's definition\n"; stderr != want {
		t.Errorf("cat: stderr %q, want %q", stderr, want)
	}
	_, stderr, code = run(t, "cat", wrong)
	if code == 0 || !strings.Contains(stderr, "std_msgs/String") || !strings.Contains(stderr, "/other") {
		t.Errorf("cat of a wrong MD5: exit %d, want a missing definition naming /other\n%s", code, stderr)
	}
}
