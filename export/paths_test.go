package export

import "testing"

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
