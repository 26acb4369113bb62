package msgdef

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// genmsgRef is the reference for the embedded ROS1 definitions, computed at
// test time by Debian's genmsg (testdata/genmsg_tables.py, actions expanded
// by actionlib's genaction.py) over a copy of exactly what the registry
// embeds.
type genmsgRef struct {
	md5    map[string]string // every .msg and action-generated type
	action map[string]string // the action-generated types only
	srv    map[string]string // every service, its Request and Response
	full   map[string]string // full texts of the msg and action types
}

var (
	genmsgOnce sync.Once
	genmsgVal  *genmsgRef
	genmsgErr  error
)

// genmsgTables runs genmsg once per test binary (the genmsg peer is
// required: absent, the test skips, or fails when CI is set).
func genmsgTables(t testing.TB) *genmsgRef {
	t.Helper()
	testenv.RequirePeer(t, "genmsg", "genaction")
	genmsgOnce.Do(func() {
		dir, err := os.MkdirTemp("", "msgdef-genmsg")
		if err != nil {
			genmsgErr = err
			return
		}
		defer os.RemoveAll(dir)
		if genmsgErr = writeEmbeddedROS1(dir); genmsgErr != nil {
			return
		}
		var out bytes.Buffer
		cmd := exec.Command(testenv.Python, filepath.Join("testdata", "genmsg_tables.py"), dir)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			genmsgErr = fmt.Errorf("genmsg_tables.py: %v\n%s", err, out.String())
			return
		}
		var raw struct {
			Msg, Action map[string]struct{ MD5, Full string }
			Srv         map[string]string
		}
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			genmsgErr = fmt.Errorf("genmsg_tables.py output: %v", err)
			return
		}
		ref := &genmsgRef{md5: map[string]string{}, action: map[string]string{}, srv: raw.Srv, full: map[string]string{}}
		for name, e := range raw.Msg {
			ref.md5[name], ref.full[name] = e.MD5, e.Full
		}
		for name, e := range raw.Action {
			ref.md5[name], ref.full[name], ref.action[name] = e.MD5, e.Full, e.MD5
		}
		genmsgVal = ref
	})
	if genmsgErr != nil {
		t.Fatal(genmsgErr)
	}
	return genmsgVal
}

// writeEmbeddedROS1 writes the embedded ROS1 definitions to dir
// (dir/<pkg>/{msg,srv,action}/).
func writeEmbeddedROS1(dir string) error {
	sub, err := fs.Sub(embedded, "defs/ros1")
	if err != nil {
		return err
	}
	return os.CopyFS(dir, sub)
}

// sharedMsgs is shared/msgs beside the public fixtures: the same
// definitions with MD5 and full-text tables genmsg computed when they were
// collected, an extra check when present (testenv.Shared: absent, the
// subtest skips, or fails when CI is set).
func sharedMsgs(t testing.TB) string {
	t.Helper()
	return testenv.Shared(t, "msgs")
}

