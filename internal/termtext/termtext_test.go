package termtext

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"/camera/points", "/camera/points", "/camera/points"},
		{"héllo wörld ✓", "héllo wörld ✓", "héllo wörld ✓"},
		{"/a\x1b[31mRED\x1b[0m", `/a\x1b[31mRED\x1b[0m`, `/a\x1b[31mRED\x1b[0m`},
		{"a\nmessages: 9", `a\nmessages: 9`, "a\nmessages: 9"},
		{"tab\there\r", `tab\there\r`, "tab\there\\r"},
		{"bell\a del\x7f", `bell\a del\x7f`, `bell\a del\x7f`},
		{"nbsp\u00a0 zwsp\u200b", `nbsp\u00a0 zwsp\u200b`, `nbsp\u00a0 zwsp\u200b`},
		{"a real \ufffd stays", "a real \ufffd stays", "a real \ufffd stays"},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`},
		{"not utf8 \xff\xfe", `not utf8 \xff\xfe`, `not utf8 \xff\xfe`},
		{"rlo \u202egnp.exe", `rlo \u202egnp.exe`, `rlo \u202egnp.exe`},
		{"sep\u2028x", `sep\u2028x`, `sep\u2028x`},
		{"", "", ""},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

// FuzzLine checks that what Line and Text return holds no rune they
// escape, and is the input itself when that holds none.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "/tf", "\x1b]0;title\a", "a\nb\tc", "\xff", "\u202e", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lines := range []bool{false, true} {
			out := escape(s, lines)
			if !utf8.ValidString(out) || strings.ContainsFunc(out, func(r rune) bool { return unsafe(r, lines) }) {
				t.Fatalf("escape(%q, %v) = %q: still unsafe", s, lines, out)
			}
			if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return unsafe(r, lines) }) && out != s {
				t.Fatalf("escape(%q, %v) = %q: changed safe text", s, lines, out)
			}
			// A line reads back as the input through Go's own unquoting,
			// when the input has no backslash or quote of its own.
			if !lines && !strings.ContainsAny(s, `\"`) {
				back, err := strconv.Unquote(`"` + out + `"`)
				if err != nil || back != s {
					t.Fatalf("escape(%q, %v) = %q: unquotes to %q (%v)", s, lines, out, back, err)
				}
			}
		}
	})
}
