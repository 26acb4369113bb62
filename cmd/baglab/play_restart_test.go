package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
)

// makeLongBagPy writes, with the python rosbag, /map_meta latched once at
// the start and /chatter at 20 Hz for argv[2] seconds.
const makeLongBagPy = `
import sys, rosbag, rospy
from std_msgs.msg import String
t0 = rospy.Time(1700000000, 0)
with rosbag.Bag(sys.argv[1], 'w') as b:
    b.write('/map_meta', String(data='latched map'), t0, connection_header={'callerid': '/mapper', 'latching': '1',
        'topic': '/map_meta', 'type': String._type, 'md5sum': String._md5sum, 'message_definition': String._full_text})
    for i in range(int(float(sys.argv[2]) * 20)):
        b.write('/chatter', String(data='hello %d' % i), t0 + rospy.Duration.from_sec(0.01 + i * 0.05))
`

// baglab play, as a process of its own, while Debian's roscore restarts
// on the same port: the player registers its publications (and services)
// again, and subscribers started after the restart get the topic and the
// latched message published before it (rosbag play keeps publishing only
// to subscribers connected before the restart).
func TestPlayMasterRestart(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic", "rosbag")
	bag := filepath.Join(t.TempDir(), "long.bag")
	if out, err := m.Output(t, time.Minute, rostest.Python, "-c", makeLongBagPy, bag, "90"); err != nil {
		t.Fatalf("python rosbag: %v\n%s", err, out)
	}
	p := startBaglab(t, m, "play", "play", bag, "__name:=/play_restart")
	if out, err := m.Output(t, time.Minute, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "1", "/map_meta"); err != nil || !strings.Contains(out, "latched map") {
		t.Fatalf("rostopic echo /map_meta before the restart: %v\n%s\nplay:\n%s", err, out, m.Log("play"))
	}
	time.Sleep(1500 * time.Millisecond) // the player has seen the first master's pid
	m.Restart(t)
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(m.Log("play"), "publications and"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("player did not register again\n%s", m.Log("play"))
		}
	}
	if !strings.Contains(m.Log("play"), "registering again") {
		t.Errorf("log after the restart:\n%s", m.Log("play"))
	}
	out, err := m.Output(t, time.Minute, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "3", "/chatter")
	if err != nil || strings.Count(out, "data: \"hello ") != 3 {
		t.Fatalf("rostopic echo /chatter after the restart: %v\n%s\nplay:\n%s", err, out, m.Log("play"))
	}
	out, err = m.Output(t, time.Minute, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "1", "/map_meta")
	if err != nil || out != "data: \"latched map\"\n---\n" {
		t.Fatalf("rostopic echo /map_meta after the restart: %v\n%q\nplay:\n%s", err, out, m.Log("play"))
	}
	select {
	case <-p.Done():
		t.Fatalf("play ended before the checks: the test proves nothing\n%s", m.Log("play"))
	default:
	}
	if err := p.Stop(syscall.SIGINT, 20*time.Second); err != nil {
		t.Logf("play: %v", err)
	}
}
