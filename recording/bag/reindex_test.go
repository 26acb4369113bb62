package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// lexAll frames every record of a bag file from the bag header on and
// fails on the first record that does not frame: what a reader that
// ignores the index sees (ros_comm #2282).
func lexAll(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte(Magic)) {
		t.Fatal("no magic")
	}
	lex := NewLexer(bytes.NewReader(data), int64(len(data)), path, int64(len(Magic)))
	n := 0
	for {
		_, err := lex.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		n++
	}
}

// checkClean fails if Check finds anything in the bag at path.
func checkClean(t *testing.T, path string) {
	t.Helper()
	probs, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("Check: %s", p)
	}
}

// TestReindexRosbagActive rebuilds bags left unindexed by Debian rosbag,
// whole and cut at several places: every message the scan salvages is in
// the new bag, in the same order, the new bag is indexed, frames from end
// to end, passes Check, and rosbag reads it.
func TestReindexRosbagActive(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "bz2"} {
		t.Run(comp, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in := filepath.Join(dir, "active.bag")
			written := runPeer(t, "write", in, comp, "active").msgs(t)
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range []int{len(data), len(data) - 1, len(data) * 2 / 3, len(data) / 3, 5000} {
				cutPath := filepath.Join(dir, "cut.bag")
				if err := os.WriteFile(cutPath, data[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				salvaged, _ := readCut(t, data[:cut], false, nil)
				out := filepath.Join(dir, "out.bag")
				rep, err := Reindex(cutPath, out)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Messages != len(salvaged) || rep.Connections == 0 && len(salvaged) > 0 {
					t.Fatalf("cut %d: report %v, the scan salvages %d", cut, rep, len(salvaged))
				}
				// The cut end of a crash recording is its torn end, not a
				// loss (one at a record boundary is a shorter whole bag).
				if cut < len(data) && (len(rep.Skipped) != 0 || rep.Lost() || rep.Torn != nil && rep.Torn.Offset+rep.Torn.Length != int64(cut)) {
					t.Fatalf("cut %d: report %v", cut, rep)
				}
				if cut == len(data) && (len(rep.Skipped) != 0 || rep.Messages != len(written)) {
					t.Fatalf("whole bag: report %v", rep)
				}
				lexAll(t, out)
				checkClean(t, out)
				r, err := Open(out)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Indexed() {
					t.Fatalf("cut %d: output not indexed: %v", cut, r.IndexError())
				}
				if s, _ := r.Summary(); len(salvaged) > 0 && s.Compression != comp {
					t.Errorf("cut %d: output compression %s, want the input's %s", cut, s.Compression, comp)
				}
				r.Close()
				r, _ = Open(out, record.WithoutIndex())
				equalMsgs(t, collect(t, r, record.Filter{}), written[:len(salvaged)])
				r.Close()
				if cut == len(data) || cut == len(data)*2/3 {
					got := runPeer(t, "read", out)
					equalMsgs(t, timeOrder(got.msgs(t)), timeOrder(written[:len(salvaged)]))
					for _, c := range got.Connections {
						if c.Topic == "/pose" && (c.Header["callerid"] != "/late_node" || c.Header["latching"] != "1") {
							t.Errorf("connection header not kept: %v", c.Header)
						}
					}
				}
			}
		})
	}
}

