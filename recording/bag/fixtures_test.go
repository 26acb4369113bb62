package bag

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// rosbagJS is a file of the rosbag.js fixtures with their Debian rosbag
// truth files (public fixtures, found by testenv.Fixtures).
func rosbagJS(t testing.TB, name string) string {
	t.Helper()
	return testenv.Fixtures(t, "rosbag-js", name)
}

// truth is the shape of a *.truth.json file written with Debian rosbag.
type truth struct {
	MessageCount      uint64   `json:"message_count"`
	ChunkCount        int      `json:"chunk_count"`
	ChunkCompression  []string `json:"chunk_compression"`
	AllMessagesSHA256 string   `json:"all_messages_sha256"`
	Header            struct {
		IndexPos   uint64 `json:"index_pos"`
		ConnCount  uint32 `json:"conn_count"`
		ChunkCount uint32 `json:"chunk_count"`
	} `json:"header"`
	Connections []struct {
		ID            uint32   `json:"id"`
		Topic         string   `json:"topic"`
		Type          string   `json:"type"`
		MD5           string   `json:"md5sum"`
		CallerID      *string  `json:"callerid"`
		Latching      *string  `json:"latching"`
		HeaderKeys    []string `json:"header_keys"`
		DefinitionSHA string   `json:"message_definition_sha256"`
	} `json:"connections"`
	Topics map[string]struct {
		Type              string   `json:"type"`
		MD5               string   `json:"md5sum"`
		MessageCount      uint64   `json:"message_count"`
		FirstTimeNs       int64    `json:"first_time_ns"`
		LastTimeNs        int64    `json:"last_time_ns"`
		TotalPayloadBytes int      `json:"total_payload_bytes"`
		PayloadSHA256     string   `json:"payload_sha256"`
		Connections       []uint32 `json:"connections"`
	} `json:"topics"`
	RosbagInfoOutput string `json:"rosbag_info_output"`
}

