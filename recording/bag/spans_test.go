package bag

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// peerTopics is what rosbag_peer.py topics prints: per topic, what Debian
// rosbag read.
type peerTopics struct {
	Topics map[string]struct {
		Count    uint64  `json:"count"`
		FirstNs  int64   `json:"first_ns"`
		LastNs   int64   `json:"last_ns"`
		MeanHz   float64 `json:"mean_hz"`   // 1 / mean period
		RosbagHz float64 `json:"rosbag_hz"` // rosbag info --freq: 1 / median period
	} `json:"topics"`
}

func runPeerTopics(t *testing.T, paths ...string) []*peerTopics {
	t.Helper()
	var p []*peerTopics
	runPeerJSON(t, &p, append([]string{"topics"}, paths...)...)
	if len(p) != len(paths) {
		t.Fatalf("rosbag_peer.py topics: %d results for %d bags", len(p), len(paths))
	}
	return p
}

// runPeerJSON runs rosbag_peer.py with args and decodes its output into v.
func runPeerJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Debian rosbag (skipped with -short)")
	}
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	cmd := exec.Command(testenv.Python, append([]string{filepath.Join("testdata", "rosbag_peer.py")}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rosbag_peer.py %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatal(err)
	}
}

// checkPeerTopics compares each topic of s with what rosbag read: count,
// first and last times exactly, and the frequency with the mean rate over
// rosbag's gaps.
func checkPeerTopics(t *testing.T, s *record.Summary, want *peerTopics) {
	t.Helper()
	if len(s.Topics) != len(want.Topics) {
		t.Fatalf("%d topics, rosbag reads %d", len(s.Topics), len(want.Topics))
	}
	for _, ts := range s.Topics {
		w, ok := want.Topics[ts.Topic]
		if !ok || ts.MessageCount != w.Count || ts.StartNs != w.FirstNs || ts.EndNs != w.LastNs {
			t.Errorf("%s: %d msgs [%d, %d], rosbag %+v", ts.Topic, ts.MessageCount, ts.StartNs, ts.EndNs, w)
		}
		if !closeTo(ts.FrequencyHz, w.MeanHz, 1e-9) {
			t.Errorf("%s: %v Hz, rosbag's mean rate %v Hz", ts.Topic, ts.FrequencyHz, w.MeanHz)
		}
	}
}

func closeTo(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// TestSummaryFixtureTopics: every topic's first and last times are the
// truth files' (written with Debian rosbag) and its frequency is the mean
// rate over the gaps rosbag reads; with the index and by a scan.
func TestSummaryFixtureTopics(t *testing.T) {
	names := []string{"example.bag", "example-bz2.bag", "example-lz4.bag", "example-unsorted-chunks.bag", "no-messages.bag"}
	var peer []*peerTopics
	if !testing.Short() {
		var paths []string
		for _, name := range names {
			paths = append(paths, rosbagJS(t, name))
		}
		peer = runPeerTopics(t, paths...)
	}
	for i, name := range names {
		tr := loadTruth(t, name)
		for _, linear := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/indexed", true: "/linear"}[linear], func(t *testing.T) {
				s := summarise(t, rosbagJS(t, name), linear)
				for _, ts := range s.Topics {
					want := tr.Topics[ts.Topic]
					if ts.StartNs != want.FirstTimeNs || ts.EndNs != want.LastTimeNs {
						t.Errorf("%s: [%d, %d], rosbag [%d, %d]", ts.Topic, ts.StartNs, ts.EndNs, want.FirstTimeNs, want.LastTimeNs)
					}
					if f := record.Frequency(want.MessageCount, want.FirstTimeNs, want.LastTimeNs); ts.FrequencyHz != f {
						t.Errorf("%s: %v Hz, want %v", ts.Topic, ts.FrequencyHz, f)
					}
				}
				if peer != nil {
					checkPeerTopics(t, s, peer[i])
				}
			})
		}
	}
	// /turtle1/cmd_vel is teleoperation with pauses: 357 messages over
	// 16.64 s. rosbag info --freq shows 32.9 Hz, one over the median gap;
	// the mean rate is 21.39 Hz, not the 16.4 Hz of a count over the whole
	// recording.
	s := summarise(t, rosbagJS(t, "example.bag"), false)
	i := slices.IndexFunc(s.Topics, func(ts record.TopicSummary) bool { return ts.Topic == "/turtle1/cmd_vel" })
	if f := s.Topics[i].FrequencyHz; math.Abs(f-21.3944) > 1e-4 {
		t.Errorf("/turtle1/cmd_vel: %v Hz, want 21.3944", f)
	}
}

