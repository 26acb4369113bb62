//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/baglab/baglab/live/recorder"
)

// snapshotOnSignal writes a snapshot on every SIGUSR1 until the returned
// function is called.
func snapshotOnSignal(r *recorder.Recorder, g *globalOptions) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				if path, err := r.Snapshot(recorder.SnapshotRequest{}); err != nil {
					g.warn("baglab record: snapshot on SIGUSR1: %v", err)
				} else {
					g.note("baglab record: SIGUSR1: snapshot written to %s", path)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
