package recorder

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

// The ring keeps the newest Duration and at most Size bytes, counting
// what it evicts per topic; paused, it keeps nothing new.
func TestRingEvicts(t *testing.T) {
	a, b := &topicState{name: "/a"}, &topicState{name: "/b"}
	g := &ring{maxBytes: 100, maxAge: 5 * time.Second}
	t0 := time.Unix(1000, 0)
	for i := range 10 {
		ts := a
		if i%2 == 1 {
			ts = b
		}
		g.add(item{topic: ts, data: make([]byte, 10), t: t0.Add(time.Duration(i) * time.Second)})
	}
	// Age: messages 0..3 are more than 5 s older than message 9.
	if got := g.selectItems(SnapshotRequest{}); len(got) != 6 || got[0].t != t0.Add(4*time.Second) {
		t.Fatalf("kept %d, first at %v", len(got), got[0].t)
	}
	if a.evicted.Load() != 2 || b.evicted.Load() != 2 {
		t.Fatalf("evicted /a %d /b %d", a.evicted.Load(), b.evicted.Load())
	}
	// Size: a 60-byte message pushes out the oldest to stay within 100.
	g.add(item{topic: a, data: make([]byte, 60), t: t0.Add(10 * time.Second)})
	if got := g.selectItems(SnapshotRequest{}); len(got) != 5 || g.bytes != 100 || a.evicted.Load()+b.evicted.Load() != 6 {
		t.Fatalf("kept %d (%d bytes)", len(got), g.bytes)
	}
	if got := g.selectItems(SnapshotRequest{Topics: []string{"/b"}, Stop: t0.Add(8 * time.Second)}); len(got) != 1 || got[0].t != t0.Add(7*time.Second) {
		t.Fatalf("selected %v", got)
	}
	if !g.setPaused(true) || g.setPaused(true) {
		t.Fatal("setPaused did not report the change once")
	}
	g.add(item{topic: a, data: make([]byte, 1), t: t0.Add(11 * time.Second)})
	if got := g.selectItems(SnapshotRequest{}); len(got) != 5 {
		t.Fatalf("paused ring took a message: %d", len(got))
	}
}

// triggerSnapshotRequest serializes a TriggerSnapshot request by hand.
func triggerSnapshotRequest(filename string, topics []string, start, stop [2]uint32) []byte {
	str := func(b []byte, s string) []byte {
		return append(binary.LittleEndian.AppendUint32(b, uint32(len(s))), s...)
	}
	b := str(nil, filename)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(topics)))
	for _, t := range topics {
		b = str(b, t)
	}
	for _, v := range []uint32{start[0], start[1], stop[0], stop[1]} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func TestParseTriggerSnapshot(t *testing.T) {
	b := triggerSnapshotRequest("crash", []string{"/a", "/b"}, [2]uint32{100, 5}, [2]uint32{0, 0})
	req, err := ParseTriggerSnapshot(b)
	if err != nil || req.Filename != "crash" || len(req.Topics) != 2 || req.Topics[1] != "/b" ||
		!req.Start.Equal(time.Unix(100, 5)) || !req.Stop.IsZero() {
		t.Fatalf("%+v, %v", req, err)
	}
	for i := range len(b) {
		if _, err := ParseTriggerSnapshot(b[:i]); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: %v", i, err)
		}
	}
	if _, err := ParseTriggerSnapshot(append(b, 0)); err == nil {
		t.Fatal("trailing byte accepted")
	}
	huge := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), 1<<31)
	if _, err := ParseTriggerSnapshot(huge); err == nil {
		t.Fatal("2^31 topics accepted")
	}
}

func FuzzParseTriggerSnapshot(f *testing.F) {
	f.Add(triggerSnapshotRequest("x.bag", []string{"/tf"}, [2]uint32{1, 2}, [2]uint32{3, 4}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := ParseTriggerSnapshot(b)
		if err != nil {
			return
		}
		// Nanoseconds of 1e9 or more are normalised by time.Unix; else
		// the request re-encodes to its bytes.
		n := len(b)
		if binary.LittleEndian.Uint32(b[n-12:]) >= 1e9 || binary.LittleEndian.Uint32(b[n-4:]) >= 1e9 {
			return
		}
		stamp := func(v time.Time) [2]uint32 {
			if v.IsZero() {
				return [2]uint32{}
			}
			return [2]uint32{uint32(v.Unix()), uint32(v.Nanosecond())}
		}
		if again := triggerSnapshotRequest(req.Filename, req.Topics, stamp(req.Start), stamp(req.Stop)); !bytes.Equal(again, b) {
			t.Fatalf("re-encoded %x, want %x", again, b)
		}
	})
}
