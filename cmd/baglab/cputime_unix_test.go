//go:build linux || darwin

package main

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time of this process so far: a
// benchmark figure that the other work on a shared machine disturbs less
// than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
