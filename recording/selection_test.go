package recording

import (
	"testing"
	"time"
)

func TestTopicMatcher(t *testing.T) {
	cases := []struct {
		name     string
		patterns []string
		yes, no  []string
	}{
		{"exact", []string{"/a/b"}, []string{"/a/b"}, []string{"/a/bc", "/a", "/a/b/c"}},
		{"no slash", []string{"chatter"}, []string{"/chatter", "chatter"}, []string{"/x/chatter"}},
		{"star one level", []string{"/arm/*"}, []string{"/arm/joint", "/arm/"}, []string{"/arm/a/b", "/leg/x"}},
		{"double star", []string{"/**/status"}, []string{"/a/status", "/a/b/c/status"}, []string{"/status2", "/a/state"}},
		{"question and class", []string{"/cam[01]/image?"}, []string{"/cam0/image1", "/cam1/imageX"}, []string{"/cam2/image1", "/cam0/image"}},
		{"regex", []string{"re:^/grasp"}, []string{"/grasp", "/grasp_and_store/goal"}, []string{"/a/grasp"}},
		{"several", []string{"/a", "re:b$"}, []string{"/a", "/xb"}, []string{"/c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := TopicMatcher(c.patterns)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.yes {
				if !m(s) {
					t.Errorf("%q does not match %q", c.patterns, s)
				}
			}
			for _, s := range c.no {
				if m(s) {
					t.Errorf("%q matches %q", c.patterns, s)
				}
			}
		})
	}
	if m, err := TopicMatcher(nil); m != nil || err != nil {
		t.Error("no patterns should select everything (nil matcher)")
	}
	for _, bad := range []string{"re:(", "/a/[b"} {
		if _, err := TopicMatcher([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseTimeSpec(t *testing.T) {
	const start = int64(1714564800e9)
	cases := []struct {
		in   string
		want int64
	}{
		{"2024-05-01T12:00:10Z", start + 10e9},
		{"2024-05-01T14:00:10.5+02:00", start + 10.5e9},
		{"1714564800.25", start + 0.25e9},
		{"1714564800", start},
		{"1714564822.886275716", start + 22886275716},
		{"1714564822.8862757165", start + 22886275717},
		{"+0.000000001", start + 1},
		{"+.5", start + 0.5e9},
		{"1.7145648e9", start},
		{"+12.5s", start + 12.5e9},
		{"+12.5", start + 12.5e9},
		{"+1m30s", start + 90e9},
		{"+250ms", start + 250e6},
	}
	for _, c := range cases {
		ts, err := ParseTimeSpec(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := ts.Resolve(start); got != c.want {
			t.Errorf("%q: %d, want %d (off by %v)", c.in, got, c.want, time.Duration(got-c.want))
		}
	}
	for _, bad := range []string{"yesterday", "+soon", "1e400", "NaN", "99999999999.5", "-", ".", "2024-13-01T00:00:00Z"} {
		if _, err := ParseTimeSpec(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if ts, _ := ParseTimeSpec(""); ts.IsSet() || ts.Resolve(start) != 0 {
		t.Error("empty spec should be unset")
	}
}
