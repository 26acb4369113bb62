package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit sets a soft limit of bytes on the Go heap, unless the
// user set GOMEMLIMIT, and returns the function that restores the previous
// limit. It keeps a command's heap near what it holds instead of letting
// garbage double it (GOGC's target) on large inputs. A process-wide
// setting, so the command makes it, not the library (export.MemoryLimit
// and analysis.MemoryLimit say what an export and an analysis need).
func softMemoryLimit(bytes int64) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(bytes)
	return func() { debug.SetMemoryLimit(old) }
}
