package record

import (
	"errors"
	"fmt"
	"strings"

	"github.com/baglab/baglab/internal/termtext"
)

// Sentinel causes of bad data. Every Error unwraps to one of them.
var (
	ErrTruncated   = errors.New("truncated")
	ErrLength      = errors.New("length exceeds remaining bytes")
	ErrBadUTF8     = errors.New("invalid UTF-8")
	ErrTrailing    = errors.New("trailing bytes after message")
	ErrUnknownType = errors.New("unknown message type")
	ErrCRC         = errors.New("CRC mismatch")
	ErrFormat      = errors.New("malformed data")
	ErrNotFound    = errors.New("not found")
	ErrUnsupported = errors.New("unsupported")
	// ErrUnverified marks messages a repair kept although no CRC vouched
	// for them: they read, but their content may be damaged.
	ErrUnverified = errors.New("unverified content")
)

// Error is bad input data: where it is and what is wrong with it.
type Error struct {
	File   string // path of the file, "" when decoding a bare buffer
	Offset int64  // byte offset in the file (or in the buffer when File is ""), -1 if unknown
	Topic  string // topic of the message being decoded, if any
	Field  string // field path, e.g. "placements[12].position.x", or record field
	Err    error  // a sentinel above, possibly wrapped with detail
	Detail string // extra human detail
	// Stretch is the damaged stretch a reader went past, when the error
	// reports one (Skipped.AsError): its byte range and the messages it
	// kept or dropped, for the count of what a reading lost.
	Stretch *Skipped
}

// Error is "FILE: offset N: topic T: field F: cause: detail", the parts
// that are set; file, topic and field are escaped as one line each
// (termtext.Line): a recording may name a topic with a newline or a
// terminal escape.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(termtext.Line(e.File))
		b.WriteString(": ")
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, "offset %d: ", e.Offset)
	}
	if e.Topic != "" {
		fmt.Fprintf(&b, "topic %s: ", termtext.Line(e.Topic))
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", termtext.Line(e.Field))
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }

// WithFile returns err annotated with the file path (and, when a buffer
// offset is known, rebased to base, the offset of the buffer in the file) and
// topic. Errors that are not *Error are wrapped in one.
func WithFile(err error, file string, base int64, topic string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.File == "" {
			c.File = file
			if c.Offset >= 0 && base >= 0 {
				c.Offset += base
			}
		}
		if c.Topic == "" {
			c.Topic = topic
		}
		return &c
	}
	return &Error{File: file, Offset: base, Topic: topic, Err: err}
}

// Brief is the text of e without its file name and byte offset, for a
// caller that prints those itself (a Problem, a Skipped note): "topic /x:
// a.b: truncated: detail".
func (e *Error) Brief() string {
	var parts []string
	if e.Topic != "" {
		parts = append(parts, "topic "+e.Topic)
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	if e.Err != nil {
		parts = append(parts, e.Err.Error())
	}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	return strings.Join(parts, ": ")
}

// Brief is err's text without a file name and byte offset when err is
// (or wraps) an *Error, else its whole text.
func Brief(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Brief()
	}
	return err.Error()
}

// OffsetOf is the byte offset err names, or -1.
func OffsetOf(err error) int64 {
	var e *Error
	if errors.As(err, &e) {
		return e.Offset
	}
	return -1
}
