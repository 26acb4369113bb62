package recorder

import (
	"errors"
	"regexp"
	"testing"
	"time"
)

// Over its byte limit the queue drops the oldest messages and counts each
// drop on its own topic.
func TestQueueDropsOldestAndCounts(t *testing.T) {
	a, b := &topicState{name: "/a"}, &topicState{name: "/b"}
	q := newQueue(100)
	for i := range 10 {
		ts := a
		if i%2 == 1 {
			ts = b
		}
		push(q, item{topic: ts, data: make([]byte, 30), t: time.Unix(int64(i), 0)})
	}
	got, done := q.take(nil, time.Millisecond)
	if done || len(got) != 3 {
		t.Fatalf("kept %d messages (done %v), want the newest 3", len(got), done)
	}
	for i, it := range got {
		if it.t.Unix() != int64(7+i) {
			t.Fatalf("kept message %d is #%d", i, it.t.Unix())
		}
	}
	if a.dropped.Load() != 4 || b.dropped.Load() != 3 {
		t.Fatalf("drops /a %d /b %d, want 4 and 3", a.dropped.Load(), b.dropped.Load())
	}
	if q.size() != 0 {
		t.Fatalf("size %d after take", q.size())
	}
	unbounded := newQueue(-1)
	for range 1000 {
		push(unbounded, item{topic: a, data: make([]byte, 1000)})
	}
	if got, _ := unbounded.take(nil, 0); len(got) != 1000 {
		t.Fatalf("unbounded queue kept %d", len(got))
	}
	// The writer takes at most maxBatch bytes at a time (one message at
	// least), oldest first.
	for i := range 3 {
		push(unbounded, item{topic: a, data: make([]byte, maxBatch/2+1), t: time.Unix(int64(i), 0)})
	}
	for i := range 3 {
		got, _ := unbounded.take(nil, 0)
		if len(got) != 1 || got[0].t.Unix() != int64(i) {
			t.Fatalf("take %d: %d messages", i, len(got))
		}
	}
	if unbounded.size() != 0 {
		t.Fatalf("size %d", unbounded.size())
	}
	q.close()
	if _, done := q.take(nil, time.Second); !done {
		t.Fatal("closed empty queue not done")
	}
}

func TestOptionsCheck(t *testing.T) {
	for name, o := range map[string]Options{
		"no topics":        {Output: "x.bag"},
		"bad extension":    {Output: "x.db3", Topics: []string{"/a"}},
		"split alone":      {Output: "x.bag", Topics: []string{"/a"}, Split: true},
		"limit with -a":    {Output: "x.bag", All: true, Limit: 3},
		"bz2 for MCAP":     {Output: "x.mcap", Topics: []string{"/a"}, Compression: "bz2"},
		"zstd for a bag":   {Output: "x.bag", Topics: []string{"/a"}, Compression: "zstd"},
		"-e without regex": {Output: "x.bag", Regex: true},
		"bad regex":        {Output: "x.bag", Regex: true, Topics: []string{"("}},
	} {
		if _, err := New(o); !errors.Is(err, ErrUsage) {
			t.Errorf("%s: %v, want ErrUsage", name, err)
		}
	}
	// -x alone implies -a, as in rosbag.
	r, err := New(Options{Output: "x.bag", Exclude: regexp.MustCompile("^/rosout$")})
	if err != nil || !r.o.All || r.o.BufSize != DefaultBufSize || r.o.ChunkSize != DefaultChunkSize {
		t.Fatalf("%+v %v", r.o, err)
	}
	if !r.wanted("/tf") || r.wanted("/rosout") {
		t.Fatal("exclude not applied")
	}
	if p := (&Options{Output: "d/run.bag", Split: true}).outputPath(3); p != "d/run_3.bag" {
		t.Fatalf("split name %s", p)
	}
}

// Below --min-space free the recording stops.
func TestMinSpaceStops(t *testing.T) {
	r, err := New(Options{Output: t.TempDir() + "/x.bag", Topics: []string{"/a"}, MinSpace: 1 << 62})
	if err != nil {
		t.Fatal(err)
	}
	r.checkSpace(r.o.Output)
	select {
	case <-r.stopCh:
		if reason := r.reason.Load().(string); reason != "disk nearly full (--min-space)" {
			t.Fatalf("reason %q", reason)
		}
	default:
		t.Fatal("recording not stopped with less free space than --min-space")
	}
}

// push reserves an item's bytes and queues it, as a subscriber does.
func push(q *queue, it item) {
	q.Reserve(len(it.data))
	q.put(it)
}
