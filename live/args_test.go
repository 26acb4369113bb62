package live

import (
	"errors"
	"testing"
)

// TestArgsError: the message is Msg alone, and the error is its own
// package's sentinel, not another's.
func TestArgsError(t *testing.T) {
	errPlay, errRecord := errors.New("play options"), errors.New("invalid record options")
	var err error = &ArgsError{Msg: "--queue 0: want at least 1", Cause: errPlay}
	if err.Error() != "--queue 0: want at least 1" || !errors.Is(err, errPlay) || errors.Is(err, errRecord) {
		t.Errorf("%v: Is play %v, Is record %v", err, errors.Is(err, errPlay), errors.Is(err, errRecord))
	}
}
