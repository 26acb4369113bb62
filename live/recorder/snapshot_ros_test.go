package recorder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
)

// pySnapshotClient calls ~trigger_snapshot as rosbag_snapshot's clients
// do, with the TriggerSnapshot type built from its definition by genmsg
// (MD5) and genpy (serialization), Debian's own ROS code: argv filename,
// topic, start offset before now in seconds (0: none).
const pySnapshotClient = `
import sys, rospy, genmsg, genmsg.msg_loader, genpy.dynamic
SRV = """string filename
string[] topics
time start_time
time stop_time
---
bool success
string NO_DATA=no messages buffered on selected topics
string message
"""
name = "rosbag_snapshot_msgs/TriggerSnapshot"
ctx = genmsg.MsgContext.create_default()
spec = genmsg.msg_loader.load_srv_from_string(ctx, SRV, name)
req_text, resp_text = SRV.split("---\n")
req = genpy.dynamic.generate_dynamic(name + "Request", req_text)[name + "Request"]
resp = genpy.dynamic.generate_dynamic(name + "Response", resp_text)[name + "Response"]
class TriggerSnapshot:
    _type = name
    _md5sum = genmsg.compute_md5(ctx, spec)
    _request_class = req
    _response_class = resp
req._md5sum = resp._md5sum = TriggerSnapshot._md5sum
rospy.init_node("snap_client", anonymous=True, disable_signals=True)
rospy.wait_for_service(sys.argv[1], timeout=30)
call = rospy.ServiceProxy(sys.argv[1], TriggerSnapshot)
start = rospy.Time(0)
if float(sys.argv[4]) > 0:
    start = rospy.Time.from_sec(rospy.get_time() - float(sys.argv[4]))
r = call(filename=sys.argv[2], topics=[sys.argv[3]], start_time=start, stop_time=rospy.Time(0))
print("success=%s message=%s" % (r.success, r.message))
`

// snapshotStats reads the statistics record of a snapshot bag.
func snapshotStats(t *testing.T, got map[string][]recorded) Stats {
	t.Helper()
	var st Stats
	if len(got[StatsTopic]) != 1 {
		t.Fatalf("%d statistics records", len(got[StatsTopic]))
	}
	if err := json.Unmarshal([]byte(stringData(got[StatsTopic][0].data)), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// Snapshot mode against roscore, rostopic pub and rosservice: nothing is
// written until ~trigger_snapshot (std_srvs/Trigger) is called; the file,
// named by the trigger time beside -o, holds the last --snapshot-duration
// of messages and counts what the buffer evicted; ~enable_snapshot false
// stops buffering. With --snapshot-service rosbag_snapshot a rospy client
// of TriggerSnapshot names the file, the topic and the start time.
func TestRecordSnapshot(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic", "services", "genmsg")
	m.Start(t, "fast", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/fast", "std_msgs/String", "data: fast")
	m.Start(t, "slow", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "2", "/slow", "std_msgs/String", "data: slow")
	dir := t.TempDir()
	o := Options{Output: filepath.Join(dir, "box.bag"), Topics: []string{"/fast", "/slow"},
		Snapshot: &SnapshotOptions{Duration: 2 * time.Second}}
	o.NodeOptions.Name = "/box"
	r, stop := startRecorder(t, m, o)
	r.waitReceived(t, "/fast", 80, 60*time.Second)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files before a trigger: %v", ents)
	}
	out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "call", "/box/trigger_snapshot")
	if err != nil || !strings.Contains(out, "success: True") {
		t.Fatalf("rosservice call: %v\n%s", err, out)
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "box_*.bag"))
	if len(snaps) != 1 || !strings.Contains(out, snaps[0]) {
		t.Fatalf("snapshots %v; service said %s", snaps, out)
	}
	got := readRecording(t, snaps[0])
	fast := got["/fast"]
	// 2 s at 20 Hz (the machine may be slow: at least 20, at most 2 s + 1).
	if len(fast) < 20 || len(fast) > 45 || len(got["/slow"]) == 0 || len(got["/slow"]) > 6 {
		t.Fatalf("snapshot holds /fast %d, /slow %d", len(fast), len(got["/slow"]))
	}
	if fast[0].ch.Metadata["callerid"] == "" || stringData(fast[0].data) != "fast" {
		t.Fatalf("first /fast %+v", fast[0])
	}
	st := snapshotStats(t, got)
	for _, ts := range st.Topics {
		if ts.Topic == "/fast" && (ts.Evicted < 40 || ts.FileWritten != int64(len(fast))) {
			t.Fatalf("stats %+v", ts)
		}
	}

	// Paused, the buffer keeps what it had and takes nothing new.
	if out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "call", "/box/enable_snapshot", "false"); err != nil || !strings.Contains(out, "buffering paused") {
		t.Fatalf("enable_snapshot false: %v\n%s", err, out)
	}
	time.Sleep(3 * time.Second)
	path, err := r.Snapshot(SnapshotRequest{Topics: []string{"fast"}})
	if err != nil {
		t.Fatal(err)
	}
	paused := readRecording(t, path)["/fast"]
	if len(paused) == 0 || len(readRecording(t, path)["/slow"]) != 0 {
		t.Fatalf("snapshot while paused: /fast %d", len(paused))
	}
	res := stop()
	if len(res.Files) != 2 || res.Files[1] != path {
		t.Fatalf("files %v", res.Files)
	}
}

func TestRecordSnapshotService(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic", "genmsg")
	m.Start(t, "fast", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "20", "/fast", "std_msgs/String", "data: fast")
	m.Start(t, "slow", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "2", "/slow", "std_msgs/String", "data: slow")
	dir := t.TempDir()
	o := Options{Output: filepath.Join(dir, "box.bag"), Topics: []string{"/fast", "/slow"},
		Snapshot: &SnapshotOptions{Service: "rosbag_snapshot"}}
	o.NodeOptions.Name = "/box"
	r, stop := startRecorder(t, m, o)
	defer stop()
	r.waitReceived(t, "/fast", 60, 60*time.Second)
	named := filepath.Join(dir, "crash.bag")
	out, err := m.Output(t, 60*time.Second, rostest.Python, "-c", pySnapshotClient, "/box/trigger_snapshot", named, "/fast", "1")
	if err != nil || !strings.Contains(out, "success=True message="+named) {
		t.Fatalf("TriggerSnapshot: %v\n%s", err, out)
	}
	got := readRecording(t, named)
	// The last second of /fast only.
	if n := len(got["/fast"]); n < 5 || n > 30 || len(got["/slow"]) != 0 {
		t.Fatalf("/fast %d, /slow %d", n, len(got["/slow"]))
	}
	// No data: rosbag_snapshot's NO_DATA answer.
	out, err = m.Output(t, 60*time.Second, rostest.Python, "-c", pySnapshotClient, "/box/trigger_snapshot", "none", "/nothing", "0")
	if err != nil || !strings.Contains(out, "success=False message=no messages buffered on selected topics") {
		t.Fatalf("TriggerSnapshot without data: %v\n%s", err, out)
	}
	// A name without .bag gets the date appended.
	out, err = m.Output(t, 60*time.Second, rostest.Python, "-c", pySnapshotClient, "/box/trigger_snapshot", filepath.Join(dir, "test"), "/slow", "0")
	if err != nil || !strings.Contains(out, "success=True message="+filepath.Join(dir, "test20")) {
		t.Fatalf("TriggerSnapshot test: %v\n%s", err, out)
	}
}
