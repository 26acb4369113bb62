package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/baglab/baglab/decode"
)

// checkOutDir fails unless dir is a writable directory or can be made one
// (its nearest existing parent is a writable directory): an output checked
// before any input is read, without creating anything.
func checkOutDir(dir, flag string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return outputError(dir, fmt.Errorf("%s names a file, not a directory", flag))
	}
	return checkWritable(dir)
}

// checkOutFile fails unless path can be written: not an input, not an
// existing file (unless force), not a directory, in a directory that is
// writable or can be made.
func checkOutFile(path, flag string, force bool, inputs []string) error {
	if err := refuseInput(path, inputs, flag); err != nil {
		return err
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return outputError(path, errors.New("a directory, not a file"))
	case err == nil && !force:
		return outputError(path, errors.New("the file exists (use --force to overwrite)"))
	}
	return checkWritable(filepath.Dir(path))
}

// writeRecording creates the recording path, fills it and closes it; on
// an error, or when a signal ends the run, it is aborted and leaves nothing.
func (g *globalOptions) writeRecording(ctx context.Context, path string, co decode.CreateOptions, fill func(decode.Writer) error) error {
	w, err := decode.Create(path, co)
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

// refuseInput returns a usage error when out names one of the inputs.
func refuseInput(out string, inputs []string, flag string) error {
	for _, in := range inputs {
		if same, err := sameFile(out, in); err == nil && same {
			return usageErrorf("%s %s would overwrite an input", flag, out)
		}
	}
	return nil
}

// checkWritable checks that files can be created in dir, or in its nearest
// existing ancestor when dir does not exist yet.
func checkWritable(dir string) error {
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return outputError(dir, fmt.Errorf("%s is a file, not a directory", p))
			}
			if err := syscall.Access(p, 2 /* W_OK */); err != nil {
				return outputError(dir, fmt.Errorf("%s: %w", p, err))
			}
			return nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return outputError(dir, err)
		}
		p = parent
	}
}
