package play_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/play"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/live/tcpros"
)

// pauseClientPy subscribes to /chatter and, once messages flow, calls the
// pause service (argv[1]) with rospy's ServiceProxy: pause, pause again,
// and after a quiet window resume, resume again. It prints as JSON the
// responses, how many messages arrived in the window (from the pause
// reply plus a grace for messages already on their way, for window_s),
// how many after resuming, every message's text in order, and genpy's
// md5sum of std_srvs/SetBool.
const pauseClientPy = `
import sys, json, time, rospy
from std_msgs.msg import String
from std_srvs.srv import SetBool
name, grace, window = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rospy.init_node('pause_client', disable_signals=True)
got = []
rospy.Subscriber('/chatter', String, lambda m: got.append(m.data))
def wait_for(n, secs):
    deadline = time.monotonic() + secs
    while len(got) < n and time.monotonic() < deadline:
        time.sleep(0.005)
rospy.wait_for_service(name, timeout=30)
wait_for(5, 30)
call = rospy.ServiceProxy(name, SetBool)
out = {'md5': SetBool._md5sum, 'calls': []}
def c(data):
    r = call(data)
    out['calls'].append({'data': data, 'success': r.success, 'message': r.message})
c(True)
time.sleep(grace)
n0, t0 = len(got), time.monotonic()
c(True)
time.sleep(window)
out['window_s'], out['in_window'] = time.monotonic() - t0, len(got) - n0
n1 = len(got)
c(False)
c(False)
wait_for(n1 + 5, 30)
out['after_resume'] = len(got) - n1
out['got'] = list(got)
json.dump(out, sys.stdout)
`

type pauseCall struct {
	Data    bool   `json:"data"`
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// The ~pause_playback service (std_srvs/SetBool) of a playing node, called
// from rospy: data=true pauses (no message reaches a rospy subscriber for
// the measured window), data=false resumes where playback stopped (no
// message lost or repeated), and the responses are rosbag play's
// (success false with "Bag is already ..." when nothing changes).
// rosservice list and type see the service (type through a probe), its
// md5sum is genpy's, and it is gone when playback ends.
func TestPauseServiceFromRospy(t *testing.T) {
	rostest.Require(t, "rospy", "rosbag", "ros-msgs", "services", "rostopic")
	m := rostest.StartMaster(t)
	bag := makeBag(t, m, "none", 6) // /chatter: "hello 0" ... "hello 119" at 20 Hz
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	o := play.DefaultOptions()
	o.WaitForSubscribers = true
	o.Topics = func(t string) bool { return t == "/chatter" }
	done := startPlay(t, ctx, m, o, bag)
	const name = "/baglab_play_test/pause_playback"
	mc := rosnode.NewMaster(m.URI, "/baglab_test_probe")
	var uri string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if uri, err = mc.LookupService(ctx, name); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("lookupService %s: %v", name, err)
		}
	}
	list, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "list")
	if err != nil || !strings.Contains(list, name+"\n") {
		t.Errorf("rosservice list: %v\n%s", err, list)
	}
	typ, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "type", name)
	if err != nil || typ != "std_srvs/SetBool\n" {
		t.Errorf("rosservice type: %q, %v", typ, err)
	}
	// The node logs on /rosout, as every ROS node does.
	info, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rostopic", "info", "/rosout")
	if err != nil || !strings.Contains(info, "Type: rosgraph_msgs/Log") || !strings.Contains(info, " * /baglab_play_test (") {
		t.Errorf("rostopic info /rosout: %v\n%s", err, info)
	}
	probe := probeService(t, uri, name)

	const grace, window = 0.3, 1.5
	out, err := m.Output(t, 60*time.Second, rostest.Python, "-c", pauseClientPy, name, fmt.Sprint(grace), fmt.Sprint(window))
	if err != nil {
		t.Fatalf("rospy client: %v\n%s", err, out)
	}
	var r struct {
		MD5         string      `json:"md5"`
		Calls       []pauseCall `json:"calls"`
		WindowS     float64     `json:"window_s"`
		InWindow    int         `json:"in_window"`
		AfterResume int         `json:"after_resume"`
		Got         []string    `json:"got"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("rospy client output: %v\n%s", err, out)
	}
	if probe.Value("md5sum") != r.MD5 || probe.Value("type") != "std_srvs/SetBool" {
		t.Errorf("probe header %v; genpy's std_srvs/SetBool md5sum is %s", probe, r.MD5)
	}
	want := []pauseCall{
		{true, true, "Playback is now paused"},
		{true, false, "Bag is already paused."},
		{false, true, "Playback is now resumed"},
		{false, false, "Bag is already running."},
	}
	if len(r.Calls) != len(want) {
		t.Fatalf("responses %+v, want %+v", r.Calls, want)
	}
	for i := range want {
		if r.Calls[i] != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, r.Calls[i], want[i])
		}
	}
	if r.InWindow != 0 || r.WindowS < window {
		t.Errorf("while paused, %d messages arrived in %.2f s (want none)", r.InWindow, r.WindowS)
	} else {
		t.Logf("paused: no message in %.2f s (20 Hz topic); %d after resuming", r.WindowS, r.AfterResume)
	}
	if r.AfterResume < 5 {
		t.Errorf("%d messages after resuming", r.AfterResume)
	}
	// Resuming continues where the pause stopped: nothing skipped or sent twice.
	for i, s := range r.Got {
		if i > 0 && s != nextHello(r.Got[i-1]) {
			t.Errorf("message %d is %q after %q", i, s, r.Got[i-1])
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var apiErr *rosnode.APIError
	if _, err := mc.LookupService(ctx, name); !errors.As(err, &apiErr) {
		t.Errorf("lookupService after playback: %v, want an API error", err)
	}
}

func nextHello(s string) string {
	var i int
	fmt.Sscanf(s, "hello %d", &i)
	return fmt.Sprintf("hello %d", i+1)
}

// probeService reads the service's reply header as rosservice does.
func probeService(t *testing.T, uri, name string) tcpros.Header {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "rosrpc" {
		t.Fatalf("service URI %q: %v", uri, err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := tcpros.WriteHeader(c, tcpros.Header{{Key: "callerid", Value: "/probe"}, {Key: "service", Value: name},
		{Key: "md5sum", Value: "*"}, {Key: "probe", Value: "1"}}); err != nil {
		t.Fatal(err)
	}
	h, err := tcpros.ReadHeader(c)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
