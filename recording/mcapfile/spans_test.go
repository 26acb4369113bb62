package mcapfile

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// topicSpan is a topic's message count and first and last log times.
type topicSpan struct {
	n           uint64
	first, last int64
}

func (s *topicSpan) add(t int64) {
	if s.n == 0 {
		s.first, s.last = t, t
	}
	s.n++
	s.first, s.last = min(s.first, t), max(s.last, t)
}

// checkTopicSpans compares the topics of sum with want: count, first and
// last log times, and record.Frequency of them. Topics missing from want
// must have no messages.
func checkTopicSpans(t *testing.T, sum *record.Summary, want map[string]topicSpan) {
	t.Helper()
	got := 0
	for _, ts := range sum.Topics {
		w := want[ts.Topic]
		if ts.MessageCount != w.n || ts.StartNs != w.first || ts.EndNs != w.last {
			t.Errorf("%s: %d msgs [%d, %d], want %+v", ts.Topic, ts.MessageCount, ts.StartNs, ts.EndNs, w)
		}
		if f := record.Frequency(w.n, w.first, w.last); ts.FrequencyHz != f {
			t.Errorf("%s: %v Hz, want %v", ts.Topic, ts.FrequencyHz, f)
		}
		if w.n > 0 {
			got++
		}
	}
	if got != len(want) {
		t.Errorf("summary has %d topics with messages, want %d", got, len(want))
	}
}

// TestSummaryConformanceTopics: on every MCAP conformance input, with the
// index and without, each topic's count and first and last log times are
// those of the messages the conformance JSON lists.
func TestSummaryConformanceTopics(t *testing.T) {
	for _, path := range conformanceInputs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			topics := map[uint64]string{}
			want := map[string]topicSpan{}
			for _, r := range loadExpected(t, path) {
				switch r.typ {
				case "Channel":
					topics[r.uint(t, "id")] = r.str(t, "topic")
				case "Message":
					topic := topics[r.uint(t, "channel_id")]
					s := want[topic]
					s.add(int64(r.uint(t, "log_time")))
					want[topic] = s
				}
			}
			for _, opts := range [][]Option{nil, {record.WithoutIndex()}} {
				r, err := Open(path, opts...)
				if err != nil {
					t.Fatal(err)
				}
				sum, err := r.Summary()
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				checkTopicSpans(t, sum, want)
			}
		})
	}
}

// TestSummaryRosbag2Topics: on the rosbag2 MCAPs, each topic's count and
// first and last log times are those npm @mcap/core read.
func TestSummaryRosbag2Topics(t *testing.T) {
	for _, path := range rosbag2MCAPs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path + ".foxglove-npm.json")
			if err != nil {
				t.Fatal(err)
			}
			var truth npmTruth
			if err := json.Unmarshal(b, &truth); err != nil {
				t.Fatal(err)
			}
			want := map[string]topicSpan{}
			for topic, tp := range truth.Topics {
				first, err1 := strconv.ParseInt(tp.FirstLogTime, 10, 64)
				last, err2 := strconv.ParseInt(tp.LastLogTime, 10, 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: times %q %q", topic, tp.FirstLogTime, tp.LastLogTime)
				}
				want[topic] = topicSpan{tp.MessageCount, first, last}
			}
			for _, opts := range [][]Option{nil, {record.WithoutIndex()}} {
				r, err := Open(path, opts...)
				if err != nil {
					t.Fatal(err)
				}
				sum, err := r.Summary()
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				checkTopicSpans(t, sum, want)
			}
		})
	}
}

