package bag

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// The interop tests run Debian ROS1 rosbag (python3-rosbag, always as
// /usr/bin/python3) through testdata/rosbag_peer.py.

type peerMessage struct {
	Topic  string `json:"topic"`
	TimeNs int64  `json:"time_ns"`
	Raw    string `json:"raw"`
	Text   string `json:"text"`
}

type peerOutput struct {
	Connections []struct {
		ID     uint32            `json:"id"`
		Topic  string            `json:"topic"`
		Header map[string]string `json:"header"`
	} `json:"connections"`
	Messages    []peerMessage `json:"messages"`
	Count       int           `json:"count"`
	Compression string        `json:"compression"`
	// Read is what rosbag reads back from the bag it wrote.
	Read *peerOutput `json:"read"`
}

func runPeer(t *testing.T, args ...string) *peerOutput {
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
	var p peerOutput
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// timeOrder stable-sorts messages by time. Debian rosbag's read_messages
// merges per-connection indexes that it concatenates chunk by chunk; when a
// connection's stamps go back in time across chunks that merge is not in
// time order, while ours is. Equal times keep rosbag's order (by
// connection), which ours follows too.
func timeOrder(m []msg) []msg {
	m = slices.Clone(m)
	slices.SortStableFunc(m, func(a, b msg) int { return cmp.Compare(a.time, b.time) })
	return m
}

func (p *peerOutput) msgs(t *testing.T) []msg {
	t.Helper()
	out := make([]msg, len(p.Messages))
	for i, m := range p.Messages {
		data, err := hex.DecodeString(m.Raw)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = msg{m.Topic, m.TimeNs, data}
	}
	return out
}

func equalMsgs(t *testing.T, got, want []msg) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].topic != want[i].topic || got[i].time != want[i].time || !bytes.Equal(got[i].data, want[i].data) {
			t.Fatalf("message %d = %s %d %x, want %s %d %x", i, got[i].topic, got[i].time, got[i].data,
				want[i].topic, want[i].time, want[i].data)
		}
	}
}

// TestReadRosbagBags reads bags written by Debian rosbag (three
// compressions, chunks of 4 KiB, a late publisher whose stamps reach back
// into earlier chunks, equal times across connections) and compares every
// message with rosbag's own read_messages, in order.
func TestReadRosbagBags(t *testing.T) {
	for _, comp := range []string{"none", "bz2", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "peer.bag")
			want := runPeer(t, "write", path, comp).Read
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !r.Indexed() {
				t.Fatalf("not indexed: %v", r.IndexError())
			}
			if slices.IsSortedFunc(want.msgs(t), func(a, b msg) int { return cmp.Compare(a.time, b.time) }) {
				t.Fatal("rosbag's order is time order: the test lost its late publisher")
			}
			equalMsgs(t, collect(t, r, record.Filter{}), timeOrder(want.msgs(t)))
			chs, err := r.Channels()
			if err != nil {
				t.Fatal(err)
			}
			checkPeerChannels(t, chs, want)
			s, err := r.Summary()
			if err != nil {
				t.Fatal(err)
			}
			if s.MessageCount != uint64(want.Count) || s.Compression != want.Compression || s.CompressionNote != "" {
				t.Errorf("summary count %d compression %s (%s), want %d %s", s.MessageCount, s.Compression, s.CompressionNote, want.Count, want.Compression)
			}
			// Info of a remote bag finds the index data records after a
			// chunk without reading its header, from their length.
			for _, c := range r.chunks {
				if c.indexEnd-indexLen(c.info) != c.end() {
					t.Fatalf("chunk at %d: index data records of %d bytes, not %d", c.pos, c.indexEnd-c.end(), indexLen(c.info))
				}
			}
			checkLazy(t, path, s, collect(t, r, record.Filter{}))
			// A topic and time filter selects the same messages as filtering rosbag's list.
			f := record.Filter{Topic: func(s string) bool { return s != "/chatter" }, Start: 1700000000_500000000, End: 1700000002_000000000}
			var sel []msg
			for _, m := range timeOrder(want.msgs(t)) {
				if f.Match(m.topic, m.time) {
					sel = append(sel, m)
				}
			}
			equalMsgs(t, collect(t, r, f), sel)
		})
	}
}

