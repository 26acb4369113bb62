package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// httpStudy serves the study folder over HTTP with Go's own Range
// handling (http.FileServer), counting requests.
func httpStudy(t *testing.T) (base string, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	fs := http.FileServer(http.Dir(studyDir))
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
				for _, l := range strings.Split(s, "\n") {
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
