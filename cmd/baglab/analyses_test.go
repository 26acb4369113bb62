package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/internal/digest"
	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/recording"
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

// TestAnalysesMemoryLimit: every verb that runs analyses reads its inputs
// and writes its outputs under the soft memory limit analysis.MemoryLimit
// gives for its --jobs (read whenever a note is written: the selection
// warning while reading, "wrote ..." at the end), and puts the previous
// limit back afterwards.
func TestAnalysesMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	sel := []string{studyFile("study.bag"), "--topics", "/interactive_world/placement,/typo", "-j", "3"}
	baseline := filepath.Join(dir, "baseline.json")
	out, stderr, code := run(t, append([]string{"analyze", "placements", "--json"}, sel...)...)
	if code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(baseline, []byte(out), 0o666); err != nil {
		t.Fatal(err)
	}
	before := debug.SetMemoryLimit(-1)
	if before == analysis.MemoryLimit(3) {
		t.Fatal("the limit is set before the test")
	}
	for _, args := range [][]string{
		{"analyze", "placements"},
		{"analyze", "placements", "--partial", filepath.Join(dir, "p.json")},
		{"report", "-o", filepath.Join(dir, "r.html")},
		{"check", "--baseline", baseline},
	} {
		var limits []int64
		stderr, code := runHooked(t, func(string) { limits = append(limits, debug.SetMemoryLimit(-1)) }, append(args, sel...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.HasPrefix(stderr, "baglab: warning: --topics /typo") || len(limits) == 0 {
			t.Errorf("%v: no warning first: %s", args, stderr)
		}
		for i, limit := range limits {
			if limit != analysis.MemoryLimit(3) {
				t.Errorf("%v: memory limit %d at note %d of\n%s\nwant %d", args, limit, i+1, stderr, analysis.MemoryLimit(3))
			}
		}
		if after := debug.SetMemoryLimit(-1); after != before {
			t.Errorf("%v: limit %d after the run, want %d back", args, after, before)
		}
	}
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
	recordtest.CopyFile(t, studyFile("study.bag"), bag)
	want, err := digest.Of(bag)
	if err != nil {
		t.Fatal(err)
	}
	d, err := recording.Describe(bag)
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