func loadTruth(t *testing.T, name string) *truth {
	t.Helper()
	b, err := os.ReadFile(rosbagJS(t, name+".truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr
}

// msg is a copy of a message read in a test.
type msg struct {
	topic string
	time  int64
	data  []byte
}

func collect(t *testing.T, r *Reader, f record.Filter) []msg {
	t.Helper()
	it, err := r.Messages(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []msg
	recordtest.Each(t, it, func(m *record.Message) {
		if m.Sequence != uint64(len(out)) || m.Source != r.path || m.PublishTime != m.LogTime {
			t.Fatalf("message %d: sequence %d source %q publish %d log %d", len(out), m.Sequence, m.Source, m.PublishTime, m.LogTime)
		}
		out = append(out, msg{m.Channel.Topic, m.LogTime, slices.Clone(m.Data)})
	})
	return out
}

// hashes computes the truth files' hash_recipe over msgs in their order:
// all = sha256(topic NUL u64 time u32 len payload ...), and per topic
// sha256(u32 len payload ...).
func hashes(msgs []msg) (all string, topics map[string]string) {
	var a []byte
	per := map[string][]byte{}
	for _, m := range msgs {
		n := binary.LittleEndian.AppendUint32(nil, uint32(len(m.data)))
		a = append(a, m.topic...)
		a = append(a, 0)
		a = binary.LittleEndian.AppendUint64(a, uint64(m.time))
		a = append(append(a, n...), m.data...)
		per[m.topic] = append(append(per[m.topic], n...), m.data...)
	}
	topics = map[string]string{}
	for k, v := range per {
		topics[k] = sum(v)
	}
	return sum(a), topics
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestFixtures compares our reader with what Debian rosbag read from the
// rosbag.js fixtures: header, connections, counts, times and the bytes of
// every message (through the truth files' hashes).
func TestFixtures(t *testing.T) {
	for _, name := range []string{"example.bag", "example-bz2.bag", "example-lz4.bag", "example-unsorted-chunks.bag", "no-messages.bag"} {
		for _, linear := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/indexed", true: "/linear"}[linear], func(t *testing.T) {
				tr := loadTruth(t, name)
				var opts []Option
				if linear {
					opts = append(opts, record.WithoutIndex())
				}
				r, err := Open(rosbagJS(t, name), opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if r.Indexed() == linear {
					t.Fatalf("Indexed() = %v (index error %v)", r.Indexed(), r.IndexError())
				}
				h := r.Header()
				if h.IndexPos != tr.Header.IndexPos || h.ConnCount != tr.Header.ConnCount || h.ChunkCount != tr.Header.ChunkCount {
					t.Errorf("header %+v, want %+v", h, tr.Header)
				}
				checkChannels(t, r, tr)
				s, err := r.Summary()
				if err != nil {
					t.Fatal(err)
				}
				checkSummary(t, s, tr)
				msgs := collect(t, r, record.Filter{})
				switch {
				case name == "example-unsorted-chunks.bag":
					// rosbag yields this one in file order; see TestUnsortedChunks.
					if !linear {
						slices.SortStableFunc(msgs, func(a, b msg) int { return int(a.time/1e9 - b.time/1e9) })
						msgs = []msg{msgs[1], msgs[2], msgs[0]}
					}
				case linear:
					// File order; rosbag's is time order, ties in file order.
					slices.SortStableFunc(msgs, func(a, b msg) int { return cmp.Compare(a.time, b.time) })
				}
				checkMessages(t, msgs, tr)
			})
		}
	}
}

func checkChannels(t *testing.T, r *Reader, tr *truth) {
	t.Helper()
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != len(tr.Connections) {
		t.Fatalf("%d channels, want %d", len(chs), len(tr.Connections))
	}
	for i, c := range tr.Connections {
		ch := chs[i]
		if ch.ID != c.ID || ch.Topic != c.Topic || ch.Schema.Name != c.Type || ch.Schema.MD5 != c.MD5 {
			t.Errorf("channel %d = {%d %s %s %s}, want %+v", i, ch.ID, ch.Topic, ch.Schema.Name, ch.Schema.MD5, c)
		}
		if ch.MessageEncoding != "ros1" || ch.Schema.Encoding != "ros1msg" {
			t.Errorf("channel %d encodings %q %q", i, ch.MessageEncoding, ch.Schema.Encoding)
		}
		if got := sum(ch.Schema.Data); got != c.DefinitionSHA {
			t.Errorf("channel %d definition sha256 %s, want %s", i, got, c.DefinitionSHA)
		}
		for key, want := range map[string]*string{"callerid": c.CallerID, "latching": c.Latching} {
			got, ok := ch.Metadata[key]
			if (want == nil) == ok || want != nil && got != *want {
				t.Errorf("channel %d %s = %q (present %v), want %v", i, key, got, ok, want)
			}
		}
		// Every connection header key is either a Channel field or in Metadata.
		for _, k := range c.HeaderKeys {
			if _, ok := ch.Metadata[k]; !ok && !slices.Contains([]string{"topic", "type", "md5sum", "message_definition"}, k) {
				t.Errorf("channel %d lost header field %s", i, k)
			}
		}
		if len(ch.Metadata) != len(c.HeaderKeys)-len(slices.DeleteFunc(slices.Clone(c.HeaderKeys), func(k string) bool {
			return k != "topic" && k != "type" && k != "md5sum" && k != "message_definition"
		})) {
			t.Errorf("channel %d metadata %v, header keys %v", i, ch.Metadata, c.HeaderKeys)
		}
	}
}

func checkSummary(t *testing.T, s *record.Summary, tr *truth) {
	t.Helper()
	if s.Format != "bag" || s.MessageCount != tr.MessageCount {
		t.Errorf("summary format %q count %d, want bag %d", s.Format, s.MessageCount, tr.MessageCount)
	}
	wantComp := "none"
	if len(tr.ChunkCompression) > 0 {
		wantComp = tr.ChunkCompression[0]
	}
	if s.Compression != wantComp {
		t.Errorf("compression %q, want %q", s.Compression, wantComp)
	}
	var start, end int64
	first := true
	for _, tp := range tr.Topics {
		if first || tp.FirstTimeNs < start {
			start = tp.FirstTimeNs
		}
		if first || tp.LastTimeNs > end {
			end = tp.LastTimeNs
		}
		first = false
	}
	if s.StartNs != start || s.EndNs != end || s.DurationNs != end-start {
		t.Errorf("summary times %d..%d (%d), want %d..%d", s.StartNs, s.EndNs, s.DurationNs, start, end)
	}
	if len(s.Topics) != len(tr.Topics) {
		t.Fatalf("%d topics, want %d", len(s.Topics), len(tr.Topics))
	}
	for _, ts := range s.Topics {
		want, ok := tr.Topics[ts.Topic]
		if !ok || ts.Type != want.Type || ts.MD5 != want.MD5 || ts.MessageCount != want.MessageCount || ts.Encoding != "ros1" {
			t.Errorf("topic %+v, want %+v", ts, want)
		}
	}
}

func checkMessages(t *testing.T, msgs []msg, tr *truth) {
	t.Helper()
	all, topics := hashes(msgs)
	if uint64(len(msgs)) != tr.MessageCount {
		t.Errorf("%d messages, want %d", len(msgs), tr.MessageCount)
	}
	if len(topics) != len(tr.Topics) {
		t.Errorf("%d topics with messages, want %d", len(topics), len(tr.Topics))
	}
	for topic, want := range tr.Topics {
		if topics[topic] != want.PayloadSHA256 {
			t.Errorf("%s: payload sha256 differs from rosbag's", topic)
		}
	}
	if all != tr.AllMessagesSHA256 {
		t.Errorf("all messages sha256 %s, want %s", all, tr.AllMessagesSHA256)
	}
}

// TestUnsortedChunks: the fixture's three chunks hold times 2, 3, 1 in file
// order. Debian rosbag's read_messages yields them in that order (its merge
// assumes each connection's index is sorted); we yield log time order, as
// the Reader contract and rosbag's C++ View do.
func TestUnsortedChunks(t *testing.T) {
	r, err := Open(rosbagJS(t, "example-unsorted-chunks.bag"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var times []int64
	recordtest.Each(t, it, func(m *record.Message) {
		got = append(got, string(m.Data))
		times = append(times, m.LogTime)
	})
	// std_msgs/String: uint32 length + bytes.
	want := []string{"\x01\x00\x00\x001", "\x01\x00\x00\x002", "\x01\x00\x00\x003"}
	if !slices.Equal(got, want) || !slices.Equal(times, []int64{1e9, 2e9, 3e9}) {
		t.Fatalf("got %q at %v, want %q at 1s,2s,3s", got, times, want)
	}
}

// TestNotABag: rosbag refuses these files; so do we, with a clear error.
func TestNotABag(t *testing.T) {
	for _, c := range []struct {
		name   string
		cause  error
		detail string
	}{
		{"empty-file.bag", record.ErrTruncated, "empty file"},
		{"asci-file.txt", record.ErrFormat, "not a bag file (no #ROSBAG V2.0 line)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := loadTruth(t, c.name)
			if tr.RosbagInfoOutput == "" {
				t.Fatal("truth has no rosbag info output")
			}
			_, err := Open(rosbagJS(t, c.name))
			var e *record.Error
			if !errors.As(err, &e) || !errors.Is(err, c.cause) || e.Detail != c.detail || e.File == "" || e.Offset != 0 {
				t.Fatalf("Open = %v, want a *record.Error %v %q", err, c.cause, c.detail)
			}
		})
	}
}
