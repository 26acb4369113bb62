package rosnode_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/live/rosnode"
)

// rosnode kill calls the slave API's shutdown, which reaches OnShutdown.
func TestRosnodeKill(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	got := make(chan string, 1)
	node, err := rosnode.New(context.Background(), rosnode.Options{Name: "victim", Namespace: "/lab", MasterURI: m.URI,
		OnShutdown: func(reason string) { got <- reason }})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	if node.Name() != "/lab/victim" || node.Resolve("scan") != "/lab/scan" || node.Resolve("/tf") != "/tf" {
		t.Fatalf("names: %s %s %s", node.Name(), node.Resolve("scan"), node.Resolve("/tf"))
	}
	// A node is known to the master once it registers something.
	if _, err := node.Advertise("scan", rosnode.TopicInfo{Type: "std_msgs/String", MD5: stringMD5, Definition: stringDef}); err != nil {
		t.Fatal(err)
	}
	if out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosnode", "kill", "/lab/victim"); err != nil {
		t.Fatalf("rosnode kill: %v\n%s", err, out)
	}
	select {
	case r := <-got:
		t.Logf("shutdown reason: %q", r)
	case <-time.After(10 * time.Second):
		t.Fatal("OnShutdown not called")
	}
}

// stringMsg serializes a std_msgs/String.
func stringMsg(s string) []byte {
	b := []byte{byte(len(s)), byte(len(s) >> 8), byte(len(s) >> 16), byte(len(s) >> 24)}
	return append(b, s...)
}

const (
	stringMD5 = "992ce8a1687cec8c8bd883ec73ca41d1"
	stringDef = "string data\n"
)

// rostopic echo, started after a latched publish, receives it, then the
// messages that follow, with the type we advertised.
func TestPublishToRostopicEcho(t *testing.T) {
	t.Parallel()
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	node, err := rosnode.New(ctx, rosnode.Options{Name: "/baglab_test_pub", MasterURI: m.URI, Host: "127.0.0.1", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	pub, err := node.Advertise("/chatter", rosnode.TopicInfo{Type: "std_msgs/String", MD5: stringMD5, Definition: stringDef, Latching: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(stringMsg("latched")); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := m.Output(t, 40*time.Second, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "3", "/chatter")
		done <- result{out, err}
	}()
	if err := pub.WaitForSubscribers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// rosnode info reads the slave API: publications, subscriptions and
	// connections (getBusInfo); the pid (getPid).
	info, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosnode", "info", "/baglab_test_pub")
	if err != nil {
		t.Fatalf("rosnode info: %v\n%s", err, info)
	}
	for _, want := range []string{"Publications: \n * /chatter [std_msgs/String]", "Pid: ", "topic: /chatter", "direction: outbound"} {
		if !strings.Contains(info, want) {
			t.Errorf("rosnode info lacks %q:\n%s", want, info)
		}
	}
	for _, s := range []string{"second", "third"} {
		if err := pub.Publish(stringMsg(s)); err != nil {
			t.Fatal(err)
		}
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("rostopic echo: %v\n%s", r.err, r.out)
	}
	want := "data: \"latched\"\n---\ndata: \"second\"\n---\ndata: \"third\"\n---\n"
	if r.out != want {
		t.Fatalf("rostopic echo printed\n%q\nwant\n%q", r.out, want)
	}
	// The master knows the type we advertised.
	types, err := node.Master().GetTopicTypes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tt := range types {
		if tt.Topic == "/chatter" && tt.Type == "std_msgs/String" {
			found = true
		}
	}
	if !found {
		t.Fatalf("master topic types %v lack /chatter std_msgs/String", types)
	}
	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := rosnode.NewMaster(m.URI, "/check").GetSystemState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range st.Publishers {
		for _, n := range p.Nodes {
			if strings.Contains(n, "baglab_test_pub") {
				t.Fatalf("after Close the master still lists %s publishing %s", n, p.Topic)
			}
		}
	}
}

// A service registers with rosmaster (lookupService gives its rosrpc://
// URI), rosservice list and type see it (type comes from a probe of our
// header), and Close, of the service or of the node, unregisters it.
func TestServiceWithRosmaster(t *testing.T) {
	t.Parallel()
	rostest.Require(t, "services")
	m := rostest.StartMaster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	node, err := rosnode.New(ctx, rosnode.Options{Name: "/baglab_test_srv", MasterURI: m.URI, Host: "127.0.0.1", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	handler := func(context.Context, []byte) ([]byte, error) { return nil, nil }
	var srvs []*rosnode.Service
	for _, name := range []string{"echo", "~other"} {
		s, err := node.AdvertiseService(name, rosnode.ServiceInfo{Type: "test_srvs/Echo", MD5: "0123456789abcdef0123456789abcdef"}, handler)
		if err != nil {
			t.Fatal(err)
		}
		srvs = append(srvs, s)
	}
	if _, err := node.AdvertiseService("echo", rosnode.ServiceInfo{Type: "x/Y", MD5: "*"}, handler); err == nil {
		t.Error("a second AdvertiseService of /echo succeeded")
	}
	mc := rosnode.NewMaster(m.URI, "/check")
	for _, s := range srvs {
		if uri, err := mc.LookupService(ctx, s.Name()); err != nil || uri != s.URI() {
			t.Errorf("lookupService %s: %q, %v; want %q", s.Name(), uri, err, s.URI())
		}
	}
	list, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "list", "-n")
	if err != nil || !strings.Contains(list, "/echo /baglab_test_srv\n") {
		t.Errorf("rosservice list -n: %v\n%s", err, list)
	}
	typ, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "type", "/echo")
	if err != nil || typ != "test_srvs/Echo\n" {
		t.Errorf("rosservice type /echo: %q, %v", typ, err)
	}
	if err := srvs[0].Close(); err != nil {
		t.Fatal(err)
	}
	var apiErr *rosnode.APIError
	if _, err := mc.LookupService(ctx, "/echo"); !errors.As(err, &apiErr) {
		t.Errorf("lookupService /echo after Close: %v, want an API error", err)
	}
	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.LookupService(ctx, srvs[1].Name()); !errors.As(err, &apiErr) {
		t.Errorf("lookupService %s after the node's Close: %v, want an API error", srvs[1].Name(), err)
	}
}

// Debian's roscore stopped and started again on the same port: the node
// notices the new master, says so and registers again, so that a
// publisher started after the restart reaches its subscriber, a
// subscriber started after it gets its publications, and rosservice
// finds its service.
func TestMasterRestart(t *testing.T) {
	m := rostest.StartMaster(t)
	rostest.Require(t, "rostopic", "services")
	var l logs
	node, err := rosnode.New(context.Background(), rosnode.Options{Name: "/survivor", MasterURI: m.URI, Host: "127.0.0.1", Logf: l.logf})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	got := make(chan string, 100)
	if _, err := node.Subscribe("/after", rosnode.SubscribeOptions{OnMessage: func(msg *rosnode.Message) {
		got <- string(msg.Data[4:])
		msg.Release()
	}}); err != nil {
		t.Fatal(err)
	}
	pub, err := node.Advertise("/out", rosnode.TopicInfo{Type: "std_msgs/String", MD5: stringMD5, Definition: stringDef, Latching: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(stringMsg("still here")); err != nil {
		t.Fatal(err)
	}
	if _, err := node.AdvertiseService("/survivor/ping", rosnode.ServiceInfo{Type: "std_srvs/Trigger", MD5: "937c9679a518e3a18d831e57125ea522"},
		func(context.Context, []byte) ([]byte, error) { return []byte{1, 2, 0, 0, 0, 'o', 'k'}, nil }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // the node has seen the first master's pid
	m.Restart(t)
	l.waitFor(t, "registering again")
	l.waitFor(t, "registered 1 subscriptions, 1 publications and 1 services again (0 failed)")

	m.Start(t, "pub", rostest.Python, "/usr/bin/rostopic", "pub", "-r", "10", "/after", "std_msgs/String", "data: new")
	select {
	case s := <-got:
		if s != "new" {
			t.Fatalf("got %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no message from a publisher started after the restart\n%s", m.Log("pub"))
	}
	if out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rostopic", "echo", "-n", "1", "/out"); err != nil || !strings.Contains(out, "still here") {
		t.Fatalf("rostopic echo after the restart: %v\n%s", err, out)
	}
	if out, err := m.Output(t, 30*time.Second, rostest.Python, "/usr/bin/rosservice", "call", "/survivor/ping"); err != nil || !strings.Contains(out, "ok") {
		t.Fatalf("rosservice call after the restart: %v\n%s", err, out)
	}
}
