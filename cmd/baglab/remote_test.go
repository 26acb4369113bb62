package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// httpStudy serves the study folder over HTTP with Go's own Range
// handling (http.FileServer), counting requests.
func httpStudy(t *testing.T) (base string, requests *atomic.Int64) {
	t.Helper()
	return httpDir(t, studyDir)
}

// httpDir serves dir over HTTP as httpStudy serves the study.
func httpDir(t *testing.T, dir string) (base string, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	fs := http.FileServer(http.Dir(dir))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/", requests
}

// TestURLInputsReadAsLocalFiles runs the reading verbs on http:// URLs and
// on the same files' paths: the output is the same but for the name.
func TestURLInputsReadAsLocalFiles(t *testing.T) {
	base, _ := httpStudy(t)
	for _, c := range []struct {
		name string
		args []string // FILE stands for a recording, as path or URL
	}{
		{"info bag", []string{"info", "--json", "FILE:study.bag"}},
		{"info mcap", []string{"info", "--json", "FILE:study-lz4.mcap"}},
		{"info db3", []string{"info", "--json", "FILE:queries.db3"}},
		{"cat topics", []string{"cat", "--topics", "/rail_pick_and_place/grasp_and_store/result", "FILE:study.bag"}},
		{"cat window", []string{"cat", "--start", "+20s", "--end", "+40s", "FILE:study-lz4.mcap"}},
		{"cat mixed", []string{"cat", "--topics", "/lama/**", "FILE:study.mcap", "FILE:queries.mcap"}},
		{"doctor", []string{"doctor", "FILE:study-bz2.bag"}},
		{"analyze", []string{"analyze", "grasps", "--json", "FILE:study.bag"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := func(url bool) []string {
				var out []string
				for _, a := range c.args {
					if name, ok := strings.CutPrefix(a, "FILE:"); ok {
						if url {
							a = base + name
						} else {
							a = studyFile(name)
						}
					}
					out = append(out, a)
				}
				return out
			}
			wantOut, wantErr, wantCode := run(t, args(false)...)
			gotOut, gotErr, gotCode := run(t, args(true)...)
			norm := func(s string) string {
				s = strings.ReplaceAll(s, base, "DIR/")
				s = strings.ReplaceAll(s, studyDir+string(filepath.Separator), "DIR/")
				var keep []string
				for _, l := range strings.Split(dropCompressionNote(s), "\n") {
					if !strings.Contains(l, "baglab: note:") {
						keep = append(keep, l)
					}
				}
				return strings.Join(keep, "\n")
			}
			if gotCode != wantCode || norm(gotOut) != norm(wantOut) {
				t.Fatalf("URL: exit %d, stderr %s\nlocal: exit %d, stderr %s\nstdout: %s",
					gotCode, gotErr, wantCode, wantErr, testenv.FirstDiff(norm(gotOut), norm(wantOut)))
			}
			if wantCode != 0 && wantCode != 1 {
				t.Fatalf("exit %d: %s", wantCode, wantErr)
			}
		})
	}
}

func TestURLInfoFetchesHeadAndTailOnly(t *testing.T) {
	base, requests := httpStudy(t)
	_, stderr, code := run(t, "info", "--stats", base+"study-lz4.mcap")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := requests.Load(); n > 3 {
		t.Errorf("%d requests for info of an MCAP file", n)
	}
	if !strings.Contains(stderr, "baglab: stats: "+base+"study-lz4.mcap: ") {
		t.Errorf("no stats line: %s", stderr)
	}
}