func checkPeerChannels(t *testing.T, chs []*record.Channel, want *peerOutput) {
	t.Helper()
	if len(chs) != len(want.Connections) {
		t.Fatalf("%d channels, want %d", len(chs), len(want.Connections))
	}
	for _, c := range want.Connections {
		i := slices.IndexFunc(chs, func(ch *record.Channel) bool { return ch.ID == c.ID })
		if i < 0 {
			t.Fatalf("no channel %d", c.ID)
		}
		ch := chs[i]
		h := c.Header
		if ch.Topic != c.Topic || ch.Schema.Name != h["type"] || ch.Schema.MD5 != h["md5sum"] || string(ch.Schema.Data) != h["message_definition"] {
			t.Errorf("channel %d = %s %s %s, want %v", c.ID, ch.Topic, ch.Schema.Name, ch.Schema.MD5, h)
		}
		for k, v := range h {
			if k != "topic" && k != "type" && k != "md5sum" && k != "message_definition" && ch.Metadata[k] != v {
				t.Errorf("channel %d metadata %s = %q, want %q", c.ID, k, ch.Metadata[k], v)
			}
		}
	}
}

// TestReadActiveBag reads a bag left as rosbag record leaves it when
// killed (chunks written, no index, index_pos 0): messages come in file
// order, which is the order rosbag wrote them. Cut at many places, the
// reader yields a prefix of them and then a truncation error, or io.EOF
// with WithSkipBad.
func TestReadActiveBag(t *testing.T) {
	for _, comp := range []string{"none", "bz2", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "active.bag")
			written := runPeer(t, "write", path, comp, "active").msgs(t)
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Indexed() || !errors.Is(r.IndexError(), record.ErrNotFound) {
				t.Fatalf("Indexed %v, index error %v", r.Indexed(), r.IndexError())
			}
			equalMsgs(t, collect(t, r, record.Filter{}), written)
			s, err := r.Summary()
			if err != nil || s.MessageCount != uint64(len(written)) || s.Compression != comp || len(s.Topics) != 3 {
				t.Fatalf("summary %+v, %v", s, err)
			}

			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			prev := -1
			for cut := len(data) - 1; cut > 4200; cut -= 211 {
				// A crash recording's torn end is not an error: it is
				// reported once (nothing for a cut between two records,
				// which leaves a shorter valid bag).
				var torn []record.Skipped
				got, err := readCut(t, data[:cut], false, nil, record.WithWarning(func(s record.Skipped) { torn = append(torn, s) }))
				if err != nil || len(torn) > 1 || len(torn) == 1 && (torn[0].Offset+torn[0].Length != int64(cut) || !errors.Is(torn[0].Err, record.ErrTruncated)) {
					t.Fatalf("cut at %d: %v, torn %+v", cut, err, torn)
				}
				wantSkips := len(torn)
				equalMsgs(t, got, written[:len(got)])
				if prev >= 0 && len(got) > prev {
					t.Fatalf("cut at %d gives %d messages, more than a longer cut (%d)", cut, len(got), prev)
				}
				prev = len(got)
				var skipped []record.Skipped
				got2, err := readCut(t, data[:cut], true, &skipped)
				if err != nil || len(got2) != len(got) || len(skipped) != wantSkips || wantSkips == 1 && skipped[0].Offset+skipped[0].Length != int64(cut) {
					t.Fatalf("cut at %d with skip-bad: %d messages (strict %d), %v, skipped %+v", cut, len(got2), len(got), err, skipped)
				}
			}
			if comp == "none" {
				// Stored chunks lose at most the message being written.
				got, _ := readCut(t, data[:len(data)-1], false, nil)
				if len(got) < len(written)-1 {
					t.Errorf("cutting the last byte loses %d messages", len(written)-len(got))
				}
			}
		})
	}
}

// prefix counts the messages of the complete chunks of a bag held in data:
// those before its last chunk record.
func prefix(t *testing.T, data []byte) int {
	t.Helper()
	lex := NewLexer(bytes.NewReader(data), int64(len(data)), "x.bag", int64(len(Magic)))
	last := int64(-1)
	for {
		rec, err := lex.Next()
		if rec != nil && rec.Op == OpChunk {
			last = rec.Offset
		}
		if err != nil {
			break
		}
	}
	got, _ := readCut(t, data[:last], false, nil)
	return len(got)
}