func summarise(t *testing.T, path string, linear bool, opts ...Option) *record.Summary {
	t.Helper()
	if linear {
		opts = append(opts, record.WithoutIndex())
	}
	r, err := Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Indexed() == linear {
		t.Fatalf("Indexed() = %v (%v)", r.Indexed(), r.IndexError())
	}
	s, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSummaryRosbagTopics checks the topics of the bags rosbag writes in the
// interop tests (a late publisher whose stamps reach back into earlier
// chunks) against rosbag's own reading.
func TestSummaryRosbagTopics(t *testing.T) {
	for _, comp := range []string{"none", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "peer.bag")
			runPeer(t, "write", path, comp)
			want := runPeerTopics(t, path)[0]
			checkPeerTopics(t, summarise(t, path, false), want)
			checkPeerTopics(t, summarise(t, path, true), want)
		})
	}
}

// TestSummaryOverlappingChunks reads a bag whose chunks overlap in time
// (rosbag_peer.py overlap): /x's first message is in the second chunk by
// start time and its last in the second by end time. Variants: every index
// data record's entries reversed (rosbag keeps them sorted, the format does
// not require it), the index data records of a chunk unusable (the chunk
// itself is read), and that chunk damaged too (an error, or with
// WithSkipBad the chunk info's times).
func TestSummaryOverlappingChunks(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "bz2"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "overlap.bag")
			runPeerJSON(t, &struct{}{}, "overlap", path, comp)
			want := runPeerTopics(t, path)[0]
			if w := want.Topics["/x"]; w.FirstNs != 1700000006_000006000 || w.LastNs != 1700000061_000061000 {
				t.Fatalf("rosbag reads /x over [%d, %d]: the fixture changed", w.FirstNs, w.LastNs)
			}
			checkPeerTopics(t, summarise(t, path, false), want)
			checkPeerTopics(t, summarise(t, path, true), want)

			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), path)
			if err != nil {
				t.Fatal(err)
			}
			chunks := r.chunks
			if len(chunks) != 6 {
				t.Fatalf("%d chunks, want 6", len(chunks))
			}

			reversed := slices.Clone(data)
			unsorted := false
			for _, c := range chunks {
				for _, entries := range indexEntries(t, reversed, c) {
					for a, b := 0, len(entries)-12; a < b; a, b = a+12, b-12 {
						var tmp [12]byte
						copy(tmp[:], entries[a:])
						copy(entries[a:a+12], entries[b:b+12])
						copy(entries[b:], tmp[:])
					}
					unsorted = unsorted || len(entries) > 12 && timeNs(entries) > timeNs(entries[len(entries)-12:])
				}
			}
			if !unsorted {
				t.Fatal("no index data record is out of time order")
			}
			p := writeVariant(t, dir, "reversed.bag", reversed)
			checkPeerTopics(t, summarise(t, p, false), want)

			// Chunk 2 (the one holding /x's first message) loses its index
			// data records: ver 2 is not a version rosbag reads.
			noIndex := slices.Clone(data)
			breakIndex(t, noIndex, chunks[1])
			p = writeVariant(t, dir, "noindex.bag", noIndex)
			checkPeerTopics(t, summarise(t, p, false), want)

			// And its data is damaged too.
			damaged := slices.Clone(noIndex)
			binary.LittleEndian.PutUint32(damaged[chunks[1].dataOffset:], math.MaxUint32)
			p = writeVariant(t, dir, "damaged.bag", damaged)
			dr, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer dr.Close()
			var e *record.Error
			if _, err := dr.Summary(); !errors.As(err, &e) || e.File != p {
				t.Fatalf("Summary of a damaged chunk = %v, want a *record.Error", err)
			}
			s := summarise(t, p, false, record.WithSkipBad(nil))
			x := s.Topics[slices.IndexFunc(s.Topics, func(ts record.TopicSummary) bool { return ts.Topic == "/x" })]
			if x.StartNs != chunks[1].info.StartTime || x.EndNs != want.Topics["/x"].LastNs {
				t.Errorf("/x with chunk 2 skipped: [%d, %d], want [%d (chunk 2 start), %d]", x.StartNs, x.EndNs, chunks[1].info.StartTime, want.Topics["/x"].LastNs)
			}
		})
	}
}

