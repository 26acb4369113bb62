package baseline

import "testing"

func TestDropMember(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"baseline":{"a":1},"kind":"x"}`, `{"kind":"x"}`},
		{`{"kind":"x", "baseline" : {"a":[1,2]} }`, `{"kind":"x" }`},
		{`{"kind":"x","baseline":1,"y":2}`, `{"kind":"x","y":2}`},
		{`{"baseline":1}`, `{}`},
		{`{"kind":"x"}`, `{"kind":"x"}`},
		{`[1]`, `[1]`},
	} {
		if got := string(dropMember([]byte(c.in), "baseline")); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
}