// readCut reads all messages of a bag held in data.
func readCut(t *testing.T, data []byte, skipBad bool, skipped *[]record.Skipped, opts ...Option) ([]msg, error) {
	if skipBad {
		opts = append(opts, record.WithSkipBad(func(s record.Skipped) { *skipped = append(*skipped, s) }))
	}
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "cut.bag", opts...)
	if err != nil {
		return nil, err
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return nil, err
	}
	var out []msg
	err = recordtest.Read(t, it, func(m *record.Message) {
		out = append(out, msg{m.Channel.Topic, m.LogTime, slices.Clone(m.Data)})
	})
	return out, err
}

// TestWriterRosbagReads writes with our Writer the messages Debian rosbag
// wrote (its serialized bytes, its connection headers), then has rosbag
// read our bag: it must see the same messages in the same order, decode
// them to the same values, and `rosbag info` must accept the file.
func TestWriterRosbagReads(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bag")
	want := runPeer(t, "write", src, "none").Read
	for _, comp := range []Compression{CompressionNone, CompressionLZ4, CompressionBZ2} {
		t.Run(string(comp), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, "ours-"+string(comp)+".bag")
			w, err := Create(path, WithCompression(string(comp)), WithChunkSize(3000))
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]uint32{}
			// Register connections in rosbag's order so ties come out alike.
			for _, c := range want.Connections {
				md := map[string]string{}
				for k, v := range c.Header {
					md[k] = v
				}
				id, err := w.AddChannel(&record.Channel{Topic: c.Topic, MessageEncoding: "ros1", Metadata: md,
					Schema: &record.Schema{Name: c.Header["type"], MD5: c.Header["md5sum"], Data: []byte(c.Header["message_definition"])}})
				if err != nil {
					t.Fatal(err)
				}
				ids[c.Topic] = id
			}
			// Write in rosbag's recording order (the source bag's file order).
			sr, err := Open(src, record.WithoutIndex())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range collect(t, sr, record.Filter{}) {
				if err := w.WriteMessage(ids[m.topic], &record.Message{LogTime: m.time, Data: m.data}); err != nil {
					t.Fatal(err)
				}
			}
			sr.Close()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got := runPeer(t, "read", path)
			if got.Count != want.Count || got.Compression != string(comp) {
				t.Errorf("rosbag sees %d messages, compression %s", got.Count, got.Compression)
			}
			if len(got.Messages) != len(want.Messages) {
				t.Fatalf("rosbag reads %d messages, want %d", len(got.Messages), len(want.Messages))
			}
			byTime := func(a, b peerMessage) int { return cmp.Compare(a.TimeNs, b.TimeNs) }
			gotSorted, wantSorted := slices.Clone(got.Messages), slices.Clone(want.Messages)
			slices.SortStableFunc(gotSorted, byTime)
			slices.SortStableFunc(wantSorted, byTime)
			for i := range gotSorted {
				if gotSorted[i] != wantSorted[i] {
					t.Fatalf("rosbag message %d = %+v, want %+v", i, gotSorted[i], wantSorted[i])
				}
			}
			checkPeerConnections(t, got, want)
			info, err := exec.Command(testenv.Python, "/usr/bin/rosbag", "info", "--yaml", path).CombinedOutput()
			if err != nil || !strings.Contains(string(info), "indexed: True") || !strings.Contains(string(info), "messages: 460") {
				t.Fatalf("rosbag info: %v\n%s", err, info)
			}
			// And our reader reads it back equal to rosbag's reading.
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			equalMsgs(t, collect(t, r, record.Filter{}), timeOrder(want.msgs(t)))
		})
	}
}

func checkPeerConnections(t *testing.T, got, want *peerOutput) {
	t.Helper()
	if len(got.Connections) != len(want.Connections) {
		t.Fatalf("%d connections, want %d", len(got.Connections), len(want.Connections))
	}
	for i, c := range got.Connections {
		w := want.Connections[i]
		for _, k := range []string{"topic", "type", "md5sum", "message_definition", "callerid", "latching"} {
			wv, ok := w.Header[k]
			if gv, gok := c.Header[k]; gv != wv || gok != ok {
				t.Errorf("connection %d %s = %q (present %v), want %q (present %v)", i, k, gv, gok, wv, ok)
			}
		}
	}
}