// readSums reads "pkg/Type md5" lines.
func readSums(t testing.TB, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, sum, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		sums[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sums
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestRegistryMD5 checks every ROS1 message and action-generated type of
// the embedded registry against the MD5 sums genmsg computes, and against
// the tables of shared/msgs when present.
func TestRegistryMD5(t *testing.T) {
	if defaultErr != nil {
		t.Fatalf("embedded definitions: %v", defaultErr)
	}
	ref := genmsgTables(t)
	if len(ref.md5) < 200 || len(ref.action) < 60 {
		t.Fatalf("genmsg computed only %d sums (%d action types)", len(ref.md5), len(ref.action))
	}
	checkMD5s(t, ref.md5, "genmsg")
	t.Run("shared tables", func(t *testing.T) {
		dir := sharedMsgs(t)
		for _, file := range []string{"ros1-md5sums.txt", "ros1-action-md5sums.txt"} {
			sums := readSums(t, filepath.Join(dir, file))
			if len(sums) < 60 {
				t.Fatalf("%s: only %d sums", file, len(sums))
			}
			checkMD5s(t, sums, file)
		}
	})
}

// checkMD5s checks the registry's MD5 of each type in sums.
func checkMD5s(t *testing.T, sums map[string]string, source string) {
	t.Helper()
	reg := Default()
	for _, name := range sortedKeys(sums) {
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := MD5(typ); got != sums[name] {
			t.Errorf("MD5(%s) = %s, %s %s", name, got, source, sums[name])
		}
	}
}

// TestServiceMD5 checks every ROS1 service the registry embeds and its
// request and response against genmsg, and against shared/msgs' table when
// present.
func TestServiceMD5(t *testing.T) {
	ref := genmsgTables(t)
	checkServiceMD5s(t, ref.srv, "genmsg")
	t.Run("shared tables", func(t *testing.T) {
		checkServiceMD5s(t, readSums(t, filepath.Join(sharedMsgs(t), "ros1-srv-md5sums.txt")), "ros1-srv-md5sums.txt")
	})
}

func checkServiceMD5s(t *testing.T, sums map[string]string, source string) {
	t.Helper()
	files, err := fs.Glob(embedded, "defs/ros1/*/srv/*.srv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .srv files: %v", err)
	}
	checked := 0
	for _, file := range files {
		pkg := path.Base(path.Dir(path.Dir(file)))
		name := pkg + "/" + strings.TrimSuffix(path.Base(file), ".srv")
		text, err := fs.ReadFile(embedded, file)
		if err != nil {
			t.Fatal(err)
		}
		req, resp, err := ParseService(name, string(text), ROS1, Default())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, c := range []struct{ name, got string }{
			{name, ServiceMD5(req, resp)},
			{name + "Request", MD5(req)},
			{name + "Response", MD5(resp)},
		} {
			want, ok := sums[c.name]
			if !ok {
				t.Errorf("%s missing from %s", c.name, source)
				continue
			}
			if c.got != want {
				t.Errorf("MD5(%s) = %s, %s %s", c.name, c.got, source, want)
			}
			checked++
		}
		if req.Name != name+"Request" || resp.Name != name+"Response" {
			t.Errorf("%s: names %s, %s", name, req.Name, resp.Name)
		}
	}
	if checked != len(sums) {
		t.Errorf("checked %d of %d srv sums of %s", checked, len(sums), source)
	}
}

// TestFullText checks that the registry reproduces every genmsg full text
// byte for byte, and that each full text parses back (without a registry)
// to a type with the same MD5 and full text; then the same for the texts of
// shared/msgs/ros1-fulltext when present.
func TestFullText(t *testing.T) {
	ref := genmsgTables(t)
	if len(ref.full) < 200 {
		t.Fatalf("genmsg computed only %d full texts", len(ref.full))
	}
	checkFullTexts(t, ref.full, ref.md5)
	t.Run("shared tables", func(t *testing.T) {
		dir := sharedMsgs(t)
		sums := readSums(t, filepath.Join(dir, "ros1-md5sums.txt"))
		for k, v := range readSums(t, filepath.Join(dir, "ros1-action-md5sums.txt")) {
			sums[k] = v
		}
		files, err := filepath.Glob(filepath.Join(dir, "ros1-fulltext", "*.txt"))
		if err != nil || len(files) < 100 {
			t.Fatalf("fulltext files: %d, %v", len(files), err)
		}
		full := map[string]string{}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			full[strings.Replace(strings.TrimSuffix(filepath.Base(file), ".txt"), "__", "/", 1)] = string(b)
		}
		checkFullTexts(t, full, sums)
	})
}

// checkFullTexts checks the registry against full texts (by type) and the
// parsed-back texts against sums.
func checkFullTexts(t *testing.T, full, sums map[string]string) {
	t.Helper()
	reg := Default()
	for _, name := range sortedKeys(full) {
		want := full[name]
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := FullText(typ); got != want {
			t.Errorf("FullText(%s) differs from genmsg:\n%s", name, testenv.FirstDiff(got, want))
		}
		parsed, err := ParseBundle(name, want, ROS1, nil)
		if err != nil {
			t.Errorf("ParseBundle(%s): %v", name, err)
			continue
		}
		if got := MD5(parsed); got != sums[name] {
			t.Errorf("MD5(ParseBundle(%s)) = %s, genmsg %s", name, got, sums[name])
		}
		if got := FullText(parsed); got != want {
			t.Errorf("FullText(ParseBundle(%s)) differs:\n%s", name, testenv.FirstDiff(got, want))
		}
	}
}
