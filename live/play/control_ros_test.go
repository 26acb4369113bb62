package play_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/play"
)

// controlClientPy drives a playing node's services: the std_srvs ones
// with Debian's rosservice command, as a shell would, the three that take
// a number (baglab_msgs, with rosbag2_interfaces' fields) from rospy with
// service classes generated from their text by genpy and genmsg (whose
// MD5 sum must match the node's for rospy to call). It prints as JSON
// every answer and the messages each step let through.
const controlClientPy = `
import sys, json, time, subprocess, rospy, genmsg, genmsg.msg_loader, genpy.dynamic
from std_msgs.msg import String
node = sys.argv[1]
rospy.init_node('control_client', disable_signals=True)
got, maps, stamps = [], [], []
rospy.Subscriber('/chatter', String, lambda m: (got.append(m.data), stamps.append(time.monotonic())))
rospy.Subscriber('/map_meta', String, lambda m: maps.append(m.data))
def wait_for(n, secs):
    deadline = time.monotonic() + secs
    while len(got) < n and time.monotonic() < deadline:
        time.sleep(0.005)
def rosservice(name, *args):
    out = subprocess.run(['/usr/bin/rosservice', 'call', node + '/' + name] + list(args), capture_output=True, text=True, timeout=30)
    return (out.stdout + out.stderr).strip()
def srv(typ, text):
    ctx = genmsg.MsgContext.create_default()
    spec = genmsg.msg_loader.load_srv_from_string(ctx, text, typ)
    md5 = genmsg.compute_md5(ctx, spec)
    req_text, resp_text = text.split('---\n')
    req = genpy.dynamic.generate_dynamic(typ + 'Request', req_text)[typ + 'Request']
    resp = genpy.dynamic.generate_dynamic(typ + 'Response', resp_text)[typ + 'Response']
    return type('S', (), {'_type': typ, '_md5sum': md5, '_request_class': req, '_response_class': resp})
SetRate = srv('baglab_msgs/SetRate', 'float64 rate\n---\nbool success\n')
Seek = srv('baglab_msgs/Seek', 'time time\n---\nbool success\n')
Burst = srv('baglab_msgs/Burst', 'uint64 num_messages\n---\nuint64 actually_burst\n')
rospy.wait_for_service(node + '/pause', timeout=30)
wait_for(5, 30)
out = {}
out['pause'] = rosservice('pause')
time.sleep(0.3)
n = len(got)
out['is_paused'] = rosservice('is_paused')
out['get_rate'] = rosservice('get_rate')
out['play_next'] = rosservice('play_next')
time.sleep(0.5)
out['after_play_next'] = got[n:]
n = len(got)
out['burst'] = rospy.ServiceProxy(node + '/burst', Burst)(5).actually_burst
time.sleep(0.5)
out['after_burst'] = got[n:]
out['set_rate'] = rospy.ServiceProxy(node + '/set_rate', SetRate)(2.0).success
out['get_rate_2'] = rosservice('get_rate')
m = len(maps)
out['seek'] = rospy.ServiceProxy(node + '/seek', Seek)(rospy.Time(1700000003, 255000000)).success
time.sleep(0.3)
n = len(got)
out['resume'] = rosservice('resume')
out['resume_again'] = rosservice('resume')
wait_for(n + 31, 30)
out['secs_for_20'] = stamps[n + 30] - stamps[n + 10]
out['after_seek'] = got[n:n + 3]
out['maps_after_seek'] = maps[m:]
out['toggle'] = rosservice('toggle_paused')
out['is_paused_2'] = rosservice('is_paused')
json.dump(out, sys.stdout)
`

