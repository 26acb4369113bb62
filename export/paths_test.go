package export

import (
	"strings"
	"testing"
)

func TestTopicPath(t *testing.T) {
	for topic, want := range map[string]string{
		"/a/b":            "a/b",
		"a":               "a",
		"/a//b/":          "a/b",
		"/tf_static":      "tf_static",
		"/ns/~private":    "ns/~private",
		"/with space/x:y": "with%20space/x%3Ay",
		"/.hidden/x":      "%2Ehidden/x",
		"/a/b.c":          "a/b.c",
		"/a/%41":          "a/%2541",
		`/a\b`:            "a%5Cb",
	} {
		got, err := topicPath(topic)
		if err != nil || got != want {
			t.Errorf("topicPath(%q) = %q, %v; want %q", topic, got, err, want)
		}
	}
	for _, bad := range []string{"/a/../b", "..", "/./x", "", "/", "//"} {
		if got, err := topicPath(bad); err == nil {
			t.Errorf("topicPath(%q) = %q, want error", bad, got)
		}
	}
}

func TestHiveValue(t *testing.T) {
	for v, want := range map[string]string{
		"/a/b":       "%2Fa%2Fb",
		"run.bag":    "run.bag",
		"":           "__HIVE_DEFAULT_PARTITION__",
		"a=b":        "a%3Db",
		"..":         "%2E.",
		"ünï":        "%C3%BCn%C3%AF",
		"2024-01-02": "2024-01-02",
	} {
		if got := hiveValue(v); got != want {
			t.Errorf("hiveValue(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestLongTopicNames: a topic whose name maps to a path segment over the
// file-name limit gets a shortened, hashed segment; two such topics differ.
func TestLongTopicNames(t *testing.T) {
	long := "/" + strings.Repeat("a", 300)
	p1, err := topicPath(long + "/x")
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := topicPath(long + "b/x")
	seg := strings.Split(p1, "/")[0]
	if len(seg) > maxName || !strings.Contains(seg, "~") || p1 == p2 {
		t.Errorf("long topic: %q (%d bytes), other %q", p1, len(seg), p2)
	}
	esc := strings.Repeat("é", 150) // 300 bytes, each escaped to %XX: 900 bytes
	if s := shortName(escapeName(esc)); len(s) > maxName || len(strings.Split(s, "~")[0])%3 != 0 {
		t.Errorf("escaped long name: %q", s)
	}
	if hv := hiveValue(long); len(hv) > maxName {
		t.Errorf("hive value of %d bytes", len(hv))
	}
}
