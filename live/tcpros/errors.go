package tcpros

import "errors"

// ErrTooLarge is wrapped by errors for a length above its bound.
var ErrTooLarge = errors.New("tcpros: length over limit")

// ErrMalformed is wrapped by errors for a header that does not parse.
var ErrMalformed = errors.New("tcpros: malformed header")
