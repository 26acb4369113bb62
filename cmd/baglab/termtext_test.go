//go:build !baglab_lean

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// hostileNamesBag is a bag Debian's rosbag writes with names meant to act
// on a terminal: a topic with a colour escape and a newline that forges an
// info line, a /tf transform between frames named with a screen-clearing
// escape and a newline, and on that topic a message cut short.
const hostileNamesBag = `
import sys, rosbag, rospy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from geometry_msgs.msg import TransformStamped
topic = '/a\x1b[31mred\nmessages:    999'
with rosbag.Bag(sys.argv[1], 'w') as b:
    t = rospy.Time(10)
    b.write(topic, String(data='x'), t)
    b.write(topic, ('std_msgs/String', b'\x05\x00\x00\x00ab', String._md5sum, String), t + rospy.Duration(1), raw=True)
    ts = TransformStamped()
    ts.header.stamp, ts.header.frame_id, ts.child_frame_id = t, 'map\x1b[2J', 'base\nfake'
    ts.transform.rotation.w = 1
    b.write('/tf', TFMessage(transforms=[ts]), t)
`

// TestHostileNamesPrintEscaped: names a recording holds are printed with
// their control characters escaped, on stdout (info, tf --tree, analyze)
// and stderr (what --skip-bad skips), so that no escape sequence reaches
// the terminal and no line is forged.
func TestHostileNamesPrintEscaped(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	path := filepath.Join(t.TempDir(), "hostile.bag")
	if out, err := exec.Command(testenv.Python, "-c", hostileNamesBag, path).CombinedOutput(); err != nil {
		t.Fatalf("rosbag: %v\n%s", err, out)
	}
	topic := `/a\x1b[31mred\nmessages:    999`
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string // what each must hold
	}{
		{[]string{"info", path}, 0, "\n  " + topic + "  2 msgs", ""},
		{[]string{"tf", path, "--tree"}, 0, `base\nfake  map\x1b[2J  dynamic`, ""},
		{[]string{"analyze", "topics", path}, 0, "\n" + topic + " ", ""},
		{[]string{"cat", path, "--skip-bad", "-q"}, 0, `"topic":"/a\u001b[31mred\nmessages:    999"`, "skipped: " + path},
	} {
		stdout, stderr, code := run(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, stderr)
			continue
		}
		if strings.ContainsAny(stdout+stderr, "\x1b\u009b") {
			t.Errorf("%v: an escape reached the output:\n%q\n%q", c.args, stdout, stderr)
		}
		if !strings.Contains(stdout, c.stdout) {
			t.Errorf("%v: stdout\n%s\nholds no %q", c.args, stdout, c.stdout)
		}
		if !strings.Contains(stderr, c.stderr) || (c.stderr != "" && !strings.Contains(stderr, topic)) {
			t.Errorf("%v: stderr\n%s\nholds no %q naming %q", c.args, stderr, c.stderr, topic)
		}
	}
}
