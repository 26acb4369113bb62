package msgdef

import (
	"fmt"
	"strings"
)

// Error is a problem with a message definition: the type it is in, the line
// of that type's own text (1-based; 0 when the problem is not tied to a line)
// and what is wrong. It unwraps to record.ErrFormat (syntax, cycles, limits),
// record.ErrUnknownType (a referenced type that cannot be found) or
// record.ErrUnsupported (a definition encoding this package does not read).
type Error struct {
	Type string // the type name, as given or as written in a MSG: line
	Line int
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("msgdef: ")
	if e.Type != "" {
		b.WriteString(e.Type)
		if e.Line > 0 {
			fmt.Fprintf(&b, " line %d", e.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(" (")
		b.WriteString(e.Err.Error())
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }
