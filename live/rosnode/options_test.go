package rosnode

import (
	"net/url"
	"testing"
)

func TestOptionsFromEnvironmentAndRemaps(t *testing.T) {
	t.Setenv("ROS_MASTER_URI", "http://10.1.2.3:11311/")
	t.Setenv("ROS_IP", "10.1.2.4")
	t.Setenv("ROS_HOSTNAME", "")
	t.Setenv("ROS_NAMESPACE", "/robot1")
	o := Options{Name: "rec"}
	rest := o.ApplyRemaps([]string{"/a", "__name:=logger", "b:=c", "__ns:=/robot2", "_private:=1"})
	if len(rest) != 3 || rest[0] != "/a" || rest[1] != "b:=c" || rest[2] != "_private:=1" {
		t.Fatalf("rest %v", rest)
	}
	r, err := o.resolved()
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "/robot2/logger" || r.MasterURI != "http://10.1.2.3:11311/" || r.Host != "10.1.2.4" {
		t.Fatalf("%+v", r)
	}
	// ROS_HOSTNAME wins over ROS_IP, as in ROS.
	t.Setenv("ROS_HOSTNAME", "robot.local")
	if r, _ := (Options{Name: "x"}).resolved(); r.Host != "robot.local" || r.Name != "/robot1/x" {
		t.Fatalf("%+v", r)
	}
	// Unset: loopback for a local master.
	t.Setenv("ROS_HOSTNAME", "")
	t.Setenv("ROS_IP", "")
	for _, m := range []string{"http://localhost:11311/", "http://127.0.0.1:11411/"} {
		u, _ := url.Parse(m)
		if h, err := hostFor(u); err != nil || h != "127.0.0.1" {
			t.Fatalf("%s: host %q %v", m, h, err)
		}
	}
	if _, err := (Options{Name: "x", MasterURI: "not a uri"}).resolved(); err == nil {
		t.Fatal("bad master URI accepted")
	}
	if Resolve("/", "~priv") != "/priv" || Resolve("/ns/", "a//b/") != "/ns/a/b" {
		t.Fatal("Resolve")
	}
}
