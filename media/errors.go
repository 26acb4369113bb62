package media

import (
	"fmt"

	"github.com/baglab/baglab/record"
)

// fieldError is a frame that cannot be converted: the field at fault
// (relative to the image or cloud), a record sentinel and what is wrong.
type fieldError struct {
	field  string
	err    error
	detail string
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() + ": " + e.detail }
func (e *fieldError) Unwrap() error { return e.err }

func bad(field string, err error, format string, args ...any) error {
	return &fieldError{field: field, err: err, detail: fmt.Sprintf(format, args...)}
}

// frameError places err, met converting or writing f, in its recording:
// file, message offset, topic, the field's full path in the message and
// the log time.
func frameError(f *Frame, err error) error {
	field, cause, detail := f.Field, err, ""
	if fe, ok := err.(*fieldError); ok {
		field = joinField(f.Field, fe.field)
		cause, detail = fe.err, fe.detail
	}
	d := fmt.Sprintf("%s at log time %d", f.Kind, f.LogTime)
	if detail != "" {
		d += ": " + detail
	}
	return &record.Error{File: f.Source, Offset: f.Offset, Topic: f.Topic, Field: field, Err: cause, Detail: d}
}

// joinField joins a field path and a path below it.
func joinField(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

// OutputError is a file that could not be written.
type OutputError struct {
	Path string
	Err  error
}

func (e *OutputError) Error() string { return fmt.Sprintf("cannot write %s: %v", e.Path, e.Err) }

// Unwrap returns the cause.
func (e *OutputError) Unwrap() error { return e.Err }
