// Package termtext makes text taken from recordings safe to print for a
// person: a topic, frame or metadata value may hold any bytes, and a
// terminal obeys the escape sequences among them (colours, cursor moves,
// a rewritten title), a newline forges a line of output, and a
// bidirectional override reorders what is shown.
package termtext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of text: each character a terminal would not
// show as itself (not unicode.IsPrint: controls, newlines and tabs
// included, separators, bidirectional formatting) is replaced by its Go
// escape ("\x1b", "\n", "\u202e"), and each byte that is not UTF-8 by
// "\xNN". s comes back as it is, without allocating, when it holds none.
func Line(s string) string { return escape(s, false) }

// Text is Line for text of several lines: it keeps newlines and tabs.
func Text(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	i := unsafeAt(s, lines)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\x`...)
			b = append(b, "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&0xf])
		case unsafe(r, lines):
			q := strconv.AppendQuoteRune(b, r) // 'x' with x escaped
			b = append(q[:len(b)], q[len(b)+1:len(q)-1]...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// unsafeAt is the index of the first rune or byte of s that escape
// replaces, or -1.
func unsafeAt(s string, lines bool) int {
	return strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || unsafe(r, lines) })
}

// unsafe reports whether escape replaces r.
func unsafe(r rune, lines bool) bool {
	if lines && (r == '\n' || r == '\t') {
		return false
	}
	return !unicode.IsPrint(r)
}
