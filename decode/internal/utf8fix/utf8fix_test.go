package utf8fix

import (
	"testing"
	"unicode/utf8"
)

func TestValid(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain ascii", "plain ascii"},
		{"héllo wörld ✓ 🤖", "héllo wörld ✓ 🤖"},
		{"\uFFFD stays", "\uFFFD stays"},
		// The example of The Unicode Standard, §3.9, Table 3-8.
		{"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd"},
		{"a\xe2\x82z\xff", "a\uFFFDz\uFFFD"},             // genpy: 'a\ufffdz\ufffd'
		{"Caf\xe9", "Caf\uFFFD"},                         // Latin-1
		{"\xc0\xaf", "\uFFFD\uFFFD"},                     // overlong: C0 is no lead byte
		{"\xe0\x80\xaf", "\uFFFD\uFFFD\uFFFD"},           // overlong: E0 needs A0..BF next
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},           // a surrogate
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // above U+10FFFF
		{"\xf0\x9f\x98", "\uFFFD"},                       // a cut 4-byte sequence
		{"\xf0\x9f\x98x\xf0\x9f\x98\x80", "\uFFFDx😀"},
		{"\xe2\x82", "\uFFFD"},
		{"\x80\x80", "\uFFFD\uFFFD"},
	} {
		got, ok := Valid([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("Valid(%q) = %q, want %q", c.in, got, c.want)
		}
		if ok != (c.in == c.want) {
			t.Errorf("Valid(%q) ok = %v", c.in, ok)
		}
	}
}

// TestValidKeepsValidInput checks that valid text comes back as it is,
// without a copy.
func TestValidKeepsValidInput(t *testing.T) {
	b := []byte("ok ✓")
	got, ok := Valid(b)
	if !ok || &got[0] != &b[0] {
		t.Errorf("Valid copied valid text")
	}
}

func FuzzValid(f *testing.F) {
	f.Add([]byte("a\xe2\x82z\xff"))
	f.Add([]byte("\xf0\x9f\x98x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := Valid(b)
		if !utf8.Valid(got) {
			t.Fatalf("Valid(%q) = %q, not valid UTF-8", b, got)
		}
		if ok != utf8.Valid(b) || (ok && string(got) != string(b)) {
			t.Fatalf("Valid(%q) = %q, %v", b, got, ok)
		}
		// Every byte of b is either kept or part of a replaced subpart:
		// the output has at most one U+FFFD per input byte.
		if len(got) > 3*len(b) {
			t.Fatalf("Valid(%q) grew to %d bytes", b, len(got))
		}
	})
}
