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

// gcPercentUnderLimit sets the collector's target to percent for a
// command that also set softMemoryLimit, and returns the function that
// restores the previous target. The collector then waits until the heap
// has grown by percent% of what is live: under the limit, which still
// holds, a command with a known budget spends it on fewer collections
// instead of collecting at twice the live heap (the pairing the Go GC
// guide describes for GOGC and GOMEMLIMIT). It does nothing when the user
// set GOGC, or GOMEMLIMIT (then the limit is not the command's own).
func gcPercentUnderLimit(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}