// overlapMessages are written by writeOverlap, a big message closing each
// chunk: the chunks overlap in time, so that /x's first message is not in
// the chunk that starts first among those holding it, nor its last in the
// chunk that ends last, and /x's message index records are out of time
// order. Times in s, chunk by chunk:
//
//	1: /y 0, /x 9 (big)                            [0, 9]
//	2: /y 5, /x 7, /x 6 (big)                      [5, 7]
//	3: /x 30, /x 15 (second channel), /y 25 (big)  [15, 30]
//	4: /x 50, /y 100 (big)                         [50, 100]
//	5: /x 61, /x 60, /y 70 (big)                   [60, 70]
//	6: /z 40 (big)                                 [40, 40]
var overlapMessages = []struct {
	channel uint16
	sec     int64
	big     bool
}{
	{2, 0, false}, {1, 9, true},
	{2, 5, false}, {1, 7, false}, {1, 6, true},
	{1, 30, false}, {3, 15, false}, {2, 25, true},
	{1, 50, false}, {2, 100, true},
	{1, 61, false}, {1, 60, false}, {2, 70, true},
	{4, 40, true},
}

var overlapTopics = map[uint16]string{1: "/x", 2: "/y", 3: "/x", 4: "/z"}

// newBlobWriter starts an MCAP file in buf with the foxglove MCAP writer:
// the header (profile "test"), schema 1 ("blob", encoding "none") and, in
// increasing id order, a raw channel of that schema for each id of topics.
func newBlobWriter(t *testing.T, buf *bytes.Buffer, opts mcap.WriterOptions, topics map[uint16]string) *mcap.Writer {
	t.Helper()
	w, err := mcap.NewWriter(buf, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(&mcap.Header{Profile: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSchema(&mcap.Schema{ID: 1, Name: "blob", Encoding: "none"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range slices.Sorted(maps.Keys(topics)) {
		if err := w.WriteChannel(&mcap.Channel{ID: id, SchemaID: 1, Topic: topics[id], MessageEncoding: "raw"}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// writeOverlap writes overlapMessages with the foxglove MCAP writer and
// returns the file and the topics' true spans.
func writeOverlap(t *testing.T, opts mcap.WriterOptions) ([]byte, map[string]topicSpan) {
	t.Helper()
	var buf bytes.Buffer
	opts.Chunked, opts.ChunkSize = true, 1000
	w := newBlobWriter(t, &buf, opts, overlapTopics)
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string]topicSpan{}
	for i, m := range overlapMessages {
		data := []byte("s")
		if m.big {
			data = make([]byte, 1200) // incompressible, so the chunk closes
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
		}
		lt := uint64(1700000000+m.sec)*1e9 + uint64(m.sec)*1000
		if err := w.WriteMessage(&mcap.Message{ChannelID: m.channel, Sequence: uint32(i), LogTime: lt, PublishTime: lt, Data: data}); err != nil {
			t.Fatal(err)
		}
		s := want[overlapTopics[m.channel]]
		s.add(int64(lt))
		want[overlapTopics[m.channel]] = s
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), want
}

// damageRecordsLength returns a copy of data whose chunk at off claims
// more records than it holds.
func damageRecordsLength(t *testing.T, data []byte, off uint64) []byte {
	t.Helper()
	out := bytes.Clone(data)
	if out[off] != byte(mcap.OpChunk) {
		t.Fatalf("no chunk at %d", off)
	}
	body := off + 9
	n := uint64(binary.LittleEndian.Uint32(out[body+28:]))
	binary.LittleEndian.PutUint64(out[body+32+n:], 1<<40)
	return out
}

// TestSummaryOverlappingChunks reads the topics of writeOverlap's files:
// with statistics and message indexes (only message index records are
// read), without statistics (counts from the message index records),
// without message indexes (the candidate chunks are read), with a message
// index record that does not match its chunk index entry (its chunk is
// read instead), and by a scan.
func TestSummaryOverlappingChunks(t *testing.T) {
	for _, comp := range []mcap.CompressionFormat{mcap.CompressionNone, mcap.CompressionLZ4, mcap.CompressionZSTD} {
		t.Run(cmp.Or(string(comp), "none"), func(t *testing.T) {
			data, want := writeOverlap(t, mcap.WriterOptions{Compression: comp})
			if w := want["/x"]; w.first != 1700000006_000006000 || w.last != 1700000061_000061000 {
				t.Fatalf("/x spans [%d, %d]", w.first, w.last)
			}
			rr := recordtest.NewRangeReader(data)
			r, err := NewReader(rr, int64(len(data)), "overlap.mcap")
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := r.Indexed(); !ok || len(r.ix.chunks) != 6 {
				t.Fatalf("indexed %v (%s), %d chunks", ok, why, len(r.ix.chunks))
			}
			rr.Reset()
			sum, err := r.Summary()
			if err != nil {
				t.Fatal(err)
			}
			checkTopicSpans(t, sum, want)
			for _, rg := range rr.Ranges() {
				for _, c := range r.ix.chunks {
					if rg[0] < int64(c.ChunkStartOffset+c.ChunkLength) && rg[1] > int64(c.ChunkStartOffset) {
						t.Fatalf("Summary read [%d, %d), inside the chunk at %d", rg[0], rg[1], c.ChunkStartOffset)
					}
				}
			}

			summaryOf := func(data []byte, opts ...Option) *record.Summary {
				t.Helper()
				r, err := NewReader(bytes.NewReader(data), int64(len(data)), "overlap.mcap", opts...)
				if err != nil {
					t.Fatal(err)
				}
				sum, err := r.Summary()
				if err != nil {
					t.Fatal(err)
				}
				return sum
			}
			checkTopicSpans(t, summaryOf(data, record.WithoutIndex()), want)
			noStats, _ := writeOverlap(t, mcap.WriterOptions{Compression: comp, SkipStatistics: true})
			checkTopicSpans(t, summaryOf(noStats), want)
			noIndex, _ := writeOverlap(t, mcap.WriterOptions{Compression: comp, SkipMessageIndexing: true})
			checkTopicSpans(t, summaryOf(noIndex), want)

			// The message index record of /x in chunk 2 names another
			// channel.
			bad := bytes.Clone(data)
			c := r.ix.chunks[1]
			off := c.MessageIndexOffsets[1]
			if bad[off] != byte(mcap.OpMessageIndex) || binary.LittleEndian.Uint16(bad[off+9:]) != 1 {
				t.Fatalf("no message index record of channel 1 at %d", off)
			}
			binary.LittleEndian.PutUint16(bad[off+9:], 3)
			checkTopicSpans(t, summaryOf(bad), want)

			// Damaged chunks: Summary fails, or with WithSkipBad an
			// unreadable chunk bounds what it would have given.
			nr, err := NewReader(bytes.NewReader(noIndex), int64(len(noIndex)), "noindex.mcap")
			if err != nil || nr.ix == nil || len(nr.ix.chunks) != 6 {
				t.Fatalf("file without message indexes: %v", err)
			}
			noIndexCut := damageRecordsLength(t, noIndex, nr.ix.chunks[5].ChunkStartOffset) // /z alone
			badCut := damageRecordsLength(t, bad, c.ChunkStartOffset)
			for _, d := range [][]byte{noIndexCut, badCut} {
				dr, err := NewReader(bytes.NewReader(d), int64(len(d)), "damaged.mcap")
				if err != nil {
					t.Fatal(err)
				}
				var e *record.Error
				if _, err := dr.Summary(); !errors.As(err, &e) || e.File != "damaged.mcap" {
					t.Fatalf("Summary of a damaged chunk = %v, want a *record.Error", err)
				}
			}
			checkTopicSpans(t, summaryOf(noIndexCut, record.WithSkipBad(nil)), want)
			x := want["/x"]
			x.first = int64(c.MessageStartTime)
			sum = summaryOf(badCut, record.WithSkipBad(nil))
			checkTopicSpans(t, sum, map[string]topicSpan{"/x": x, "/y": want["/y"], "/z": want["/z"]})
		})
	}
}

// BenchmarkSummary opens the 150 MB benchmark recording and summarises it
// from its summary section and a few message index records.
func BenchmarkSummary(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.mcap")
	writeBench(b, path, "zstd")
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := r.Summary()
		if err != nil || len(s.Topics) != 2 || s.Topics[0].FrequencyHz <= 0 {
			b.Fatal(s, err)
		}
		r.Close()
	}
}
