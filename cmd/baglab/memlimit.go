package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit sets a soft limit of mib MiB on the Go heap, unless the
// user set GOMEMLIMIT, and returns the function that restores the previous
// limit. It keeps a command's heap near what it holds instead of letting
// garbage double it (GOGC's target) on large inputs.
func softMemoryLimit(mib int64) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(mib << 20)
	return func() { debug.SetMemoryLimit(old) }
}