// indexEntries returns the entries (12 bytes each) of every index data
// record after chunk c, as slices of data.
func indexEntries(t *testing.T, data []byte, c *chunkRef) [][]byte {
	t.Helper()
	var out [][]byte
	region := data[c.end():c.indexEnd]
	for p := 0; p < len(region); {
		header, body, next, err := splitRecord(region, p)
		if err != nil {
			t.Fatal(err)
		}
		_, count, err := parseIndexHeader(header, body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, body[:12*count])
		p = next
	}
	return out
}

// breakIndex makes every index data record after chunk c claim version 2.
func breakIndex(t *testing.T, data []byte, c *chunkRef) {
	t.Helper()
	region := data[c.end():c.indexEnd]
	ver := append([]byte("ver="), 1, 0, 0, 0)
	if bytes.Count(region, ver) == 0 {
		t.Fatal("no index data record after the chunk")
	}
	for i := bytes.Index(region, ver); i >= 0; i = bytes.Index(region, ver) {
		region[i+4] = 2
	}
}

func writeVariant(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSummaryReadsOnlyIndex: on an indexed bag of many chunks, Summary
// reads no chunk data and the index data records of few chunks.
func TestSummaryReadsOnlyIndex(t *testing.T) {
	var ws writeSeeker
	w, err := NewWriter(&ws, WithChunkSize(4096), WithCompression(string(CompressionLZ4)))
	if err != nil {
		t.Fatal(err)
	}
	a, b := addString(t, w, "/a"), addString(t, w, "/b")
	const base = int64(1700000000e9)
	for i := range 3000 {
		id := a
		if i%3 == 0 {
			id = b
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: base + int64(i)*1e7, Data: stringMsg(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, s, rr := summaryRanges(t, ws.Bytes(), 50)
	for _, rg := range rr.Ranges() {
		for _, c := range r.chunks {
			if rg[0] < c.end() && rg[1] > c.dataOffset {
				t.Fatalf("Summary read [%d, %d), inside chunk data [%d, %d)", rg[0], rg[1], c.dataOffset, c.end())
			}
		}
	}
	if len(rr.Ranges()) > 4 {
		t.Errorf("Summary made %d reads, want at most 4 (first and last chunks' index data)", len(rr.Ranges()))
	}
	for _, ts := range s.Topics {
		first, last := base+1e7, base+2999e7 // /a
		if ts.Topic == "/b" {
			first, last = base, base+2997e7
		}
		if ts.StartNs != first || ts.EndNs != last || ts.FrequencyHz != record.Frequency(ts.MessageCount, first, last) {
			t.Errorf("%+v, want [%d, %d]", ts, first, last)
		}
	}
}

// TestSummaryOneConnectionChunks: the span of a chunk holding messages of
// one connection only (a chunk of one large message) is its chunk info's
// times, so Summary reads nothing after the index; its times are those a
// scan finds.
func TestSummaryOneConnectionChunks(t *testing.T) {
	var ws writeSeeker
	w, err := NewWriter(&ws, WithChunkSize(4096))
	if err != nil {
		t.Fatal(err)
	}
	a, b := addString(t, w, "/a"), addString(t, w, "/b")
	const base = int64(1700000000e9)
	big := make([]byte, 4+5000)
	binary.LittleEndian.PutUint32(big, 5000)
	for i := range 40 {
		id := a
		if i >= 20 {
			id = b
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: base + int64(i)*1e7 + int64(i%7), Data: big}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := ws.Bytes()
	r, s, rr := summaryRanges(t, data, 20)
	for _, rg := range rr.Ranges() {
		if rg[1] > r.chunks[0].pos && rg[0] < int64(r.header.IndexPos) {
			t.Errorf("Summary read [%d, %d) among the chunks", rg[0], rg[1])
		}
	}
	scanned, err := NewReader(bytes.NewReader(data), int64(len(data)), "one.bag", record.WithoutIndex())
	if err != nil {
		t.Fatal(err)
	}
	want, err := scanned.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(s.Topics), fmt.Sprint(want.Topics); got != want {
		t.Errorf("summary %s, scan's %s", got, want)
	}
}

// summaryRanges opens data, a bag of at least minChunks chunks, through a
// reader that records the ranges read, and returns the reader, its
// Summary and the ranges read by Summary alone.
func summaryRanges(t *testing.T, data []byte, minChunks int) (*Reader, *record.Summary, *recordtest.RangeReader) {
	t.Helper()
	rr := recordtest.NewRangeReader(data)
	r, err := NewReader(rr, int64(len(data)), "test.bag")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.chunks) < minChunks {
		t.Fatalf("%d chunks, want at least %d", len(r.chunks), minChunks)
	}
	rr.Reset()
	s, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	return r, s, rr
}
