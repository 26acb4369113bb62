//go:build baglab_lean

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"

	"github.com/baglab/baglab/recording/remote"
	"github.com/spf13/cobra"
)

// The lean baglab (built with the tag baglab_lean) starts in a few
// milliseconds: it links the readers, the decoders, the writers and the
// live node, and leaves out Arrow, the plotting library, the analyses and
// the object-storage SDKs, whose initialisation alone took 15 ms of every
// start. Every command it has no verb for (export, tf, media, analyze,
// report, check, help, a misspelt verb) and every command naming an
// s3://, gs:// or azblob:// URL it hands to baglab-full, installed beside
// it, by exec: the same arguments in the same process, so exit codes,
// signals and terminals behave as if baglab-full had been run.

// fullVerbs are none: baglab-full has them.
func fullVerbs() []verb { return nil }

// handOff replaces the process with baglab-full when the command needs
// it; it returns only on failure, or with nil when this build runs the
// command.
func handOff(root *cobra.Command, args []string) error {
	if !needsFull(root, args) {
		return nil
	}
	full, err := fullPath()
	if err == nil {
		_, err = os.Stat(full)
	}
	if err != nil {
		return fmt.Errorf("this command is run by baglab-full, which should be installed beside this baglab (make install puts both there; go install ./cmd/baglab builds one binary with every verb): %v", err)
	}
	return execFull(full, args)
}

// needsFull reports whether this build cannot run the command: root has
// no verb for it, or an argument names a URL of object storage.
func needsFull(root *cobra.Command, args []string) bool {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return true
	}
	return slices.ContainsFunc(args, remote.MentionsBucket)
}

// fullPath is baglab-full beside this executable (symbolic links
// followed, so a link to baglab on PATH finds it too).
func fullPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	name := "baglab-full"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(self), name), nil
}

// execFull replaces this process with baglab-full.
func execFull(full string, args []string) error {
	return syscall.Exec(full, append([]string{full}, args...), os.Environ())
}
