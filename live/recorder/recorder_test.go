package recorder

import (
	"bytes"
	"errors"
	"testing"
)

func TestResultSummary(t *testing.T) {
	r := &Result{Reason: "limit reached", Files: []string{"a_0.bag", "a_1.bag"},
		Topics: []TopicStats{{Topic: "/chatter", Received: 120, Written: 118, Dropped: 2}, {Topic: "/tf", Received: 5, Written: 5}}}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	want := `baglab record: stopped: limit reached
TOPIC                                      RECEIVED    WRITTEN  DROPPED
/chatter                                        120        118        2
/tf                                               5          5        0
wrote a_0.bag
wrote a_1.bag
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if r.Dropped() != 2 {
		t.Errorf("dropped %d", r.Dropped())
	}
	// A write that fails is reported, also for a result without files.
	r.Files = nil
	if err := r.WriteSummary(failingWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("failing writer: %v, want %v", err, errWrite)
	}
}

var errWrite = errors.New("write failed")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }
