package foxglove

import (
	"errors"
	"strings"
)

// ErrMessage is the cause of every client message that does not parse.
var ErrMessage = errors.New("bad client message")

// MessageError is a client message that does not parse: the operation (as
// far as it was read), the field and what is wrong. It unwraps to
// ErrMessage and the underlying error.
type MessageError struct {
	Op    string
	Field string
	Err   error
}

func (e *MessageError) Error() string {
	var b strings.Builder
	b.WriteString(ErrMessage.Error())
	if e.Op != "" {
		b.WriteString(" " + e.Op)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

// Unwrap gives ErrMessage and the underlying error.
func (e *MessageError) Unwrap() []error { return []error{ErrMessage, e.Err} }
