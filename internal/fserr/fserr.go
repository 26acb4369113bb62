package fserr

import (
	"errors"
	"io/fs"
)

// Cause returns the cause of the first *fs.PathError in err's chain: the
// error without its operation and path ("no such file or directory" for
// "stat x.bag: no such file or directory"), for an error type that names
// the path itself. Without a *fs.PathError it returns err.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
