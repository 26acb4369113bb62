package rosnode

import "errors"

// ErrClosed is returned by operations on a closed publisher or node.
var ErrClosed = errors.New("rosnode: closed")
