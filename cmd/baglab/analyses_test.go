package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/digest"
)

// stderrHook is a stderr that hands each write (a note is one) to f
// before keeping it.
type stderrHook struct {
	bytes.Buffer
	f func(string)
}

func (w *stderrHook) Write(p []byte) (int, error) {
	w.f(string(p))
	return w.Buffer.Write(p)
}

// runHooked is run with every write to stderr handed to f.
func runHooked(t *testing.T, f func(string), args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	stderr := &stderrHook{f: f}
	code := Main(args, strings.NewReader(""), &out, stderr)
	return stderr.String(), code
}

// TestPartialWarnsOnce: analyze --partial describes its inputs from the
// run that read them; opening them again to describe them said every
// warning of the selection twice.
func TestPartialWarnsOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.json")
	_, stderr, code := run(t, "analyze", "all", "--partial", p, studyFile("study.bag"), studyFile("queries.db3"), "--topics", "/interactive_world/placement,/typo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stderr, "warning: --topics /typo matches no topic"); n != 1 {
		t.Errorf("the selection warning said %d times, want once:\n%s", n, stderr)
	}
}

// TestReportDescribesWhatItRead: the provenance block gives the digest and
// summary of each input as the run read it, without opening the recording
// again: a recording overwritten once its messages are read (when the
// report notes the analyses without data) is still described as read.
func TestReportDescribesWhatItRead(t *testing.T) {
	dir := t.TempDir()
	bag := filepath.Join(dir, "study.bag")
	data, err := os.ReadFile(studyFile("study.bag"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bag, data, 0o666); err != nil {
		t.Fatal(err)
	}
	want, err := digest.Of(bag)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decode.Describe(bag)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "r.html")
	overwritten := false
	stderr, code := runHooked(t, func(s string) {
		if strings.Contains(s, "no data for") {
			overwritten = os.WriteFile(bag, []byte("not a recording any more"), 0o666) == nil
		}
	}, "report", bag, "-o", page)
	if code != 0 || !overwritten {
		t.Fatalf("exit %d (recording overwritten: %v): %s", code, overwritten, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	row := `<td class="txt path">` + bag + `</td><td class="txt">bag</td><td class="num" data-v="` + strconv.FormatInt(want.Size, 10) + `">`
	count := `<td class="num" data-v="` + strconv.FormatUint(d.MessageCount, 10) + `">` + strconv.FormatUint(d.MessageCount, 10) + `</td></tr>`
	for _, s := range []string{row, want.SHA256, count} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("provenance lacks %s", s)
		}
	}
}