// TestControlServices: the player's services, named as rosbag2's player
// names them, called with Debian's rosservice (std_srvs/Trigger ones) and
// rospy (baglab_msgs/SetRate, Seek, Burst, whose MD5 sums genmsg computes
// from their text): pause stops /chatter, play_next sends one message,
// burst 5 sends five, set_rate 2 doubles the pace, seek to 3.255 s plays
// from "hello 60" with the latched /map_meta sent again, resume and
// toggle_paused answer as documented.
func TestControlServices(t *testing.T) {
	rostest.Require(t, "rospy", "rosbag", "ros-msgs", "services", "genmsg", "genpy")
	m := rostest.StartMaster(t)
	bag := makeBag(t, m, "none", 20) // /chatter: "hello 0" ... "hello 399" at 20 Hz
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	o := play.DefaultOptions()
	o.WaitForSubscribers = true
	o.Topics = func(t string) bool { return t == "/chatter" || t == "/map_meta" }
	done := startPlay(t, ctx, m, o, bag)
	raw, err := m.Output(t, 100*time.Second, rostest.Python, "-c", controlClientPy, "/baglab_play_test")
	if err != nil {
		t.Fatalf("client: %v\n%s", err, raw)
	}
	var r struct {
		Pause, IsPaused, GetRate, PlayNext, GetRate2, Resume, ResumeAgain, Toggle, IsPaused2 string
		AfterPlayNext, AfterBurst, AfterSeek, MapsAfterSeek                                  []string
		Burst                                                                                int
		SetRate, Seek                                                                        bool
		SecsFor20                                                                            float64
	}
	var m0 map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m0); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	for k, v := range map[string]any{"pause": &r.Pause, "is_paused": &r.IsPaused, "get_rate": &r.GetRate, "play_next": &r.PlayNext,
		"get_rate_2": &r.GetRate2, "resume": &r.Resume, "resume_again": &r.ResumeAgain, "toggle": &r.Toggle, "is_paused_2": &r.IsPaused2,
		"after_play_next": &r.AfterPlayNext, "after_burst": &r.AfterBurst, "after_seek": &r.AfterSeek, "maps_after_seek": &r.MapsAfterSeek,
		"burst": &r.Burst, "set_rate": &r.SetRate, "seek": &r.Seek, "secs_for_20": &r.SecsFor20} {
		if err := json.Unmarshal(m0[k], v); err != nil {
			t.Fatalf("%s: %v\n%s", k, err, raw)
		}
	}
	for _, c := range []struct{ name, got, want string }{
		{"pause", r.Pause, "success: True\nmessage: \"Playback is now paused\""},
		{"is_paused", r.IsPaused, "success: True\nmessage: \"paused\""},
		{"get_rate", r.GetRate, "success: True\nmessage: \"1\""},
		{"play_next", r.PlayNext, "success: True\nmessage: \"publishing the next message\""},
		{"get_rate after set_rate", r.GetRate2, "success: True\nmessage: \"2\""},
		{"resume", r.Resume, "success: True\nmessage: \"Playback is now resumed\""},
		{"resume again", r.ResumeAgain, "success: False\nmessage: \"Bag is already running.\""},
		{"toggle_paused", r.Toggle, "success: True\nmessage: \"Playback is now paused\""},
		{"is_paused after toggle", r.IsPaused2, "success: True\nmessage: \"paused\""},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	if len(r.AfterPlayNext) != 1 {
		t.Errorf("play_next let through %q, want one message", r.AfterPlayNext)
	}
	if r.Burst != 5 || len(r.AfterBurst) != 5 {
		t.Errorf("burst 5: actually_burst %d, messages %q", r.Burst, r.AfterBurst)
	}
	if !r.SetRate || !r.Seek {
		t.Errorf("set_rate %v, seek %v", r.SetRate, r.Seek)
	}
	if len(r.AfterSeek) == 0 || r.AfterSeek[0] != "hello 60" {
		t.Errorf("after the seek to 3.255 s: %q, want hello 60 first", r.AfterSeek)
	}
	if len(r.MapsAfterSeek) != 1 || r.MapsAfterSeek[0] != "latched map" {
		t.Errorf("latched /map_meta after the seek: %q", r.MapsAfterSeek)
	}
	// 20 messages at 20 Hz take 1 s at rate 1, 0.5 s at rate 2.
	if r.SecsFor20 < 0.35 || r.SecsFor20 > 0.8 {
		t.Errorf("20 messages at rate 2 took %.2f s", r.SecsFor20)
	}
	cancel()
	<-done
}
