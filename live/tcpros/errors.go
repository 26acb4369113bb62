package tcpros

import "errors"

// ErrTooLarge is wrapped by errors for a length above its bound.
var ErrTooLarge = errors.New("tcpros: length over limit")

// ErrMalformed is wrapped by errors for a header that does not parse.
var ErrMalformed = errors.New("tcpros: malformed header")

// ErrNoRoom is wrapped by ReadBody's error for a frame dropped because
// its reserve function refused room for it.
var ErrNoRoom = errors.New("tcpros: no room for frame")
