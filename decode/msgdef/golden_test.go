package msgdef

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sharedMsgs returns the directory of the shared ROS definitions and their
// genmsg-computed MD5 sums and full texts (shared/msgs beside the repo, or
// $BAGLAB_SHARED/msgs).
func sharedMsgs(t testing.TB) string {
	t.Helper()
	dirs := []string{filepath.Join("..", "..", "..", "shared", "msgs")}
	if env := os.Getenv("BAGLAB_SHARED"); env != "" {
		dirs = append([]string{filepath.Join(env, "msgs")}, dirs...)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "ros1-md5sums.txt")); err == nil {
			return d
		}
	}
	t.Fatalf("shared msgs not found in %v (set BAGLAB_SHARED)", dirs)
	return ""
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
// the embedded registry against the MD5 sums genmsg computed.
func TestRegistryMD5(t *testing.T) {
	dir := sharedMsgs(t)
	reg := Default()
	if defaultErr != nil {
		t.Fatalf("embedded definitions: %v", defaultErr)
	}
	for _, file := range []string{"ros1-md5sums.txt", "ros1-action-md5sums.txt"} {
		sums := readSums(t, filepath.Join(dir, file))
		if len(sums) < 60 {
			t.Fatalf("%s: only %d sums", file, len(sums))
		}
		for _, name := range sortedKeys(sums) {
			typ, err := reg.Lookup(name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := MD5(typ); got != sums[name] {
				t.Errorf("MD5(%s) = %s, genmsg %s", name, got, sums[name])
			}
		}
	}
}

// TestServiceMD5 checks every ROS1 service and its request and response
// against genmsg.
func TestServiceMD5(t *testing.T) {
	dir := sharedMsgs(t)
	sums := readSums(t, filepath.Join(dir, "ros1-srv-md5sums.txt"))
	files, err := filepath.Glob(filepath.Join(dir, "ros1", "*", "srv", "*.srv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .srv files: %v", err)
	}
	checked := 0
	for _, file := range files {
		pkg := filepath.Base(filepath.Dir(filepath.Dir(file)))
		name := pkg + "/" + strings.TrimSuffix(filepath.Base(file), ".srv")
		text, err := os.ReadFile(file)
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
				t.Errorf("%s missing from ros1-srv-md5sums.txt", c.name)
				continue
			}
			if c.got != want {
				t.Errorf("MD5(%s) = %s, genmsg %s", c.name, c.got, want)
			}
			checked++
		}
		if req.Name != name+"Request" || resp.Name != name+"Response" {
			t.Errorf("%s: names %s, %s", name, req.Name, resp.Name)
		}
	}
	if checked != len(sums) {
		t.Errorf("checked %d of %d srv sums", checked, len(sums))
	}
}

// TestFullText checks that the registry reproduces every genmsg full text
// byte for byte, and that each full text parses back (without a registry)
// to a type with the same MD5 and full text.
func TestFullText(t *testing.T) {
	dir := sharedMsgs(t)
	sums := readSums(t, filepath.Join(dir, "ros1-md5sums.txt"))
	for k, v := range readSums(t, filepath.Join(dir, "ros1-action-md5sums.txt")) {
		sums[k] = v
	}
	files, err := filepath.Glob(filepath.Join(dir, "ros1-fulltext", "*.txt"))
	if err != nil || len(files) < 100 {
		t.Fatalf("fulltext files: %d, %v", len(files), err)
	}
	reg := Default()
	for _, file := range files {
		name := strings.Replace(strings.TrimSuffix(filepath.Base(file), ".txt"), "__", "/", 1)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := string(b)
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := FullText(typ); got != want {
			t.Errorf("FullText(%s) differs from genmsg:\n%s", name, firstDiff(got, want))
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
			t.Errorf("FullText(ParseBundle(%s)) differs:\n%s", name, firstDiff(got, want))
		}
	}
}

// firstDiff describes where two texts start to differ.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-60)
	return "at byte " + strconv.Itoa(i) + "\n got: " + quoteCut(got[lo:], 120) + "\nwant: " + quoteCut(want[lo:], 120)
}

func quoteCut(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ReplaceAll(s, "\n", "⏎")
}
