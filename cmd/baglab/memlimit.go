package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit sets a soft limit of bytes on the Go heap, unless the
// user set GOMEMLIMIT, and returns the function that restores the previous
// settings. It keeps a command's heap near what it holds instead of letting
// garbage double it (GOGC's target) on large inputs. A process-wide
// setting, so the command makes it, not the library (export.MemoryLimit
// and analysis.MemoryLimit say what an export and an analysis need).
//
// With gcPercent > 100, and GOGC not set by the user, the collector also
// waits until the heap has grown by gcPercent% of what is live: under the
// limit, which still holds, a command with a known budget spends it on
// fewer collections instead of collecting at twice the live heap (the
// pairing the Go GC guide describes for GOGC and GOMEMLIMIT).
func softMemoryLimit(bytes int64, gcPercent int) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(bytes)
	oldPercent := -2 // unchanged
	if gcPercent > 100 && os.Getenv("GOGC") == "" {
		oldPercent = debug.SetGCPercent(gcPercent)
	}
	return func() {
		debug.SetMemoryLimit(old)
		if oldPercent != -2 {
			debug.SetGCPercent(oldPercent)
		}
	}
}
