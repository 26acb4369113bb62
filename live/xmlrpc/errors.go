package xmlrpc

import "errors"

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("xmlrpc: malformed document")
