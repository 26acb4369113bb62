package mcapfile_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/mcapfile"
)

// msg is a message as a recovered file keeps it (channel ids are
// renumbered, topics are not), with the offset of its record in the file
// it was read from (-1 inside a compressed chunk).
type msg struct {
	Topic            string
	Sequence         uint64
	LogTime, PubTime int64
	Data             string
	offset           int64
}

func (m msg) key() msg { m.offset = 0; return m }

func keys(ms []msg) []msg {
	out := make([]msg, len(ms))
	for i, m := range ms {
		out[i] = m.key()
	}
	return out
}

// fileOrder reads the messages of path in file order. With cut set, the
// file is damaged: it returns the messages read before the first error.
func fileOrder(t *testing.T, path string, cut bool) []msg {
	t.Helper()
	r, err := mcapfile.Open(path, record.WithoutIndex())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []msg
	err = recordtest.Read(t, it, func(m *record.Message) {
		out = append(out, msg{m.Channel.Topic, m.Sequence, m.LogTime, m.PublishTime, string(m.Data), m.Offset})
	})
	if cut == (err == nil) {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// study writes a small generated study (every format, the damaged variants
// in broken/) into a temporary directory.
func study(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := studygen.WriteAll(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir
}

// chunkOf returns the offset of the chunk that holds the byte at off.
func chunkOf(t *testing.T, data []byte, off int64) int64 {
	t.Helper()
	var at int64 = -1
	for _, c := range mcapfile.ChunkOffsets(t, data) {
		if c <= off {
			at = c
		}
	}
	if at < 0 {
		t.Fatalf("no chunk holds offset %d", off)
	}
	return at
}

// TestStudyRecover runs Recover and Check over the damaged variants of a
// generated study and compares what they keep with the intact files.
func TestStudyRecover(t *testing.T) {
	dir := study(t)
	t.Run("intact", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.mcap"))
		if len(files) < 3 {
			t.Fatalf("%d MCAP files", len(files))
		}
		for _, f := range files {
			if probs, err := mcapfile.Check(f); err != nil || len(probs) != 0 {
				t.Errorf("Check %s: %v %v", filepath.Base(f), probs, err)
			}
		}
	})
	t.Run("crc", func(t *testing.T) { testStudyCRC(t, dir) })
	t.Run("truncated", func(t *testing.T) { testStudyTruncated(t, dir) })
}

// testStudyCRC: one byte of a message string is changed inside an
// uncompressed chunk.
func testStudyCRC(t *testing.T, dir string) {
	intactPath := filepath.Join(dir, "study-none.mcap")
	badPath := filepath.Join(dir, "broken", "study-crc.mcap")
	intactData, _ := os.ReadFile(intactPath)
	badData, _ := os.ReadFile(badPath)
	if len(intactData) != len(badData) {
		t.Fatal("study-crc.mcap is not study-none.mcap with a byte changed")
	}
	flip := int64(-1)
	for i := range intactData {
		if intactData[i] != badData[i] {
			flip = int64(i)
			break
		}
	}
	victim := chunkOf(t, intactData, flip)
	intact := fileOrder(t, intactPath, false)
	next := int64(len(intactData))
	for _, c := range mcapfile.ChunkOffsets(t, intactData) {
		if c > victim {
			next = min(next, c)
		}
	}
	var inVictim, others []msg
	for _, m := range intact {
		if m.offset >= victim && m.offset < next {
			inVictim = append(inVictim, m.key())
		} else {
			others = append(others, m.key())
		}
	}
	if len(inVictim) == 0 {
		t.Fatal("the damaged chunk holds no messages")
	}
	channels := topics(t, intactPath)

	// Check: the chunk CRC and the data section CRC, nothing else.
	probs, err := mcapfile.Check(badPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 2 || probs[0].Offset != victim || probs[0].Severity != record.SeverityError ||
		!strings.HasPrefix(probs[0].Message, "chunk.uncompressed_crc: CRC mismatch: computed ") ||
		probs[1].Severity != record.SeverityError || !strings.HasPrefix(probs[1].Message, "data_end.data_section_crc: CRC mismatch: computed ") {
		t.Errorf("Check: %v", probs)
	}
	for _, p := range probs {
		if strings.Contains(p.Message, badPath) || strings.Contains(p.Message, "offset") {
			t.Errorf("message %q names the file or offset", p.Message)
		}
	}

	// Default: every message is kept, the chunk reported as unverified.
	out := filepath.Join(t.TempDir(), "kept.mcap")
	rep, err := mcapfile.Recover(badPath, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != uint64(len(intact)) || rep.Suspect != uint64(len(inVictim)) || rep.Orphans != 0 || rep.Dropped != 0 || !rep.Complete ||
		rep.Channels != len(channels) || len(rep.Skipped) != 1 {
		t.Fatalf("report %+v", *rep)
	}
	s := rep.Skipped[0]
	if s.Offset != victim || !s.Unverified || s.Kept != uint64(len(inVictim)) || s.Dropped != 0 ||
		!strings.HasPrefix(s.Reason(), "chunk.uncompressed_crc: CRC mismatch: computed ") || !strings.HasSuffix(s.Reason(), "messages kept, their content may be damaged") {
		t.Errorf("skipped %+v", s)
	}
	got := fileOrder(t, out, false)
	if len(got) != len(intact) {
		t.Fatalf("recovered %d messages, want %d", len(got), len(intact))
	}
	diff := 0
	for i, m := range got {
		if m.key() != intact[i].key() {
			diff++
			if m.Topic != intact[i].Topic || len(m.Data) != len(intact[i].Data) || bytesDiffer(m.Data, intact[i].Data) != 1 {
				t.Errorf("message %d differs by more than the damaged byte", i)
			}
		}
	}
	if diff != 1 {
		t.Errorf("%d recovered messages differ from the intact ones, want the damaged one", diff)
	}
	mcapfile.CheckRecovered(t, out, len(intact))

	// On request the chunk is dropped; the channels it defined come from the
	// summary section.
	out = filepath.Join(t.TempDir(), "dropped.mcap")
	rep, err = mcapfile.Recover(badPath, out, mcapfile.WithDropUnverified())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != uint64(len(others)) || rep.Dropped != uint64(len(inVictim)) || rep.Suspect != 0 || rep.Orphans != 0 || !rep.Complete ||
		rep.Channels != len(channels) || rep.SummaryChannels == 0 || len(rep.Skipped) != 1 || rep.Skipped[0].Unverified ||
		rep.Skipped[0].Dropped != uint64(len(inVictim)) || rep.Skipped[0].Kept != 0 {
		t.Fatalf("report %+v", *rep)
	}
	if got := keys(fileOrder(t, out, false)); !slices.Equal(got, others) {
		t.Errorf("recovered %d messages, want the %d outside the damaged chunk", len(got), len(others))
	}
	if got := topics(t, out); !slices.Equal(got, channels) {
		t.Errorf("recovered topics %v, want %v", got, channels)
	}
	mcapfile.CheckRecovered(t, out, len(others))
}

func bytesDiffer(a, b string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// topics lists the topic and type of every channel of path, sorted.
func topics(t *testing.T, path string) []string {
	t.Helper()
	r, err := mcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	chs, err := r.Channels()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range chs {
		out = append(out, c.Topic+" "+c.Schema.Name+" "+c.Schema.MD5)
	}
	slices.Sort(out)
	return out
}

// testStudyTruncated: files cut inside a chunk keep every message before
// the cut: those of whole chunks, and the complete records of the part of
// the cut chunk that decompresses.
func testStudyTruncated(t *testing.T, dir string) {
	cases := []struct {
		name, intact, cut string
		frac              float64 // where to cut the first chunk, when cut is ""
		salvage           bool    // whether records of the cut chunk can be had
	}{
		// The generator's cut: 60% through the middle lz4 chunk.
		{name: "generated", intact: "study-lz4.mcap", cut: filepath.Join("broken", "study-truncated.mcap"), salvage: true},
		{name: "none", intact: "study-none.mcap", frac: 0.6, salvage: true},
		{name: "lz4", intact: "study-lz4.mcap", frac: 0.6, salvage: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			intactPath := filepath.Join(dir, tc.intact)
			intact := fileOrder(t, intactPath, false)
			data, _ := os.ReadFile(intactPath)
			badPath := filepath.Join(dir, tc.cut)
			if tc.cut == "" {
				first := mcapfile.ChunkOffsets(t, data)[0]
				end := first + 9 + int64(binary.LittleEndian.Uint64(data[first+1:]))
				cut := first + int64(float64(end-first)*tc.frac)
				badPath = filepath.Join(t.TempDir(), "cut.mcap")
				if err := os.WriteFile(badPath, data[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			bad, _ := os.ReadFile(badPath)
			if !bytes.HasPrefix(data, bad) {
				t.Fatal("the cut file is not a prefix of the intact one")
			}
			size := int64(len(bad))
			// Our reader reads on up to the damage.
			before := fileOrder(t, badPath, true)
			// Messages whose record lies wholly before the cut (known for
			// an uncompressed file).
			whole := 0
			for _, m := range intact {
				if m.offset >= 0 && m.offset+9+22+int64(len(m.Data)) <= size {
					whole++
				}
			}
			out := filepath.Join(t.TempDir(), "out.mcap")
			rep, err := mcapfile.Recover(badPath, out)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Complete || rep.Orphans != 0 || len(rep.Skipped) != 1 || rep.Skipped[0].Offset+rep.Skipped[0].Length != size ||
				rep.Messages < uint64(len(before)) || (rep.Salvaged > 0) != tc.salvage || rep.Skipped[0].Kept != rep.Salvaged {
				t.Fatalf("report %+v", *rep)
			}
			if tc.intact == "study-none.mcap" && rep.Messages != uint64(whole) {
				t.Errorf("kept %d messages, %d records lie wholly before the cut", rep.Messages, whole)
			}
			got := keys(fileOrder(t, out, false))
			if len(got) != int(rep.Messages) || !slices.Equal(got, keys(intact[:len(got)])) {
				t.Errorf("the %d recovered messages are not the first of the intact file", len(got))
			}
			mcapfile.CheckRecovered(t, out, len(got))
		})
	}
}
