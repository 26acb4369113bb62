// Package english words counts for people: "1 message", "2 messages".
package english

import "strconv"

// Integer is any integer type a count comes in.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Plural is noun when n is 1 and noun+"s" otherwise.
func Plural[N Integer](n N, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Count is n followed by its noun: "1 chunk", "0 chunks", "3 chunks".
func Count[N Integer](n N, noun string) string {
	var s string
	if n < 0 {
		s = strconv.FormatInt(int64(n), 10)
	} else {
		s = strconv.FormatUint(uint64(n), 10)
	}
	return s + " " + Plural(n, noun)
}
