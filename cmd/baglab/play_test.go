package main

import (
	"net"
	"strings"
	"testing"
)

// The play verb against a live ROS1 graph is tested in live/play (with
// Debian's roscore, rostopic and rosbag record); here: its command line.

func TestPlayUsageErrors(t *testing.T) {
	bag := studyFile("study.bag")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no recording", []string{"play"}, "requires at least one recording"},
		{"only remaps", []string{"play", "/a:=/b"}, "no recording to play"},
		{"rate 0", []string{"play", bag, "-r", "0"}, "rate 0"},
		{"negative start", []string{"play", bag, "-s", "-1"}, "--start -1"},
		{"bad remap", []string{"play", bag, "--remap", "/a"}, "want FROM:=TO"},
		{"bad exclude", []string{"play", bag, "--exclude", "("}, "--exclude"},
		{"topic that is not there", []string{"play", bag, "--topics", "/no/such/topic"}, "/no/such/topic"},
		{"start past the end", []string{"play", bag, "-s", "100000"}, "past the end"},
		{"queue 0", []string{"play", bag, "--queue", "0"}, "--queue 0"},
		{"hz 0", []string{"play", bag, "--clock", "--hz", "0"}, "hz 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, c.args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr, exitUsage, c.want)
			}
		})
	}
}

// Without a master the command fails at once, naming the master.
func TestPlayWithoutMaster(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("ROS_MASTER_URI", "http://"+addr+"/")
	t.Setenv("ROS_IP", "127.0.0.1")
	_, stderr, code := run(t, "play", studyFile("study.bag"), "-d", "0")
	if code == exitOK || !strings.Contains(stderr, addr) {
		t.Errorf("exit %d, stderr %q; want a failure naming the master %s", code, stderr, addr)
	}
}

// Every --help example parses: its flags exist and take the values given.
func TestPlayExamplesParse(t *testing.T) {
	g := &globalOptions{}
	for _, line := range strings.Split(playExample, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "baglab" || fields[1] != "play" {
			continue
		}
		cmd := newPlayCmd(g)
		var args []string
		for _, f := range fields[2:] {
			args = append(args, strings.Trim(f, "'"))
		}
		if err := cmd.ParseFlags(args); err != nil {
			t.Errorf("%s: %v", line, err)
		}
		if len(cmd.Flags().Args()) == 0 {
			t.Errorf("%s: no recording", line)
		}
	}
}
