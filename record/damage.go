package record

import (
	"errors"
	"fmt"
	"strings"
)

// Skipped is a stretch of a file that a reader going on past damage (skip
// bad data), or a repair (reindex, recover), could not use as it is.
type Skipped struct {
	// Offset and Length locate the bytes in the file (Length runs to the
	// end of the file when the rest is unreadable).
	Offset, Length int64
	// Beyond counts the bytes the file's own header says followed where
	// the file now ends (a bag whose index position lies past its end):
	// lost with the cut, and not part of Length.
	Beyond int64
	// Kept counts the messages still read from the stretch, Dropped those
	// it was seen to hold that were left out.
	Kept, Dropped uint64
	// Estimated is how many more messages the stretch held by what the
	// file states, when the reader can tell: the rest of a torn chunk,
	// from the uncompressed size its header gives, at the density of the
	// records that were read. 0 when it cannot.
	Estimated uint64
	// Unverified is set when kept messages have no CRC to vouch for them
	// (a chunk whose CRC fails, or whose compressed data is damaged): their
	// content may be damaged.
	Unverified bool
	// Err is the damage itself, usually an *Error naming the file, offset
	// and field and unwrapping to a sentinel (ErrCRC, ErrTruncated ...).
	Err error
	// Note says what became of the stretch's messages, in words that do not
	// repeat Err: "3 messages kept, their content may be damaged".
	Note string
}

// Reason is what is wrong and what became of the messages, without the
// file name and offset.
func (s Skipped) Reason() string {
	var parts []string
	if s.Err != nil {
		parts = append(parts, Brief(s.Err))
	}
	if n := s.note(); n != "" {
		parts = append(parts, n)
	}
	return strings.Join(parts, "; ")
}

// note is Note, or when that is empty what Kept and Dropped count.
func (s Skipped) note() string {
	switch {
	case s.Note != "":
		return s.Note
	case s.Kept > 0 && s.Dropped > 0:
		return fmt.Sprintf("%d messages kept, %d dropped", s.Kept, s.Dropped)
	case s.Kept > 0:
		return fmt.Sprintf("%d messages kept", s.Kept)
	case s.Dropped > 0:
		return fmt.Sprintf("%d messages dropped", s.Dropped)
	}
	return ""
}

// AsError is s as one *Error of file: Err's own file, offset, field and
// cause when it has them, with the note and the byte range in the detail.
func (s Skipped) AsError(file string) *Error {
	var e Error
	var re *Error
	switch {
	case errors.As(s.Err, &re):
		e = *re
	case s.Err != nil:
		e = Error{Offset: s.Offset, Err: s.Err}
	default:
		e = Error{Offset: s.Offset, Err: ErrFormat}
	}
	if e.File == "" {
		e.File = file
	}
	var extra []string
	if e.Detail != "" {
		extra = append(extra, e.Detail)
	}
	if n := s.note(); n != "" {
		extra = append(extra, n)
	}
	if s.Length > 0 {
		extra = append(extra, fmt.Sprintf("damaged bytes [%d, %d)", s.Offset, s.Offset+s.Length))
	}
	if s.Beyond > 0 {
		extra = append(extra, fmt.Sprintf("%d bytes lost past the end of the file, by its header", s.Beyond))
	}
	e.Detail = strings.Join(extra, "; ")
	e.Stretch = &s
	return &e
}

// Severity grades a Problem.
type Severity string

// The severities of a Problem.
const (
	// SeverityError is damage: data that is unreadable or inconsistent with
	// its index or definition.
	SeverityError Severity = "error"
	// SeverityWarning is something the format allows but that costs
	// something: a missing index or summary, a count that is off.
	SeverityWarning Severity = "warning"
)

// Repair names the repair that undoes a problem.
type Repair string

// The repairs.
const (
	RepairNone    Repair = ""
	RepairReindex Repair = "reindex" // rebuild a ROS1 bag's index, salvaging every intact message
	RepairRecover Repair = "recover" // rebuild an MCAP file, salvaging every intact record
)

// Problem is one finding of a check of a file.
type Problem struct {
	Offset   int64 // byte offset of the record concerned, -1 when it concerns the whole file
	Severity Severity
	// Message says what is wrong, without the file name and offset.
	Message string
	// Repair is the repair that salvages what is intact, if any.
	Repair Repair
}

// String formats the problem for a human.
func (p Problem) String() string {
	if p.Offset < 0 {
		return fmt.Sprintf("%s: %s", p.Severity, p.Message)
	}
	return fmt.Sprintf("%s at offset %d: %s", p.Severity, p.Offset, p.Message)
}
