package value

import (
	"errors"
	"strconv"
	"strings"
)

// Causes of a PathError.
var (
	// ErrPath is a malformed path ("a..b", "a[x]").
	ErrPath = errors.New("malformed path")
	// ErrNoField is a path naming a field the type does not have.
	ErrNoField = errors.New("no such field")
	// ErrIndex is an array index out of range.
	ErrIndex = errors.New("index out of range")
	// ErrType is a value of the wrong Go type for its field.
	ErrType = errors.New("wrong value type")
	// ErrRange is a number that does not fit its field.
	ErrRange = errors.New("value out of range")
	// ErrLength is an array of the wrong length for a fixed array, or longer
	// than a bounded sequence's bound.
	ErrLength = errors.New("wrong array length")
)

// PathError is an error about the value at a field path.
type PathError struct {
	Path string // e.g. "placements[3].position.x"
	Err  error  // wraps one of the causes above (or record.ErrBadUTF8)
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return "value: " + e.Err.Error()
	}
	return "value: " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *PathError) Unwrap() error { return e.Err }

// pathErr collects a field path innermost first while an error unwinds.
type pathErr struct {
	err  error
	segs []seg
}

func (e *pathErr) field(name string) *pathErr {
	e.segs = append(e.segs, seg{name: name, idx: -1})
	return e
}

func (e *pathErr) index(i int) *pathErr {
	e.segs = append(e.segs, seg{idx: i})
	return e
}

func (e *pathErr) public() *PathError {
	return &PathError{Path: joinSegs(e.segs, true), Err: e.err}
}

// seg is one path step: a field name, or an index when idx >= 0.
type seg struct {
	name string
	idx  int
}

// joinSegs renders segments as a path; reversed means innermost first.
func joinSegs(segs []seg, reversed bool) string {
	var sb strings.Builder
	for k := range segs {
		s := segs[k]
		if reversed {
			s = segs[len(segs)-1-k]
		}
		if s.idx >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s.idx))
			sb.WriteByte(']')
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(s.name)
	}
	return sb.String()
}
