//go:build !baglab_lean

package main

import (
	"os"
	"runtime/debug"

	"github.com/baglab/baglab/recording/remote"
)

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

// remoteMemory is what the objects of the URLs among paths hold in memory
// while jobs of them are read at once (their block caches,
// remote.Options.Memory), for a soft memory limit: without it the
// collector runs ever more often to keep the rest under the limit (a 1 GB
// export from a URL: 477 collections, against 55 with it and 110 for the
// local file).
func remoteMemory(jobs int, paths []string) int64 {
	urls := 0
	for _, p := range paths {
		if remote.IsURL(p) {
			urls++
		}
	}
	return int64(min(max(jobs, 1), urls)) * remote.Options{}.Memory()
}
