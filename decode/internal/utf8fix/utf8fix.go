// Package utf8fix reads text that should be UTF-8 but may not be, as the
// ROS tools read it: each ill-formed sequence becomes one U+FFFD, by the
// Unicode rule of substitution of maximal subparts (The Unicode Standard,
// §3.9). That is what Python's bytes.decode("utf-8", "replace") gives, and
// so genpy (rosbag, rospy), and what the WHATWG TextDecoder gives, and so
// rosbag.js and @foxglove/cdr.
package utf8fix

import "unicode/utf8"

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// Valid returns b when it is valid UTF-8, and otherwise a new slice with
// U+FFFD in place of each maximal subpart of an ill-formed sequence; ok
// reports whether b was valid.
func Valid(b []byte) (text []byte, ok bool) {
	if utf8.Valid(b) {
		return b, true
	}
	out := make([]byte, 0, len(b)+2*len(replacement))
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		out = append(out, replacement...)
		i += maximalSubpart(b[i:])
	}
	return out, false
}

// maximalSubpart is the length of the longest prefix of b, whose first
// byte starts no well-formed sequence, that is the start of one (at least
// 1): a lead byte and the continuation bytes that may follow it.
func maximalSubpart(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF) // the range of the next byte
	var follow int
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		follow = 1
	case c == 0xE0:
		follow, lo = 2, 0xA0
	case c == 0xED:
		follow, hi = 2, 0x9F // no surrogates
	case c >= 0xE1 && c <= 0xEF:
		follow = 2
	case c == 0xF0:
		follow, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		follow = 3
	case c == 0xF4:
		follow, hi = 3, 0x8F // up to U+10FFFF
	default:
		return 1
	}
	n := 1
	for n <= follow && n < len(b) && b[n] >= lo && b[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}
