package recorder

import "errors"

// ErrUsage is wrapped by errors for invalid Options.
var ErrUsage = errors.New("invalid record options")
