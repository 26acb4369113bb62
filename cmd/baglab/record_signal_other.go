//go:build !unix

package main

import "github.com/baglab/baglab/live/recorder"

// snapshotOnSignal does nothing where there is no SIGUSR1: snapshots are
// triggered by the ~trigger_snapshot service.
func snapshotOnSignal(*recorder.Recorder, *globalOptions) (stop func()) { return func() {} }
