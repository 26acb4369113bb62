package bag

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/baglab/baglab/record"
)

// writeSeeker is an in-memory io.WriteSeeker.
type writeSeeker struct {
	buf []byte
	pos int
}

func (w *writeSeeker) Write(p []byte) (int, error) {
	if need := w.pos + len(p); need > len(w.buf) {
		w.buf = slices.Grow(w.buf, need-len(w.buf))[:need]
	}
	copy(w.buf[w.pos:], p)
	w.pos += len(p)
	return len(p), nil
}

func (w *writeSeeker) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		w.pos = int(off)
	case io.SeekCurrent:
		w.pos += int(off)
	case io.SeekEnd:
		w.pos = len(w.buf) + int(off)
	}
	return int64(w.pos), nil
}

func (w *writeSeeker) Bytes() []byte { return w.buf }

// stringSchema is std_msgs/String as rosbag stores it.
var stringSchema = &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"),
	MD5: "992ce8a1687cec8c8bd883ec73ca41d1"}

func addString(t testing.TB, w *Writer, topic string) uint32 {
	t.Helper()
	id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "ros1", Schema: stringSchema,
		Metadata: map[string]string{"callerid": "/test"}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// stringMsg serializes a std_msgs/String.
func stringMsg(i int) []byte {
	s := fmt.Sprintf("message number %d", i)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}
