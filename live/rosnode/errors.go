package rosnode

import "errors"

// ErrClosed is returned by operations on a closed publisher or node.
var ErrClosed = errors.New("rosnode: closed")

// ErrStalled is wrapped by the error that closes a connection whose peer
// sent nothing for Options.Timeout in the middle of a message.
var ErrStalled = errors.New("rosnode: connection stalled")