// smallBag writes n std_msgs/String messages on two topics with our
// Writer, in chunks of about chunk bytes.
func smallBag(t *testing.T, n, chunk int, c Compression) []byte {
	t.Helper()
	var buf writeSeeker
	w, err := NewWriter(&buf, WithCompression(string(c)), WithChunkSize(int64(chunk)))
	if err != nil {
		t.Fatal(err)
	}
	a, b := addString(t, w, "/a"), addString(t, w, "/b")
	for i := range n {
		id := a
		if i%4 == 3 {
			id = b
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: 1e9 + int64(i)*1e7, Data: stringMsg(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(buf.Bytes())
}

// TestReindexMidFileDamage: a chunk whose record header is destroyed is
// skipped up to the next chunk; everything else is kept.
func TestReindexMidFileDamage(t *testing.T) {
	for _, comp := range []Compression{CompressionNone, CompressionLZ4} {
		data := smallBag(t, 400, 2000, comp)
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), "x.bag")
		if err != nil {
			t.Fatal(err)
		}
		bad, next := r.chunks[2], r.chunks[3]
		binary.LittleEndian.PutUint32(data[bad.pos:], 0xfffffff0) // header_len
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.bag"), filepath.Join(dir, "out.bag")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Reindex(in, out, WithChunkSize(1000))
		if err != nil {
			t.Fatal(err)
		}
		if want := 400 - int(bad.info.MessageCount()); rep.Messages != want || len(rep.Skipped) != 1 ||
			rep.Skipped[0].Offset != bad.pos || rep.Skipped[0].Offset+rep.Skipped[0].Length != next.pos {
			t.Fatalf("%s: report %v, want %d messages and [%d, %d) skipped", comp, rep, want, bad.pos, next.pos)
		}
		if !strings.Contains(rep.String(), "skipped") {
			t.Errorf("report text %q", rep)
		}
		lexAll(t, out)
		checkClean(t, out)
		probs, err := Check(in)
		if err != nil || len(probs) == 0 || probs[0].Offset != bad.pos || probs[0].Severity != record.SeverityError {
			t.Fatalf("%s: Check of the damaged bag: %v %v", comp, probs, err)
		}
	}
}

// TestCheckJunkAfterChunks builds the bag ros_comm #2282 describes: junk
// between the last chunk's index data and the index section. Indexed
// readers do not notice; scanning readers stop; Check reports it and
// Reindex drops it.
func TestCheckJunkAfterChunks(t *testing.T) {
	data := smallBag(t, 300, 3000, CompressionNone)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "x.bag")
	if err != nil {
		t.Fatal(err)
	}
	pos := int(r.Header().IndexPos)
	junk := bytes.Repeat([]byte{0}, 300)
	copy(junk, data[r.chunks[0].pos:r.chunks[0].pos+200]) // the start of a chunk, cut off
	bad := slices.Concat(data[:pos], junk, data[pos:])
	i := bytes.Index(bad, []byte("index_pos="))
	binary.LittleEndian.PutUint64(bad[i+len("index_pos="):], uint64(pos+len(junk)))
	dir := t.TempDir()
	in, out := filepath.Join(dir, "junk.bag"), filepath.Join(dir, "clean.bag")
	if err := os.WriteFile(in, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	jr, err := Open(in)
	if err != nil || !jr.Indexed() {
		t.Fatalf("indexed read: %v %v", err, jr.IndexError())
	}
	if n, err := count(t, jr); n != 300 || err != nil {
		t.Fatalf("indexed read: %d messages, %v", n, err)
	}
	sr, _ := Open(in, record.WithoutIndex())
	var e *record.Error
	if n, err := count(t, sr); n != 300 || !errors.As(err, &e) || e.Offset < int64(pos) || e.Offset >= int64(pos+len(junk)) {
		t.Fatalf("scan: %d messages, %v; want all 300 and then an error in the junk", n, err)
	}
	probs, err := Check(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Offset != int64(pos) || probs[0].Severity != record.SeverityError || !strings.Contains(probs[0].Message, "#2282") {
		t.Fatalf("Check = %v, want one error at %d", probs, pos)
	}
	rep, err := Reindex(in, out)
	if err != nil || rep.Messages != 300 {
		t.Fatalf("Reindex: %v %v", rep, err)
	}
	lexAll(t, out)
	checkClean(t, out)
}

// TestCheck: each kind of damage gives its finding; intact fixtures and
// bags give none.
func TestCheck(t *testing.T) {
	for _, name := range []string{"example.bag", "example-lz4.bag", "example-unsorted-chunks.bag", "no-messages.bag"} {
		checkClean(t, rosbagJS(t, name))
	}
	good := smallBag(t, 200, 1500, CompressionLZ4)
	r, err := NewReader(bytes.NewReader(good), int64(len(good)), "x.bag")
	if err != nil {
		t.Fatal(err)
	}
	firstInfo := int64(-1)
	lex := NewLexer(bytes.NewReader(good), int64(len(good)), "x.bag", int64(r.Header().IndexPos))
	for {
		rec, err := lex.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Op == OpChunkInfo {
			firstInfo = rec.DataOffset
			break
		}
	}
	for _, c := range []struct {
		name  string
		edit  func([]byte) []byte
		sev   record.Severity
		words string
	}{
		{"chunk info count", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[firstInfo+4:], 999)
			return b
		}, record.SeverityWarning, "counts 999 messages of connection"},
		{"unindexed", func(b []byte) []byte {
			i := bytes.Index(b, []byte("index_pos="))
			binary.LittleEndian.PutUint64(b[i+len("index_pos="):], 0)
			return b[:r.Header().IndexPos]
		}, record.SeverityWarning, "not indexed"},
		{"cut", func(b []byte) []byte {
			return b[:r.chunks[1].pos+50]
		}, record.SeverityError, "file is cut"},
		{"bad chunk", func(b []byte) []byte {
			b[r.chunks[1].dataOffset+8] ^= 0xff
			b[r.chunks[1].dataOffset+9] ^= 0xff
			return b
		}, record.SeverityError, "chunk does not decompress"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := c.edit(slices.Clone(good))
			path := filepath.Join(t.TempDir(), "x.bag")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			probs, err := Check(path)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range probs {
				if p.Severity == c.sev && strings.Contains(p.Message, c.words) {
					found = true
				}
			}
			if !found {
				t.Fatalf("Check = %v, want a %s with %q", probs, c.sev, c.words)
			}
		})
	}
}