// bigRecordings writes a 12 MiB bag and its MCAP (zstd chunks, about
// 1.3 MB) into a new folder, for tests whose reads must fall outside the
// head and the tail that opening an object fetches.
func bigRecordings(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	for _, name := range []string{"big.bag", "big.mcap"} {
		if _, err := studygen.WriteBig(filepath.Join(src, name), msgdef.Default(), studygen.BigOptions{Size: 12 << 20, CloudBytes: 256 << 10, Seed: 2}); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// statsOf returns the requests and bytes that --stats printed for url.
func statsOf(t *testing.T, stderr, url string) (requests, fetched, size int64) {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(l, "baglab: stats: "+url+": "); ok {
			var retries int64
			if _, err := fmt.Sscanf(rest, "%d requests (%d retries), %d of %d bytes", &requests, &retries, &fetched, &size); err == nil {
				return requests, fetched, size
			}
		}
	}
	t.Fatalf("no stats line for %s: %s", url, stderr)
	return
}

// compressionNote is the note of info --json of a remote bag of several
// chunks: its compression is that of its first chunk's header.
var compressionNote = regexp.MustCompile(`\n *"compression_note": "from 1 of (\d+) chunk headers; the others were not read",`)

// dropCompressionNote removes compressionNote from info --json output, the
// one way a remote bag's info differs from the local file's.
func dropCompressionNote(s string) string { return compressionNote.ReplaceAllString(s, "") }

// TestURLInfoRequests: info of an indexed MCAP file or ROS1 bag over HTTP
// makes at most three requests (the head, the tail, the first chunk's
// message indexes or index data records, for the first time of each
// topic) and fetches at most 300 kB; the server counts them too. The
// output is the local file's, but for the bag's compression, read from
// its first chunk's header only, which a note says.
func TestURLInfoRequests(t *testing.T) {
	src := bigRecordings(t)
	if _, err := studygen.WriteBig(filepath.Join(src, "big-lz4.bag"), msgdef.Default(),
		studygen.BigOptions{Size: 12 << 20, CloudBytes: 256 << 10, Seed: 3, Compression: "lz4"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"big.mcap", "big.bag", "big-lz4.bag"} {
		t.Run(name, func(t *testing.T) {
			base, served := httpDir(t, src)
			url := base + name
			want, _, _ := run(t, "info", "--json", filepath.Join(src, name))
			got, stderr, code := run(t, "info", "--json", "--stats", url)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got = strings.ReplaceAll(got, base, src+"/")
			if strings.HasSuffix(name, ".bag") {
				m := compressionNote.FindStringSubmatch(got)
				if m == nil || strings.Contains(want, "compression_note") {
					t.Fatalf("no note of the chunk headers read: %s\nlocal: %s", got, want)
				}
				t.Logf("%s chunks", m[1])
				got = dropCompressionNote(got)
			}
			if got != want {
				t.Fatalf("info differs: %s", testenv.FirstDiff(got, want))
			}
			requests, fetched, size := statsOf(t, stderr, url)
			if requests > 3 || served.Load() != requests || fetched > 300_000 {
				t.Errorf("%d requests (server: %d), %d of %d bytes", requests, served.Load(), fetched, size)
			}
			t.Logf("%d requests, %d of %d bytes", requests, fetched, size)
		})
	}
}

func TestURLMissingExits4(t *testing.T) {
	base, _ := httpStudy(t)
	_, stderr, code := run(t, "cat", base+"nope.bag")
	if code != exitNoInput || !strings.Contains(stderr, base+"nope.bag") || !strings.Contains(stderr, "not found") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestURLDB3IsCopiedAndSaysSo(t *testing.T) {
	base, _ := httpStudy(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out, stderr, code := run(t, "cat", base+"queries.db3")
	if code != 0 || !strings.Contains(stderr, "copied to a private temporary folder") || out == "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// TestURLPartitionedExportFetchesOnce: a partitioned export of a URL hashes
// the recording for its manifest while it exports it, fetching each byte
// once; its manifest and part names are those of the local file's export,
// and a second run skips it.
func TestURLPartitionedExportFetchesOnce(t *testing.T) {
	src := bigRecordings(t)
	base, _ := httpDir(t, src)
	for _, name := range []string{"big.bag", "big.mcap"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			url, dir, local := base+name, t.TempDir(), t.TempDir()
			_, stderr, code := run(t, "export", "--partition-by", "source", "--stats", "--out", dir, url)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			requests, fetched, size := statsOf(t, stderr, url)
			// The blocks the summary's reading fetched (a bag's chunk
			// headers, an MCAP file's first message indexes) may be fetched
			// again after it ends.
			if size != int64(len(data)) || fetched > size+size/100+64<<10 {
				t.Errorf("fetched %d bytes of %d (file %d bytes): %s", fetched, size, len(data), stderr)
			}
			t.Logf("%d requests, %d of %d bytes", requests, fetched, size)
			rows, err := export.ReadManifest(dir)
			if err != nil || len(rows) != 1 || rows[0].SHA256 != hex.EncodeToString(sum[:]) || rows[0].Size != int64(len(data)) || rows[0].Path != url {
				t.Fatalf("manifest %+v, %v; want sha256 %x", rows, err, sum)
			}
			if _, stderr, code := run(t, "export", "--partition-by", "source", "--out", local, filepath.Join(src, name)); code != 0 {
				t.Fatalf("local: exit %d: %s", code, stderr)
			}
			if got, want := dataFiles(t, dir), dataFiles(t, local); strings.Join(got, ",") != strings.Join(want, ",") || len(want) == 0 {
				t.Fatalf("files %v, local export's %v", got, want)
			}
			_, stderr, code = run(t, "export", "--partition-by", "source", "--out", dir, url)
			if code != 0 || !strings.Contains(stderr, "skipped") {
				t.Fatalf("again: exit %d: %s", code, stderr)
			}
			if hidden, _ := filepath.Glob(filepath.Join(dir, ".*")); len(hidden) > 0 {
				t.Errorf("left behind: %v", hidden)
			}
		})
	}
}

// TestURLRepair: reindex and recover of a URL salvage what the local file
// gives, byte for byte, and exit as they do on it; the report names the
// URL.
func TestURLRepair(t *testing.T) {
	base, _ := httpStudy(t)
	for _, c := range []struct{ verb, name, ext string }{
		{"reindex", "broken/study-truncated.bag", ".bag"},
		{"recover", "broken/study-crc.mcap", ".mcap"},
	} {
		t.Run(c.verb, func(t *testing.T) {
			dir := t.TempDir()
			got, want := filepath.Join(dir, "url"+c.ext), filepath.Join(dir, "local"+c.ext)
			out, stderr, code := run(t, c.verb, base+c.name, "-o", got)
			_, _, wcode := run(t, c.verb, studyFile(c.name), "-o", want)
			if code != wcode || code != exitProblem || !strings.HasPrefix(out, base+c.name+" -> "+got+": ") {
				t.Fatalf("exit %d (local %d): %s\n%s", code, wcode, out, stderr)
			}
			a, _ := os.ReadFile(got)
			b, _ := os.ReadFile(want)
			if len(b) == 0 || !bytes.Equal(a, b) {
				t.Fatalf("%s of the URL wrote %d bytes, of the file %d, not the same", c.verb, len(a), len(b))
			}
		})
	}
}

// TestURLBaseline: analyze and check compare with a --baseline read over
// HTTP as with the same file; drift exits 1 naming the URL.
func TestURLBaseline(t *testing.T) {
	dir := t.TempDir()
	doc, stderr, code := run(t, "analyze", "grasps", "--json", studyFile("study.bag"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "grasps.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := httpDir(t, dir)
	for _, verb := range []string{"analyze", "check"} {
		args := func(more ...string) []string {
			a := []string{"check", "--baseline", base + "grasps.json", studyFile("study.bag")}
			if verb == "analyze" {
				a = []string{"analyze", "grasps", "--baseline", base + "grasps.json", studyFile("study.bag")}
			}
			return append(a, more...)
		}
		if _, stderr, code := run(t, args()...); code != 0 {
			t.Fatalf("%s, same run: exit %d: %s", verb, code, stderr)
		}
		out, stderr, code := run(t, args("--end", "+30s")...)
		if verb == "analyze" {
			out = stderr
		}
		if code != exitProblem || !strings.Contains(out, base+"grasps.json") {
			t.Fatalf("%s, another run: exit %d: %s\n%s", verb, code, out, stderr)
		}
	}
}

// TestURLSkipBadCountsAChunkLost: a remote bag whose second chunk header
// is damaged gives, with --skip-bad, every message of its other chunk and
// counts those of the damaged one as left out, so that what cat prints
// and what it says it left out add up to the messages info counts in the
// intact file.
func TestURLSkipBadCountsAChunkLost(t *testing.T) {
	data, err := os.ReadFile(studyFile("study-lz4.bag"))
	if err != nil {
		t.Fatal(err)
	}
	// The second chunk record (op 0x05), walking the records from the
	// end of the magic line.
	var chunks []int
	for pos := len("#ROSBAG V2.0\n"); pos+8 <= len(data); {
		hl := int(binary.LittleEndian.Uint32(data[pos:]))
		dl := int(binary.LittleEndian.Uint32(data[pos+4+hl:]))
		if bytes.Contains(data[pos+4:pos+4+hl], []byte("op=\x05")) {
			chunks = append(chunks, pos)
		}
		pos += 8 + hl + dl
	}
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	second := chunks[1]
	dir := t.TempDir()
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[second:], 0x7fffffff) // header_len past the end
	os.WriteFile(filepath.Join(dir, "bad.bag"), bad, 0o644)
	base, _ := httpDir(t, dir)

	info, _, _ := run(t, "info", "--json", studyFile("study-lz4.bag"))
	var sum struct {
		MessageCount int `json:"message_count"`
	}
	if err := json.Unmarshal([]byte(info), &sum); err != nil || sum.MessageCount == 0 {
		t.Fatalf("info: %v %s", err, info)
	}
	out, stderr, code := run(t, "cat", "--skip-bad", base+"bad.bag")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var left int
	if _, err := fmt.Sscanf(stderr[strings.Index(stderr, "--skip-bad: "):], "--skip-bad: %d messages left out", &left); err != nil {
		t.Fatalf("no count of messages left out: %s", stderr)
	}
	if got := strings.Count(out, "\n"); got == 0 || got+left != sum.MessageCount {
		t.Errorf("%d messages printed and %d left out, of %d: %s", got, left, sum.MessageCount, stderr)
	}
}
