package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
)

// TestDoctorMD5Once: a bag whose stored md5sum is wrong gets one error
// line, not two in different wordings (review F6).
func TestDoctorMD5Once(t *testing.T) {
	path := filepath.Join(t.TempDir(), "md5.bag")
	w, err := bag.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/x", MessageEncoding: "ros1",
		Schema: &record.Schema{Name: "std_msgs/String", Data: []byte("string data\n"), MD5: strings.Repeat("0", 32)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMessage(id, &record.Message{LogTime: 1e18, Data: []byte{2, 0, 0, 0, 'h', 'i'}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "doctor", path)
	want := path + ": error: topic /x: stored md5sum 00000000000000000000000000000000 of std_msgs/String disagrees with its definition's MD5 992ce8a1687cec8c8bd883ec73ca41d1\n"
	if code != exitProblem || out != want {
		t.Errorf("exit %d, output\n%s%s want\n%s", code, out, stderr, want)
	}
}

// TestDoctorDB3: doctor runs the db3 structural check too.
func TestDoctorDB3(t *testing.T) {
	out, _, code := run(t, "doctor", studyFile("queries.db3"), studyFile("queries_rosbag2"))
	if code != exitOK || strings.Count(out, ": ok\n") != 2 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
