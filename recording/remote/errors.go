package remote

import (
	"errors"
	"fmt"
)

// Causes of a failed remote read, for errors.Is.
var (
	// ErrNotFound: the object, bucket or prefix does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAccess: the server refused the credentials (or gave none).
	ErrAccess = errors.New("access denied")
	// ErrChanged: the object changed while it was read.
	ErrChanged = errors.New("the object changed while it was read")
	// ErrProtocol: the server answered what was not asked (a wrong
	// Content-Range, a status that means nothing here).
	ErrProtocol = errors.New("bad response")
	// ErrUnsupported: the URL's scheme is not one this package reads, or
	// the operation is not possible on it (listing an http folder).
	ErrUnsupported = errors.New("unsupported")
)

// Error is a remote operation that failed: its URL, the byte range when it
// was a read (Off, N; N is 0 otherwise) and the cause.
type Error struct {
	URL    string
	Op     string // "read", "open", "list", "write"
	Off, N int64
	Err    error
}

func (e *Error) Error() string {
	if e.Op == "read" && e.N > 0 {
		return fmt.Sprintf("%s: read bytes %d-%d: %v", e.URL, e.Off, e.Off+e.N-1, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.URL, e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// statusError is an HTTP status that the caller may retry (temporary) or
// not.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string {
	if e.msg != "" {
		return fmt.Sprintf("HTTP %d: %s", e.code, e.msg)
	}
	return fmt.Sprintf("HTTP %d", e.code)
}

// temporary reports whether the status is worth a retry.
func (e *statusError) temporary() bool {
	switch e.code {
	case 408, 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// causeOf maps an HTTP status onto the sentinel it means, or nil.
func causeOf(code int) error {
	switch code {
	case 401, 403:
		return ErrAccess
	case 404, 410:
		return ErrNotFound
	case 412:
		return ErrChanged
	}
	return nil
}

// wrapStatus is the error of an HTTP status: wrapping its sentinel when it
// has one.
func wrapStatus(code int, msg string) error {
	se := &statusError{code: code, msg: msg}
	if c := causeOf(code); c != nil {
		return fmt.Errorf("%w (%v)", c, se)
	}
	return se
}
