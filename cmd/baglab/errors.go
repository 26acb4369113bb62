package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/fserr"
	"github.com/baglab/baglab/internal/termtext"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/remote"
)

// Exit codes, documented in `baglab --help` and README.
const (
	exitOK          = 0
	exitProblem     = 1   // a problem was found (doctor, baseline drift)
	exitUsage       = 2   // usage error: flags, arguments, selection
	exitBadInput    = 3   // bad input data: the recording is damaged or not a recording
	exitNoInput     = 4   // an input cannot be opened: missing, not readable, a folder where a file is expected
	exitOutput      = 5   // an output cannot be written: exists (without --force), not writable, disk full
	exitHungUp      = 129 // SIGHUP
	exitInterrupted = 130 // SIGINT
	exitBrokenPipe  = 141 // stdout closed early (| head)
	exitTerminated  = 143 // SIGTERM
)

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// completedError is the error of a verb that completed its work although
// a signal asked it to stop (record closes its file on Ctrl-C and then
// reports what it dropped): Main keeps it instead of the signal's.
type completedError struct{ error }

func (e *completedError) Unwrap() error { return e.error }

// problemsFound reports exit code 1 without an error message of its own
// (the command already printed what it found).
var errProblemsFound = &exitError{code: exitProblem}

// signalError is the cause of a run a signal ended.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "terminated"
	}
	if e.sig == syscall.SIGHUP {
		return "hung up"
	}
	return "interrupted"
}

// outputFailure is an output that cannot be written.
type outputFailure struct {
	path string
	err  error
}

func (e *outputFailure) Error() string { return fmt.Sprintf("cannot write %s: %v", e.path, e.err) }
func (e *outputFailure) Unwrap() error { return e.err }

// outputError marks err as a failure to write the output path (exit 5).
func outputError(path string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return &outputFailure{path: path, err: fserr.Cause(err)}
}

// printError prints err as baglab's error line, and the repair hint when
// a repair can undo the damage it names.
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "baglab: %s\n", termtext.Text(err.Error()))
	if hint := recording.RepairHint(err); hint != "" {
		fmt.Fprintf(w, "baglab: %s\n", termtext.Text(hint))
	}
}

// exitCode decides the exit code by the type of err, never by its text.
func exitCode(err error) int {
	var (
		ee  *exitError
		se  *signalError
		re  *record.Error
		ie  *recording.InputError
		oe  *outputFailure
		pe  *fs.PathError
		rm  *remote.Error
		sel = recording.ErrSelection
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &se):
		if se.sig == syscall.SIGTERM {
			return exitTerminated
		}
		if se.sig == syscall.SIGHUP {
			return exitHungUp
		}
		return exitInterrupted
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, syscall.EPIPE):
		return exitBrokenPipe
	case errors.As(err, &oe), errors.Is(err, syscall.ENOSPC):
		return exitOutput
	case errors.Is(err, sel), errors.Is(err, decode.ErrRules):
		return exitUsage
	case errors.As(err, &ie), errors.As(err, &rm):
		return exitNoInput
	case errors.As(err, &re):
		return exitBadInput
	case errors.As(err, &pe):
		return exitNoInput
	}
	return exitProblem
}
