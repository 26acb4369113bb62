//go:build !linux

package recorder

import (
	"errors"
	"os"
)

var errNoDropBehind = errors.New("recorder: no drop-behind on this system")

func writeBehind(*os.File, int64, int64) error { return errNoDropBehind }

func dropCache(*os.File, int64, int64) error { return errNoDropBehind }
