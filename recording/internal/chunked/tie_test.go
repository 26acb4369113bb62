package chunked_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// TestEqualTimesOneOrder writes the same messages to a bag and to an MCAP
// file, in chunks laid out so that a tie spans two chunks: chunk 1 holds B
// at t=5 (a big message closes it), chunk 2 holds A at t=3 and A at t=5.
// Both readers must yield A3, B5, A5: log time, equal times in file order.
// (Before the shared merge, MCAP gave A3, A5, B5.)
func TestEqualTimesOneOrder(t *testing.T) {
	dir := t.TempDir()
	def := "string data\n"
	typ, err := msgdef.ParseBundle("std_msgs/String", def, msgdef.ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	schema := &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte(def), MD5: msgdef.MD5(typ)}
	str := func(s string) []byte {
		return append([]byte{byte(len(s)), byte(len(s) >> 8), byte(len(s) >> 16), byte(len(s) >> 24)}, s...)
	}
	type in struct {
		topic string
		at    int64
		data  []byte
	}
	msgs := []in{
		{"/b", 5e9, str("B5" + strings.Repeat("x", 4096))},
		{"/a", 3e9, str("A3")},
		{"/a", 5e9, str("A5")},
	}
	write := func(w record.Writer) {
		t.Helper()
		ids := map[string]uint32{}
		for _, topic := range []string{"/a", "/b"} {
			id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "ros1", Schema: schema,
				Metadata: map[string]string{"callerid": "/t"}})
			if err != nil {
				t.Fatal(err)
			}
			ids[topic] = id
		}
		for _, m := range msgs {
			if err := w.WriteMessage(ids[m.topic], &record.Message{LogTime: m.at, PublishTime: m.at, Data: m.data}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	bagPath, mcapPath := filepath.Join(dir, "tie.bag"), filepath.Join(dir, "tie.mcap")
	bw, err := bag.Create(bagPath, bag.WithChunkSize(1024))
	if err != nil {
		t.Fatal(err)
	}
	write(bw)
	mw, err := mcapfile.Create(mcapPath, mcapfile.WithChunkSize(1024), mcapfile.WithCompression("none"))
	if err != nil {
		t.Fatal(err)
	}
	write(mw)
	want := "/a 3000000000 A3\n/b 5000000000 B5\n/a 5000000000 A5\n"
	for _, workers := range []int{1, 4} {
		br, err := bag.Open(bagPath, record.WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		mr, err := mcapfile.Open(mcapPath, record.WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range map[string]record.Reader{"bag": br, "mcap": mr} {
			if got := order(t, r); got != want {
				t.Errorf("%s, %d workers: order\n%s want\n%s", name, workers, got, want)
			}
			r.Close()
		}
	}
}

// order lists topic, log time and the first two bytes of each message's
// string.
func order(t *testing.T, r record.Reader) string {
	t.Helper()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	recordtest.Each(t, it, func(m *record.Message) {
		fmt.Fprintf(&b, "%s %d %s\n", m.Channel.Topic, m.LogTime, m.Data[4:6])
	})
	return b.String()
}
