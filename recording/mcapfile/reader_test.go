package mcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// TestFilters checks topic and time filters in both read modes against the
// generator's own list of messages.
func TestFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.mcap")
	writeTestFile(t, path, WithChunkSize(16<<10))
	cases := map[string]record.Filter{
		"topic /b":       {Topic: func(s string) bool { return s == "/b" }},
		"time window":    {Start: 1_000_100_000, End: 1_000_300_000},
		"topic and time": {Topic: func(s string) bool { return s != "/a" }, Start: 1_000_250_000},
		"before start":   {End: 1_000_000_000},
		"after end":      {Start: 2_000_000_000},
	}
	for name, f := range cases {
		for _, mode := range []string{"indexed", "linear"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				var opts []Option
				if mode == "linear" {
					opts = append(opts, record.WithoutIndex())
				}
				r, err := Open(path, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				want := map[uint64]bool{}
				for i := range testMessages {
					ch, lt, _ := testMessage(i)
					if f.Match(testChannels[ch].Topic, lt) {
						want[uint64(i)] = true
					}
				}
				it, err := r.Messages(f)
				if err != nil {
					t.Fatal(err)
				}
				got := 0
				last := int64(-1)
				recordtest.Each(t, it, func(m *record.Message) {
					if !want[m.Sequence] {
						t.Fatalf("message %d (%s at %d) passed the filter", m.Sequence, m.Channel.Topic, m.LogTime)
					}
					if mode == "indexed" && m.LogTime < last {
						t.Fatalf("indexed read goes back in time at %d", m.Sequence)
					}
					last = m.LogTime
					got++
				})
				if got != len(want) {
					t.Errorf("%d messages, want %d", got, len(want))
				}
			})
		}
	}
}

// TestIteratorCloseEarly stops an indexed iterator with chunks in flight.
func TestIteratorCloseEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.mcap")
	writeTestFile(t, path, WithChunkSize(4<<10))
	r, err := Open(path, record.WithWorkers(4))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for range 20 {
		it, _ := r.Messages(record.Filter{})
		it.Next()
		it.Close()
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := it.Next(); err != io.EOF {
			t.Fatalf("Next after Close: %v", err)
		}
	}
}

func ExampleOpen() {
	r, err := Open(filepath.Join("..", "..", "testdata", "sample", "queries.mcap"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	sum, _ := r.Summary()
	for _, tp := range sum.Topics {
		fmt.Println(tp.Topic, tp.Type, tp.Encoding, tp.MessageCount)
	}
	it, _ := r.Messages(record.Filter{Topic: func(s string) bool { return s == "/remap/query/_service_event" }})
	defer it.Close()
	m, _ := it.Next()
	fmt.Println(m.LogTime, len(m.Data))
	// Output:
	// /remap/query/_service_event remap_msgs/srv/Query_Event cdr 40
	// 1714564801000000000 128
}

// TestMessageOffsets checks that Offset locates the message record in the
// file for messages outside chunks and in uncompressed chunks, and is -1 in
// compressed chunks.
func TestMessageOffsets(t *testing.T) {
	for _, comp := range []string{"none", "zstd"} {
		path := filepath.Join(t.TempDir(), "o.mcap")
		writeTestFile(t, path, WithCompression(comp), WithChunkSize(8<<10))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range [][]Option{nil, {record.WithoutIndex()}} {
			r, err := Open(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			it, err := r.Messages(record.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			recordtest.Each(t, it, func(m *record.Message) {
				if comp != "none" {
					// The chunk record's offset.
					if m.Offset < 0 || mcap.OpCode(data[m.Offset]) != mcap.OpChunk {
						t.Fatalf("offset %d in a compressed chunk is not a chunk's", m.Offset)
					}
					return
				}
				o := m.Offset
				if o < 0 || mcap.OpCode(data[o]) != mcap.OpMessage || binary.LittleEndian.Uint32(data[o+1+8+2:]) != uint32(m.Sequence) ||
					!bytes.Equal(data[o+recordHeaderLen+messageHeadLen:o+recordHeaderLen+messageHeadLen+int64(len(m.Data))], m.Data) {
					t.Fatalf("offset %d does not hold message %d", o, m.Sequence)
				}
			})
			r.Close()
		}
	}
}

// TestIndexedUnknownChannel: a message in a chunk on a channel that the
// summary does not list, with an id between listed ones or past the
// largest, is bad data for the indexed iterator; with WithSkipBad the
// chunk's other messages are still read.
func TestIndexedUnknownChannel(t *testing.T) {
	var buf bytes.Buffer
	w := newBlobWriter(t, &buf, mcap.WriterOptions{Chunked: true, ChunkSize: 1 << 20}, map[uint16]string{1: "/a", 5: "/b"})
	for i := range 4 {
		lt := uint64(1e9 + i)
		if err := w.WriteMessage(&mcap.Message{ChannelID: uint16(1 + i%2*4), Sequence: uint32(i), LogTime: lt, PublishTime: lt, Data: fmt.Appendf(nil, "msg-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	chunks := chunkOffsets(t, data)
	if len(chunks) != 1 {
		t.Fatalf("%d chunks, want 1", len(chunks))
	}
	chunk := chunks[0]
	for _, id := range []uint16{3, 60000} {
		t.Run(fmt.Sprint(id), func(t *testing.T) {
			bad := bytes.Clone(data)
			at := bytes.Index(bad, []byte("msg-1")) - messageHeadLen // the message on channel 5
			binary.LittleEndian.PutUint16(bad[at:], id)
			read := func(opts ...Option) (topics []string, err error) {
				r, err := NewReader(bytes.NewReader(bad), int64(len(bad)), "bad.mcap", opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				it, err := r.Messages(record.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				err = recordtest.Read(t, it, func(m *record.Message) {
					topics = append(topics, fmt.Sprintf("%s %s", m.Channel.Topic, m.Data))
				})
				return topics, err
			}
			_, err := read()
			var re *record.Error
			if !errors.As(err, &re) || re.Offset != chunk || re.Field != "message.channel_id" || !errors.Is(err, record.ErrFormat) {
				t.Errorf("error %v, want message.channel_id at %d (ErrFormat)", err, chunk)
			}
			var skipped []record.Skipped
			got, err := read(record.WithSkipBad(func(s record.Skipped) { skipped = append(skipped, s) }))
			want := []string{"/a msg-0", "/a msg-2", "/b msg-3"}
			if err != nil || !slices.Equal(got, want) || len(skipped) != 1 || skipped[0].Offset != chunk || skipped[0].Kept != 3 {
				t.Errorf("with WithSkipBad: %q, %v, skipped %+v; want %q and the chunk at %d skipped with 3 kept", got, err, skipped, want, chunk)
			}
		})
	}
}
