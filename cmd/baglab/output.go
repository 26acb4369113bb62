package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

// checkOutDir fails unless dir is a writable directory or can be made one
// (atomicfile.CheckDir): an output checked before any input is read,
// without creating anything.
func checkOutDir(dir, flag string) error {
	return checkedOutput(atomicfile.CheckDir(dir), flag, dir)
}

// checkOutFolder is checkOutDir for a folder a verb writes whole (analyze
// --out and --plots): one that already holds files is refused (exit 5)
// unless force, and writeFolder then replaces it whole.
func checkOutFolder(dir, flag string, force bool) error {
	if err := checkOutDir(dir, flag); err != nil {
		return err
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 && !force {
		return outputError(dir, fmt.Errorf("%s holds files (use --force to replace them)", flag))
	}
	return nil
}

// addFsyncFlag adds --fsync, which syncs the recording a verb writes
// before its rename (recording.CreateOptions.Sync, RepairOptions.Sync).
func addFsyncFlag(cmd *cobra.Command, p *bool) {
	cmd.Flags().BoolVar(p, "fsync", false,
		"wait until the output is on disk before renaming it into place: a power cut can then leave it missing, never short (by default, as cp, rosbag and rosbag2 do, it is in place once written to memory, and a power cut soon after may leave it short, which reading it reports)")
}

// checkOutFile fails unless path can be written (atomicfile.CheckFile):
// not an input, not an existing file (unless force), not a directory, in a
// directory that is writable or can be made.
func checkOutFile(path, flag string, force bool, inputs []string) error {
	return checkedOutput(atomicfile.CheckFile(path, force, inputs), flag, filepath.Dir(path))
}

// checkedOutput turns the error of an output check of flag into a usage
// error (the output is an input: exit 2) or an output error (exit 5) on
// the output or on dir, the directory it goes into. It adds the hint to an
// existing file's error; any other error it returns as it is.
func checkedOutput(err error, flag, dir string) error {
	var ce *atomicfile.CheckError
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case errors.Is(err, atomicfile.ErrInput):
		return usageErrorf("%s %s would overwrite an input", flag, ce.Path)
	case errors.Is(err, atomicfile.ErrIsDir):
		return outputError(ce.Path, ce.Err)
	case errors.Is(err, fs.ErrExist):
		return outputError(ce.Path, errors.New("the file exists (use --force to overwrite)"))
	case errors.Is(err, atomicfile.ErrNotDir) && ce.Dir == "":
		return outputError(ce.Path, fmt.Errorf("%s names a file, not a directory", flag))
	case errors.Is(err, atomicfile.ErrNotDir):
		return outputError(dir, fmt.Errorf("%s is a file, not a directory", ce.Dir))
	}
	return outputError(dir, err)
}

// writeRecording creates the recording path, fills it and closes it; on
// an error, or when a signal ends the run, it is aborted and leaves nothing.
func writeRecording(ctx context.Context, path string, co recording.CreateOptions, fill func(recording.Writer) error) error {
	w, err := recording.Create(path, co)
	if err != nil {
		return outputError(path, err)
	}
	err = fill(w)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		w.Abort()
		return outputError(path, err)
	}
	return nil
}