// TestReadKilledRosbag reads bags as rosbag leaves them when killed while
// a chunk is open: the chunk header keeps its zero placeholders and the
// records (stored) or the compressed stream (lz4, bz2) run to the end of
// the file. Debian rosbag's reindex gives up on such a chunk ("unterminated
// chunk"); we read the stored records and what decompresses of the
// compressed stream.
func TestReadKilledRosbag(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "bz2"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in := filepath.Join(dir, "killed.bag")
			written := runPeer(t, "write", in, comp, "killed").msgs(t)
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var torn []record.Skipped
			got, err := readCut(t, data, false, nil, record.WithWarning(func(s record.Skipped) { torn = append(torn, s) }))
			equalMsgs(t, got, written[:len(got)])
			if comp == "none" {
				if err != nil || len(got) != len(written) {
					t.Fatalf("%d of %d messages, %v", len(got), len(written), err)
				}
			} else if err != nil || len(torn) != 1 || !errors.Is(torn[0].Err, record.ErrTruncated) || !strings.Contains(torn[0].Err.Error(), "unterminated") ||
				torn[0].Offset+torn[0].Length != int64(len(data)) || torn[0].Kept != uint64(len(got)-prefix(t, data)) || len(got) < len(written)/2 {
				// The unterminated chunk is the torn range; what it held
				// that decompressed counts as kept.
				t.Fatalf("%d of %d messages, %v, torn %+v", len(got), len(written), err, torn)
			}
			probs, err := Check(in)
			if err != nil || !slices.ContainsFunc(probs, func(p record.Problem) bool {
				return p.Severity == record.SeverityError && strings.Contains(p.Message, "unterminated")
			}) {
				t.Fatalf("Check: %v %v", probs, err)
			}
			out := filepath.Join(dir, "out.bag")
			rep, err := Reindex(in, out)
			if err != nil || rep.Messages != len(got) {
				t.Fatalf("Reindex: %v %v, want %d messages", rep, err, len(got))
			}
			checkClean(t, out)
			peer := runPeer(t, "read", out)
			equalMsgs(t, timeOrder(peer.msgs(t)), timeOrder(got))
		})
	}
}

