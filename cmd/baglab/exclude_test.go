package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestExcludeTopics: --exclude-topics leaves out the topics its patterns
// match, after --topics, in every verb that reads (convert here, read
// back by Debian's rosbag): rosbag.js's example.bag without /turtle*/**
// keeps /rosout, /tf and /tf_static with rosbag's own counts of the
// input; with --topics '/t*' as well, /tf and /tf_static. A pattern that
// matches nothing is a warning; leaving no topic is a selection error
// (exit 2).
func TestExcludeTopics(t *testing.T) {
	in := testenv.Fixtures(t, "rosbag-js", "example.bag")
	all := rosbagTopicCounts(t, in)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--exclude-topics", "/turtle*/**,/nope"}, []string{"/rosout", "/tf", "/tf_static"}},
		{[]string{"--topics", "/t*", "--exclude-topics", "re:/turtle.*"}, []string{"/tf", "/tf_static"}},
	} {
		out := filepath.Join(dir, "out.bag")
		_, stderr, code := run(t, append([]string{"convert", in, out, "-q", "--force"}, c.args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		want := map[string]int{}
		for _, topic := range c.want {
			want[topic] = all[topic]
		}
		if got := rosbagTopicCounts(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: rosbag reads %v, want %v", c.args, got, want)
		}
		if strings.Contains(c.args[1], "/nope") != strings.Contains(stderr, "warning: --exclude-topics /nope matches no topic of the input") {
			t.Errorf("%v: stderr %q", c.args, stderr)
		}
	}
	_, stderr, code := run(t, "cat", in, "--topics", "/tf", "--exclude-topics", "/tf")
	if code != exitUsage || !strings.Contains(stderr, "--exclude-topics /tf leaves no topic of the input") {
		t.Errorf("excluding every topic: exit %d: %s", code, stderr)
	}
}
