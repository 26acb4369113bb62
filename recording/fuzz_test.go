package recording

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzParseTimeSpec: any text either fails or resolves, and a relative spec
// moves with the start.
func FuzzParseTimeSpec(f *testing.F) {
	for _, s := range []string{"2024-05-01T12:00:10Z", "1714564800.25", "+12.5s", "+1m30s", "+250ms", "", "yesterday", "+1e308", "-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTimeSpec(s)
		if err != nil {
			return
		}
		a, b := ts.Resolve(1e18), ts.Resolve(2e18)
		if ts.IsRelative() && b-a != 1e18 {
			t.Errorf("%q: relative spec does not follow the start: %d %d", s, a, b)
		}
		if !ts.IsRelative() && a != b {
			t.Errorf("%q: absolute spec depends on the start", s)
		}
	})
}

// FuzzTopicMatcher: any pattern either fails or gives a matcher that never
// panics; an exact topic always matches itself.
func FuzzTopicMatcher(f *testing.F) {
	for _, s := range []string{"/a/b", "/arm/*", "/**/status", "re:^/grasp", "/cam[01]/image?", "[", "re:("} {
		f.Add(s, "/arm/joint")
	}
	f.Fuzz(func(t *testing.T, pattern, topic string) {
		m, err := TopicMatcher([]string{pattern})
		if err != nil || m == nil {
			return
		}
		m(topic)
		exact := !regexp.MustCompile(`[*?\[\\]|^re:`).MatchString(pattern) && strings.TrimSpace(pattern) == pattern
		if exact && pattern != "" && !m(pattern) {
			t.Errorf("exact pattern %q does not match itself", pattern)
		}
	})
}