// TestCopyKeepsConnectionHeaders copies a bag whose connection headers are
// not the ones rosbag makes by itself (two publishers of a topic, a header
// without callerid or latching, one whose topic is another publisher's,
// a field rosbag does not know) through our Reader and Writer, as baglab
// filter, convert and merge do: Debian rosbag must read the same header
// in each connection, as its own `rosbag filter` keeps them, with no
// callerid or latching added and the header's topic kept.
func TestCopyKeepsConnectionHeaders(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bag")
	want := runPeer(t, "headers", src)
	if len(want.Connections) != 4 {
		t.Fatalf("rosbag wrote %d connections, want 4", len(want.Connections))
	}
	r, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := filepath.Join(dir, "copy.bag")
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint32]uint32{}
	for _, ch := range chs {
		if ids[ch.ID], err = w.AddChannel(ch); err != nil {
			t.Fatal(err)
		}
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	recordtest.Each(t, it, func(m *record.Message) {
		if err := w.WriteMessage(ids[m.Channel.ID], m); err != nil {
			t.Fatal(err)
		}
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := runPeer(t, "read", out)
	if len(got.Connections) != len(want.Connections) {
		t.Fatalf("rosbag reads %d connections, want %d", len(got.Connections), len(want.Connections))
	}
	for i, c := range got.Connections {
		wc := want.Connections[i]
		if c.Topic != wc.Topic || !maps.Equal(c.Header, wc.Header) {
			t.Errorf("connection %d: rosbag reads %s %v, want %s %v", i, c.Topic, c.Header, wc.Topic, wc.Header)
		}
	}
	if !slices.Equal(got.Messages, want.Messages) {
		t.Errorf("rosbag reads messages %v, want %v", got.Messages, want.Messages)
	}
}

// TestWriterLatchingOfMCAPProfile: a channel whose latching is spelled as
// MCAP's ros1 profile spells it ("true", "false") gets rosbag's "1"/"0" in
// its connection header, which Debian rosbag reads back (rosbag play and
// roscpp latch only on "1").
func TestWriterLatchingOfMCAPProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Debian rosbag (skipped with -short)")
	}
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	path := filepath.Join(t.TempDir(), "latched.bag")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, topic := range []string{"/latched", "/plain"} {
		id, err := w.AddChannel(&record.Channel{Topic: topic, MessageEncoding: "ros1", Schema: stringSchema,
			Metadata: map[string]string{"callerid": "/mcap", "latching": []string{"true", "false"}[i]}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: int64(i+1) * 1e9, Data: stringMsg(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testenv.Python, "-c", `
import json, sys, rosbag
b = rosbag.Bag(sys.argv[1])
print(json.dumps({c.topic: c.header.get("latching", b"").decode() for c in b._connections.values()}, sort_keys=True))
`, path).Output()
	if err != nil {
		t.Fatalf("rosbag: %v", err)
	}
	if got, want := strings.TrimSpace(string(out)), `{"/latched": "1", "/plain": "0"}`; got != want {
		t.Errorf("rosbag read latching %s, want %s", got, want)
	}
}

// lazyFile is a bag read as a remote object is: chunk headers are read
// when needed, and it counts the reads at each offset and keeps the
// ranges a reading planned.
type lazyFile struct {
	*os.File
	mu    sync.Mutex
	reads map[int64]int
	plans [][][2]int64
	// prefetched holds the ranges Prefetch was asked for, and read each
	// one's start when it was first read (true if prefetched by then).
	prefetched map[int64]int64
	read       map[int64]bool
}

func (f *lazyFile) Prefetch(offs []int64, n int64) {
	f.mu.Lock()
	for _, off := range offs {
		f.prefetched[off] = n
	}
	f.mu.Unlock()
}

func (f *lazyFile) Plan(ranges [][2]int64) {
	f.mu.Lock()
	f.plans = append(f.plans, ranges)
	f.mu.Unlock()
}

func (f *lazyFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	f.reads[off]++
	if _, ok := f.read[off]; !ok {
		_, f.read[off] = f.prefetched[off]
	}
	f.mu.Unlock()
	return f.File.ReadAt(p, off)
}

// checkLazy reads the bag at path as a remote one: its summary reads the
// first chunk's header only and says so, and is otherwise local's; its
// messages are local's.
func checkLazy(t *testing.T, path string, local *record.Summary, msgs []msg) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	lf := &lazyFile{File: f, reads: map[int64]int{}, prefetched: map[int64]int64{}, read: map[int64]bool{}}
	r, err := NewReader(lf, st.Size(), path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Summary()
	if err != nil {
		t.Fatal(err)
	}
	headers := 0
	for _, c := range r.chunks {
		headers += lf.reads[c.pos]
	}
	note := fmt.Sprintf("from 1 of %d chunk headers; the others were not read", len(r.chunks))
	if len(r.chunks) < 2 || headers != 1 || s.CompressionNote != note {
		t.Errorf("%d chunk headers read of %d; note %q", headers, len(r.chunks), s.CompressionNote)
	}
	// The index data records it read (for the topics' first and last
	// times) were all prefetched first, in parallel.
	for _, c := range r.chunks {
		start := r.indexStart(c)
		if prefetched, ok := lf.read[start]; ok && (!prefetched || lf.prefetched[start] != c.indexEnd-start) {
			t.Errorf("index data of chunk at %d read without its prefetch (%v)", c.pos, lf.prefetched)
		}
	}
	s.CompressionNote = ""
	if got, want := fmt.Sprint(s.Topics, s.Compression, s.StartNs, s.EndNs), fmt.Sprint(local.Topics, local.Compression, local.StartNs, local.EndNs); got != want {
		t.Errorf("lazy summary %s, local %s", got, want)
	}
	equalMsgs(t, collect(t, r, record.Filter{}), msgs)
	// The reading planned each chunk with the index data records after
	// it, in the order the merge loads them (by start time), and read
	// each chunk's header once, as it loaded the chunk (the first chunk's
	// also for the summary).
	if len(lf.plans) != 1 || len(lf.plans[0]) != len(r.chunks) {
		t.Fatalf("plans %v for %d chunks", lf.plans, len(r.chunks))
	}
	order := slices.Clone(r.chunks)
	slices.SortStableFunc(order, func(a, b *chunkRef) int { return cmp.Compare(a.info.StartTime, b.info.StartTime) })
	for i, c := range order {
		if got := lf.plans[0][i]; got != [2]int64{c.pos, c.indexEnd} {
			t.Errorf("chunk %d of the plan is %v, want [%d %d]", i, got, c.pos, c.indexEnd)
		}
	}
	for i, c := range r.chunks {
		if n := lf.reads[c.pos]; n != 1 && !(i == 0 && n == 2) {
			t.Errorf("header of chunk %d read %d times", i, n)
		}
	}
}
